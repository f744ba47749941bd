/**
 * The stable violation codes of `checkScope`.
 *
 * @module
 */
import { PATH_REJECTION_CODES } from "../paths/codes.ts";

/**
 * Every code a scope violation can carry, as explicit stable strings. A path
 * that fails confinement is reported with its {@link PATH_REJECTION_CODES}
 * code (`dotdot_component`, `dot_git`, ...); the others are scope rules.
 *
 * @example
 * ```ts
 * import { SCOPE_VIOLATION_CODES } from "./codes.ts";
 * if (SCOPE_VIOLATION_CODES.forbidden !== "forbidden") throw new Error("unexpected");
 * if (SCOPE_VIOLATION_CODES.dotGit !== "dot_git") throw new Error("unexpected");
 * ```
 */
export const SCOPE_VIOLATION_CODES = {
  ...PATH_REJECTION_CODES,
  /** Matches a forbidden glob (raw or in its `pathKey` form). Wins over allowed. */
  forbidden: "forbidden",
  /** An allow list was given and the path matches none of it. */
  outsideAllowed: "outside_allowed",
  /** A write set was given and the patch writes (creates, changes, deletes) outside it. */
  notWritable: "not_writable",
  /** Two different names in the patch are equal after NFC, case-fold, ignorables. */
  pathCollision: "path_collision",
  /** Two file sections create (or remove) the same path. */
  duplicatePath: "duplicate_path",
  /** A write beneath a path that is (or may be) a symbolic link in the result or preimage. */
  symlinkThenWrite: "symlink_then_write",
  /** A write beneath a path that is a regular file or submodule in the result or preimage. */
  fileDirectoryConflict: "file_directory_conflict",
  /** A `.gitmodules` that is a symbolic link. */
  symlinkedGitmodules: "symlinked_gitmodules",
  /** A gitlink (submodule commit, mode 160000) is added, changed or removed. */
  gitlink: "gitlink",
  /** A symbolic link is touched while the rules forbid symlinks. */
  symlink: "symlink",
  /**
   * A binary change stated without its content (`Binary files a/x and b/x differ`):
   * git apply refuses it, so the patch cannot be what is verified.
   */
  binaryWithoutData: "binary_without_data",
  /** The patch itself could not be parsed (detail: the parser's code and line). */
  unparsablePatch: "unparsable_patch",
} as const;

/** One of the {@link SCOPE_VIOLATION_CODES} values. */
export type ScopeViolationCode = typeof SCOPE_VIOLATION_CODES[keyof typeof SCOPE_VIOLATION_CODES];
