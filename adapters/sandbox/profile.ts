import { VouchError } from "../../kernel/errors/mod.ts";
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
  /**
   * Share the host network instead of `--unshare-net`. Only ever set for a
   * contract's setup commands when the policy allows it (see
   * {@linkcode withSetupNetwork}); recorded as `bwrap+network` in receipts.
   * @default false
   */
  readonly shareNetwork?: boolean;
}

/**
 * The profile a setup command runs in when it may use the network: the same
 * confinement with the host network shared (`bwrap`); `none` is unchanged
 * (it never isolated the network).
 *
 * @example
 * ```ts
 * import { sandboxLabel, withSetupNetwork } from "./profile.ts";
 * const p = withSetupNetwork({ kind: "bwrap", bwrapPath: "/usr/bin/bwrap", writable: ["/wt"],
 *   readOnly: [], hiddenDirs: [], hiddenFiles: [] });
 * if (sandboxLabel(p) !== "bwrap+network") throw new Error();
 * ```
 */
export function withSetupNetwork<P extends SandboxProfile>(profile: P): P {
  return profile.kind === "bwrap" ? { ...profile, shareNetwork: true } : profile;
}

/**
 * How a profile is recorded in receipts and evidence: its kind, plus
 * `+network` for a bwrap profile that shares the host network.
 *
 * @example
 * ```ts
 * import { NO_SANDBOX, sandboxLabel } from "./profile.ts";
 * if (sandboxLabel(NO_SANDBOX) !== "none") throw new Error();
 * ```
 */
export function sandboxLabel(profile: SandboxProfile): string {
  return profile.kind === "bwrap" && profile.shareNetwork === true ? "bwrap+network" : profile.kind;
}

/** Names of sandbox kinds, as recorded in results. */
export type SandboxKind = SandboxProfile["kind"];

/** The `none` profile. */
export const NO_SANDBOX: NoSandbox = { kind: "none" };

/** Thrown when a sandbox cannot be built or a policy refuses to downgrade. */
export class SandboxError extends VouchError<SandboxErrorCode> {
  constructor(code: SandboxErrorCode, message: string) {
    super(code, message);
  }
}

/** Stable codes of {@linkcode SandboxError}. */
export type SandboxErrorCode = "sandbox_unavailable" | "sandbox_invalid";
