import { VouchError } from "../../kernel/errors/mod.ts";
import type { SandboxLimits } from "./limits.ts";

/**
 * How a child process is confined.
 *
 * - `none`: no confinement beyond the cleared environment, a private HOME and
 *   TMPDIR and a sweep of leftover processes; explicit, warned about on every
 *   run and recorded in every result.
 * - `bwrap`: bubblewrap with an ALLOWLISTED root (see docs/sandbox.md): system
 *   directories and toolchain directories read-only, only `writable` bound
 *   read-write, `readOnly` bound read-only at the same path, secrets inside
 *   the mounted directories masked, an empty private HOME and `/tmp`, no
 *   network unless `shareNetwork`, a new pid namespace and session, killed
 *   with its parent.
 */
export type SandboxProfile = NoSandbox | BwrapSandbox;

/** The explicit "no sandbox" profile. */
export interface NoSandbox {
  /** Discriminant. */
  readonly kind: "none";
  /** Resource limits (file size is enforced; memory and processes by the watchdog). */
  readonly limits?: SandboxLimits;
}

/** One mount of the allowlisted root, in order. */
export type RootMount =
  | { readonly kind: "ro"; readonly path: string }
  | { readonly kind: "symlink"; readonly path: string; readonly target: string }
  | { readonly kind: "mask-file"; readonly path: string }
  | { readonly kind: "mask-dir"; readonly path: string };

/** One layered view of {@linkcode BwrapSandbox.layers}. */
export interface SandboxLayer {
  /** The private tmpfs (absolute). */
  readonly path: string;
  /** Read-only binds into it (`source` seen at `path`, a child of the layer). */
  readonly binds: readonly { readonly source: string; readonly path: string }[];
  /** Symlinks made in it (`target` at `path`). */
  readonly links: readonly { readonly target: string; readonly path: string }[];
  /** Empty directories made in it (an existing cache dir such as `.cache`, made private). */
  readonly dirs: readonly string[];
  /** Remounted read-only once everything is bound into it (a git view, `_git_view.ts`). */
  readonly readOnly?: boolean;
}

/** A bubblewrap profile with every path resolved (absolute). */
export interface BwrapSandbox {
  /** Discriminant. */
  readonly kind: "bwrap";
  /** The bwrap executable. */
  readonly bwrapPath: string;
  /**
   * The allowlisted root: system and toolchain directories (read-only),
   * symlinks such as `/bin -> usr/bin`, and masks over secrets inside them.
   * Absent: only the lists below are mounted (used by argv unit tests).
   */
  readonly root?: readonly RootMount[];
  /** Directories bound read-write at the same path (the worktree). */
  readonly writable: readonly string[];
  /** Paths bound read-only at the same path after the writable ones (`.git`, deps, `--sandbox-ro`). */
  readonly readOnly: readonly string[];
  /**
   * Directories bound read-only at ANOTHER path (`source` seen at `path`), in
   * the same parent-first order as the binds above: a batch's shared dependency
   * snapshots at `<tree>/node_modules`. `writable`: bound read-write instead (a root-run
   * agent's copy of its state dir, seen at the state dir's own path).
   */
  readonly views?: readonly {
    readonly source: string;
    readonly path: string;
    readonly writable?: boolean;
  }[];
  /**
   * Layered read-only views, in the same parent-first order: a private,
   * size-capped, writable tmpfs at `path`, then each of `binds` bound
   * read-only into it (`source` at `path`) and each of `links` re-made there
   * (`verify`/`run`: the user's own `node_modules`, entry by entry).
   */
  readonly layers?: readonly SandboxLayer[];
  /** Directories replaced by an empty tmpfs after all binds. */
  readonly hiddenDirs: readonly string[];
  /** Files masked with `/dev/null` after all binds. */
  readonly hiddenFiles: readonly string[];
  /** Empty, size-capped, writable tmpfs views mounted last (a scratch view over a read-only dir). */
  readonly tmpfs?: readonly string[];
  /** HOME inside the sandbox: an empty dir on the private `/tmp` unless `homeSource` is bound there. */
  readonly home?: string;
  /** A host directory bound read-write as HOME (an agent's per-run state copy). */
  readonly homeSource?: string;
  /** The user's real HOME on the host: never mounted, nor any ancestor of it. */
  readonly userHome?: string;
  /** Environment the sandbox itself sets (e.g. `RUSTUP_HOME` for a toolchain under HOME). */
  readonly env?: Readonly<Record<string, string>>;
  /** Paths the user declared with `--sandbox-ro` / the contract (recorded in receipts). */
  readonly declaredReadOnly?: readonly string[];
  /** Resource limits. */
  readonly limits?: SandboxLimits;
  /**
   * Share the host network instead of `--unshare-net`: agents (they need their
   * model provider) and a contract's setup commands when the policy allows it
   * (see {@linkcode withSetupNetwork}); recorded as `bwrap+network` in receipts.
   * @default false
   */
  readonly shareNetwork?: boolean;
  /**
   * A program the command runs under inside the sandbox (the agent's egress
   * forwarder: it listens in the sandbox's own network namespace, then starts
   * the command). Tool commands and helpers derived from the agent's profile
   * drop it (see {@linkcode toolCommandProfile}).
   */
  readonly launcher?: readonly string[];
  /**
   * Set when vouch runs as root: the sandbox's uid 0 is this unprivileged host
   * uid (see `_user_map.ts`); the writable trees are handed to it before each
   * child. Absent: bwrap maps the invoking user to itself.
   */
  readonly userMap?: {
    /** Host uid (and gid) of the sandbox's uid 0 (65534). */
    readonly uid: number;
    /** util-linux `setpriv`, which drops to uid 0 inside before the command. */
    readonly setpriv: string;
  };
}

/**
 * The profile a setup command runs in when it may use the network: the same
 * confinement with the host network shared (`bwrap`); `none` is unchanged
 * (it never isolated the network).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { sandboxLabel, withSetupNetwork } from "./profile.ts";
 * const p = withSetupNetwork({ kind: "bwrap", bwrapPath: "/usr/bin/bwrap", writable: ["/wt"],
 *   readOnly: [], hiddenDirs: [], hiddenFiles: [] });
 * equal(sandboxLabel(p), "bwrap+network");
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
 * import { equal } from "node:assert/strict";
 * import { NO_SANDBOX, sandboxLabel } from "./profile.ts";
 * equal(sandboxLabel(NO_SANDBOX), "none");
 * ```
 */
export function sandboxLabel(profile: SandboxProfile): string {
  return profile.kind === "bwrap" && profile.shareNetwork === true ? "bwrap+network" : profile.kind;
}

/**
 * What a `none` run gives up, said wherever its evidence is shown.
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { UNSANDBOXED_WARNING } from "./profile.ts";
 * ok(UNSANDBOXED_WARNING.includes("keys"));
 * ```
 */
export const UNSANDBOXED_WARNING =
  "UNSANDBOXED (--sandbox none): children ran as you, with your files, vouch's keys and your " +
  "network in reach; this evidence proves less than a sandboxed run";

/** Names of sandbox kinds, as recorded in results. */
export type SandboxKind = SandboxProfile["kind"];

/** The `none` profile. */
export const NO_SANDBOX: NoSandbox = { kind: "none" };

/** Stable codes of {@linkcode SandboxError}. */
export type SandboxErrorCode = "sandbox_unavailable" | "sandbox_invalid";

/** Thrown when a sandbox cannot be built or a policy refuses to downgrade (exit 5: could not run). */
export class SandboxError extends VouchError<SandboxErrorCode> {}
