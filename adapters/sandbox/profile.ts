/**
 * How a child process is confined.
 *
 * - `none`: no confinement beyond the cleared environment; explicit and
 *   recorded in every result.
 * - `bwrap`: bubblewrap with a read-only root, only `writable` bound
 *   read-write, `readOnly` re-bound read-only on top (the worktree's `.git`),
 *   secret-bearing directories hidden behind an empty tmpfs and secret files
 *   masked with `/dev/null`, a private `/tmp`, no network, a new pid namespace
 *   and session, killed with its parent.
 */
export type SandboxProfile = NoSandbox | BwrapSandbox;

/** The explicit "no sandbox" profile. */
export interface NoSandbox {
  /** Discriminant. */
  readonly kind: "none";
}

/** A bubblewrap profile with every path resolved (absolute). */
export interface BwrapSandbox {
  /** Discriminant. */
  readonly kind: "bwrap";
  /** The bwrap executable. */
  readonly bwrapPath: string;
  /** Directories bound read-write (the worktree). */
  readonly writable: readonly string[];
  /** Paths re-bound read-only after the writable ones (`.git`, its gitdir). */
  readonly readOnly: readonly string[];
  /** Directories replaced by an empty tmpfs (`~/.ssh`, `~/.aws`, ...). */
  readonly hiddenDirs: readonly string[];
  /** Files masked with `/dev/null` (`~/.netrc`, `~/.git-credentials`). */
  readonly hiddenFiles: readonly string[];
}

/** Names of sandbox kinds, as recorded in results. */
export type SandboxKind = SandboxProfile["kind"];

/** The `none` profile. */
export const NO_SANDBOX: NoSandbox = { kind: "none" };

/** Thrown when a sandbox cannot be built or a policy refuses to downgrade. */
export class SandboxError extends Error {
  /** Stable code. */
  readonly code: SandboxErrorCode;
  constructor(code: SandboxErrorCode, message: string) {
    super(message);
    this.name = "SandboxError";
    this.code = code;
  }
}

/** Stable codes of {@linkcode SandboxError}. */
export type SandboxErrorCode = "sandbox-unavailable" | "sandbox-invalid";
