/**
 * Telling "bwrap could not set the sandbox up" from "the command ran and
 * failed". bwrap that fails before it execs the command writes its own
 * `bwrap: <message>` line and exits 1; a root-started sandbox's launcher
 * writes `vouch: <message>` and exits 125. A command can print the same line
 * and exit the same way, so the look alone decides nothing: a result that
 * looks like it is confirmed by running `true` in the very same profile and
 * directory. Only when that fails too, with bwrap's (or the launcher's) own
 * message, could the sandbox not be set up: the check could not run (it still
 * fails, closed). Otherwise the command ran, and its failure is its own.
 *
 * @module
 */
import { runProcess } from "../process/run.ts";
import type { ProcessResult } from "../process/types.ts";
import type { SandboxProfile } from "../sandbox/profile.ts";

const SETUP_LINE = /^(?:bwrap|vouch): \S/;

/** The first line of `result`'s stderr when the result looks like a sandbox that never started. */
function setupLine(result: ProcessResult): string | null {
  if (
    result.sandbox !== "bwrap" || result.spawnError !== null || result.timedOut ||
    result.cancelled || result.limit !== null || (result.exitCode !== 1 && result.exitCode !== 125)
  ) return null;
  if (result.stdout.totalBytes !== 0) return null;
  const first = result.stderr.head.split("\n", 1)[0] ?? "";
  return SETUP_LINE.test(first) ? first : null;
}

/**
 * bwrap's own message when the sandbox `profile` cannot be set up in `cwd`
 * (so `result`, a run in it, never ran its command), else `null`. Costs a run
 * of `true` only for a result that looks like a setup failure.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { runProcess } from "../process/run.ts";
 * import { sandboxSetupFailure } from "./sandbox_setup.ts";
 * const r = await runProcess({ shell: "echo 'bwrap: x' >&2; exit 1", cwd: "/" });
 * equal(await sandboxSetupFailure(r, { kind: "none" }, "/"), null); // not sandboxed: it ran
 * ```
 */
export async function sandboxSetupFailure(
  result: ProcessResult,
  profile: SandboxProfile,
  cwd: string,
): Promise<string | null> {
  if (profile.kind !== "bwrap" || setupLine(result) === null) return null;
  const probe = await runProcess({ argv: ["true"], cwd, sandbox: profile, timeoutMs: 30_000 });
  if (probe.exitCode === 0 || probe.timedOut) return null;
  const line = setupLine(probe);
  return line === null ? null : line.slice(0, 300);
}

/**
 * `result` marked as never started when its sandbox could not be set up
 * ({@linkcode sandboxSetupFailure}): `spawnError` says so with bwrap's message.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { runProcess } from "../process/run.ts";
 * import { withSandboxSetupFailure } from "./sandbox_setup.ts";
 * const r = await runProcess({ argv: ["true"], cwd: "/" });
 * equal(await withSandboxSetupFailure(r, { kind: "none" }, "/"), r);
 * ```
 */
export async function withSandboxSetupFailure(
  result: ProcessResult,
  profile: SandboxProfile,
  cwd: string,
): Promise<ProcessResult> {
  const failure = await sandboxSetupFailure(result, profile, cwd);
  if (failure === null) return result;
  return {
    ...result,
    spawnError: {
      code: "spawn_failed",
      message: `the sandbox could not be set up (${failure})`,
    },
  };
}
