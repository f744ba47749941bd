import { VouchError } from "../../kernel/errors/mod.ts";
/** Stable codes of {@linkcode KeyError}. */
export type KeyErrorCode =
  /** The key file is readable or writable by group/others. */
  | "insecure_permissions"
  /** The key file would live inside the repository/worktree. */
  | "inside_worktree"
  /** The key file exists but is not a vouch key. */
  | "corrupt"
  /** Neither `XDG_STATE_HOME` nor `HOME` is set and no `VOUCH_KEY_FILE` was given. */
  | "no_state_dir"
  /** A public key could not be read. */
  | "bad_public_key"
  /** The fleet key file does not exist where a worker or a merge must find it. */
  | "fleet_key_missing"
  /** An operating-system error. */
  | "io";

/**
 * The error of the key-management boundary.
 *
 * @example
 * ```ts
 * import { KeyError } from "./errors.ts";
 * if (new KeyError("corrupt", "Cannot read key: corrupt").code !== "corrupt") throw new Error();
 * ```
 */
export class KeyError extends VouchError<KeyErrorCode> {}
