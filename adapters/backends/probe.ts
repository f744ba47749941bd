/**
 * Detecting which agent CLIs are installed, for `vouch doctor` and for a
 * clear error before a run starts.
 *
 * @module
 */
import { runProcess } from "../process/run.ts";
import type { SandboxProfile } from "../sandbox/profile.ts";
import { maskSecrets } from "./transcript.ts";

/**
 * What a CLI that failed said last on stderr, as `: <line>` (masked, at most 300 characters), or
 * "" when it said nothing: the cause a failed `--version` or a round with no stream names
 * ("prlimit: failed to execute claude: No such file or directory").
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { stderrCause } from "./probe.ts";
 * equal(stderrCause("warming up\nError: no config\n\n"), ": Error: no config");
 * equal(stderrCause("  \n"), "");
 * ```
 */
export function stderrCause(
  stderr: string,
  mask: (text: string) => { text: string } = maskSecrets,
): string {
  const last = stderr.trim().split("\n").map((l) => l.trim()).filter((l) => l !== "").at(-1);
  return last === undefined ? "" : `: ${mask(last.slice(0, 300)).text}`;
}

/** Whether one agent CLI can be started, and its version line. */
export interface AgentCliProbe {
  /** `codex` or `claude`. */
  readonly name: string;
  /** The executable probed. */
  readonly executable: string;
  /** Whether its `--version` ran and exited 0. */
  readonly available: boolean;
  /** First line of `--version` output when available. */
  readonly version: string | null;
  /** Why it is not available. */
  readonly reason: string | null;
}

/**
 * Probes an agent CLI with `<executable> --version` (5 s timeout, no secrets, private HOME),
 * inside `sandbox` when given (the agent's own: a `--version` runs the CLI's code like a run
 * does), in its first writable dir.
 *
 * @example
 * ```ts
 * import { probeAgentCli } from "./probe.ts";
 * const p = await probeAgentCli("codex", "/nonexistent/codex");
 * if (p.available || p.reason === null) throw new Error();
 * ```
 */
export async function probeAgentCli(
  name: string,
  executable: string = name,
  sandbox?: SandboxProfile,
): Promise<AgentCliProbe> {
  const cwd = sandbox?.kind === "bwrap" ? sandbox.writable[0] ?? "/" : "/";
  const r = await runProcess({
    argv: [executable, "--version"],
    cwd,
    ...(sandbox !== undefined ? { sandbox } : {}),
    timeoutMs: 5000,
    graceMs: 500,
    maxCaptureBytes: 4096,
  });
  if (r.spawnError !== null) {
    return { name, executable, available: false, version: null, reason: r.spawnError.message };
  }
  if (r.timedOut || r.exitCode !== 0) {
    return {
      name,
      executable,
      available: false,
      version: null,
      reason: r.timedOut
        ? "`--version` timed out"
        : `\`--version\` exited ${r.exitCode}${stderrCause(r.stderr.head + r.stderr.tail)}`,
    };
  }
  const version = (r.stdout.head.trim().split("\n")[0] ?? "").slice(0, 200);
  return { name, executable, available: true, version, reason: null };
}

/**
 * Probes both agent CLIs (`codex`, `claude`) on PATH.
 *
 * @example
 * ```ts
 * import { probeAgentClis } from "./probe.ts";
 * const all = await probeAgentClis();
 * if (all.length !== 2) throw new Error();
 * ```
 */
export function probeAgentClis(): Promise<AgentCliProbe[]> {
  return Promise.all([probeAgentCli("codex"), probeAgentCli("claude")]);
}
