import { VouchError } from "../../kernel/errors/mod.ts";
import type { SandboxKind, SandboxProfile } from "../sandbox/profile.ts";
import type { LimitKind } from "../sandbox/limits.ts";
import type { CapturedStream } from "./capture.ts";

/** What to run and how. Exactly one of `argv` and `shell` must be given. */
export interface ProcessSpec {
  /** Program and arguments, spawned directly (no shell). */
  readonly argv?: readonly string[];
  /** A shell string, run as exactly `sh -c <shell>`. */
  readonly shell?: string;
  /** Working directory (absolute). */
  readonly cwd: string;
  /** Extra environment on top of the allowlist; secret-looking or code-injecting names are refused. */
  readonly env?: Readonly<Record<string, string>>;
  /** Names the caller explicitly lets through although they look like secrets (never injection names). */
  readonly allowSecretEnv?: readonly string[];
  /**
   * Variables VOUCH itself composed (never a user's or an agent's value), passed
   * although their names change what code runs: a check's structured-report
   * hook (`NODE_OPTIONS=--require <vouch's hook>`, `PYTEST_ADDOPTS=--junitxml`).
   */
  readonly vouchEnv?: Readonly<Record<string, string>>;
  /** Wall-clock limit; on expiry SIGTERM, `graceMs`, then SIGKILL to the whole group. */
  readonly timeoutMs?: number;
  /** Time between SIGTERM and SIGKILL (default 2000 ms). */
  readonly graceMs?: number;
  /** How long to wait for pipes held open by leftover processes after the child exits (default 1000 ms). */
  readonly drainMs?: number;
  /** Cancels like a timeout (exit 124, `cancelled: true`). */
  readonly signal?: AbortSignal;
  /** Bytes kept per stream, head plus tail (default 64 KiB). */
  readonly maxCaptureBytes?: number;
  /** Confinement (default: the explicit `none` profile). */
  readonly sandbox?: SandboxProfile;
  /** Bytes for standard input; `null`/absent means `/dev/null`. */
  readonly stdin?: Uint8Array | null;
  /** Private HOME for an unsandboxed child (default: a fresh temp dir, removed afterwards). */
  readonly home?: string;
  /**
   * vouch's own hardened tool (its git), never worker code: unsandboxed, it
   * gets no private HOME or TMPDIR (HOME is `/nonexistent`, TMPDIR the
   * system's) and no daemon sweep after it exits. Only for programs that
   * cannot start anything that outlives them. @default false
   */
  readonly ownTool?: boolean;
  /**
   * Receives every stdout chunk as it arrives (live stream parsing); a sink
   * that throws is ignored. The bounded capture is kept either way.
   */
  readonly onStdout?: (chunk: Uint8Array) => void;
  /**
   * Keeps the child's stdin open and hands it over (for protocols spoken over
   * stdio, e.g. ACP); `stdin` is then ignored. The caller ends the stream.
   */
  readonly openStdin?: (stdin: import("node:stream").Writable) => void;
}

/** Why a process could not be started at all. */
export interface SpawnError {
  /** Stable code. */
  readonly code: "not_found" | "not_executable" | "bad_cwd" | "spawn_failed";
  /** Human-readable detail. */
  readonly message: string;
}

/** Evidence of one process run. */
export interface ProcessResult {
  /** The command as requested (`["sh", "-c", s]` for shell strings). */
  readonly argv: readonly string[];
  /** What was actually spawned (the sandbox wrapper included). */
  readonly spawnedArgv: readonly string[];
  /** Working directory. */
  readonly cwd: string;
  /** Exit code; 124 on timeout or cancellation; 128+n when killed by signal n; 127/126 when it could not start. */
  readonly exitCode: number;
  /** The terminating signal name, if any. */
  readonly signal: string | null;
  /** Whether the timeout fired. */
  readonly timedOut: boolean;
  /** Whether the AbortSignal fired. */
  readonly cancelled: boolean;
  /** Wall-clock duration. */
  readonly durationMs: number;
  /** Standard output capture. */
  readonly stdout: CapturedStream;
  /** Standard error capture. */
  readonly stderr: CapturedStream;
  /** Names (never values) of the environment passed. */
  readonly envNames: readonly string[];
  /** The sandbox profile used. */
  readonly sandbox: SandboxKind;
  /** Set when the process could not be started. */
  readonly spawnError: SpawnError | null;
  /** Whether processes left behind after the child exited were killed (its group, marked daemons). */
  readonly leftoversKilled: boolean;
  /** The resource limit the child exceeded (it was killed, or its write failed), or `null`. */
  readonly limit: { readonly kind: LimitKind; readonly message: string } | null;
}

/** Stable codes of {@linkcode ProcessSpecError}. */
export type ProcessSpecErrorCode = "invalid_spec" | "env_denied";

/** Thrown for a malformed {@linkcode ProcessSpec} (a programming error, not untrusted input). */
export class ProcessSpecError extends VouchError<ProcessSpecErrorCode> {
  constructor(code: ProcessSpecErrorCode, message: string) {
    super(code, message);
  }
}
