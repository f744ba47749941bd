/**
 * Running a contract's setup commands in a clean tree, in order, failing
 * closed at the first one that does not succeed.
 *
 * @module
 */
import { runProcess } from "../process/run.ts";
import type { ProcessResult } from "../process/types.ts";
import type { SandboxProfile } from "../sandbox/profile.ts";
import type { CheckRun } from "../../kernel/contract/types.ts";
import { clampTimeout } from "../contract/run_checks.ts";

/** One setup command: a shell string (`sh -c`), or an argv / shell run like a check's. */
export type SetupCommand = string | CheckRun;

/** Options of {@linkcode runSetup}. */
export interface SetupOptions {
  /** The clean tree (cwd of every command). */
  readonly tree: string;
  /** Confinement; network stays denied by `bwrap` unless the caller built a profile allowing it. */
  readonly sandbox?: SandboxProfile;
  /** Per-command timeout (default 10 minutes), clamped to what `deadline` leaves. */
  readonly timeoutMs?: number;
  /** The run's deadline (ms since epoch): no command may outlive it. */
  readonly deadline?: number;
  /** Extra environment on top of the runner's allowlist. */
  readonly env?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
  /** Called with each result (e.g. to record a receipt); `startedAt` is ms since epoch. */
  readonly onResult?: (
    command: string,
    result: ProcessResult,
    startedAt: number,
  ) => Promise<void> | void;
}

/** What {@linkcode runSetup} did. */
export interface SetupReport {
  /** Whether every command exited 0. */
  readonly ok: boolean;
  readonly results: readonly { readonly command: string; readonly result: ProcessResult }[];
  /** The first failing command, if any. */
  readonly failed: string | null;
  /** Why it failed (`exit 1`, `timed out`, `cancelled`, ...), or `null`. */
  readonly reason: string | null;
}

/**
 * How a setup command is shown (the shell string, or the argv joined by spaces).
 *
 * @example
 * ```ts
 * import { setupCommandText } from "./setup.ts";
 * if (setupCommandText({ argv: ["npm", "ci"] }) !== "npm ci") throw new Error();
 * if (setupCommandText("npm ci") !== "npm ci") throw new Error();
 * ```
 */
export function setupCommandText(command: SetupCommand): string {
  if (typeof command === "string") return command;
  return "shell" in command ? command.shell : command.argv.join(" ");
}

function failureReason(result: ProcessResult): string {
  if (result.spawnError !== null) return `cannot start: ${result.spawnError.message}`;
  if (result.cancelled) return "cancelled";
  if (result.timedOut) return "timed out";
  return `exit ${result.exitCode}`;
}

/**
 * Runs setup commands in the clean tree in order, stopping at the first
 * failure (fail closed: a setup that did not succeed means the checks cannot
 * be trusted to run). A command the deadline leaves no time for is not started
 * and fails the setup.
 *
 * @example
 * ```ts ignore
 * import { runSetup } from "./setup.ts";
 * const report = await runSetup(["npm ci"], { tree });
 * if (!report.ok) console.error(`setup failed: ${report.failed} (${report.reason})`);
 * ```
 */
export async function runSetup(
  commands: readonly SetupCommand[],
  opts: SetupOptions,
): Promise<SetupReport> {
  const results: { command: string; result: ProcessResult }[] = [];
  for (const command of commands) {
    const text = setupCommandText(command);
    const timeoutMs = clampTimeout(opts.timeoutMs ?? 600_000, opts.deadline);
    if (timeoutMs <= 0) {
      return { ok: false, results, failed: text, reason: "the run's deadline left no time" };
    }
    if (opts.signal?.aborted) return { ok: false, results, failed: text, reason: "cancelled" };
    const run = typeof command === "string" ? { shell: command } : command;
    const startedAt = Date.now();
    const result = await runProcess({
      ...("argv" in run ? { argv: run.argv } : { shell: run.shell }),
      cwd: opts.tree,
      timeoutMs,
      maxCaptureBytes: 256 * 1024,
      ...(opts.env !== undefined ? { env: opts.env } : {}),
      ...(opts.sandbox !== undefined ? { sandbox: opts.sandbox } : {}),
      ...(opts.signal !== undefined ? { signal: opts.signal } : {}),
    });
    results.push({ command: text, result });
    await opts.onResult?.(text, result, startedAt);
    if (result.exitCode !== 0 || result.spawnError !== null) {
      return { ok: false, results, failed: text, reason: failureReason(result) };
    }
  }
  return { ok: true, results, failed: null, reason: null };
}
