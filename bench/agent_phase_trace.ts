/**
 * Where vouch's own time goes in one `vouch run` per agent path (issue #21):
 * the run of `agent_overhead_bench.ts` (one honest fix through the real CLI
 * against its scripted model server) with `VOUCH_BENCH_TRACE=1`, each
 * progress line stamped with the wall time since the CLI was started and the
 * vouch process's own CPU time so far (`/proc/PID/stat`: the agent, the
 * checks, git and bwrap are its children, not counted). Prints per phase
 * (`CLI start` = before the first progress line; `exit` = after the last)
 * the wall and CPU ms, and the load average before and after.
 * `deno run -A bench/agent_phase_trace.ts [AGENT...]` (AGENT a `--backend`
 * prefix: `openai`, `acp:claude`, ...; default all five).
 *
 * @module
 */
import {
  type AgentPath,
  CLAUDE,
  CODEX,
  FIX_ADD,
  GEMINI,
  OPENAI,
  play,
  QWEN,
} from "../tests/e2e/real_cli/_scenarios.ts";
import type { TracedLine } from "../tests/e2e/real_cli/_harness.ts";

/** One phase of a traced run: its name, wall and CPU ms. */
export interface PhaseTime {
  readonly phase: string;
  readonly wallMs: number;
  readonly cpuMs: number;
}

/**
 * Splits a traced run into phases: a progress line `[ 1.2s] · round 1 · verify · …` opens
 * phase `round 1 · verify` (a later line of the same phase continues it).
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { phasesOf } from "./agent_phase_trace.ts";
 * deepEqual(phasesOf([
 *   { atMs: 900, cpuMs: 600, line: "[   0.0s] · setup · worktree" },
 *   { atMs: 1000, cpuMs: 650, line: "[   0.1s] · setup · start · acp" },
 *   { atMs: 1500, cpuMs: 700, line: "(stderr closed)" },
 * ]), [
 *   { phase: "CLI start", wallMs: 900, cpuMs: 600 },
 *   { phase: "setup · worktree", wallMs: 100, cpuMs: 50 },
 *   { phase: "setup · start", wallMs: 500, cpuMs: 50 },
 * ]);
 * ```
 */
export function phasesOf(trace: readonly TracedLine[]): PhaseTime[] {
  const out: PhaseTime[] = [];
  let phase = "CLI start";
  let since = { atMs: 0, cpuMs: 0 };
  let last = since;
  for (const t of trace) {
    const m = /^\[\s*[\d.]+s\] · (setup|round \d+) · ([a-z_]+)/.exec(t.line);
    const name = m !== null ? `${m[1]} · ${m[2]}` : t.line === "(stderr closed)" ? "exit" : null;
    const now = { atMs: t.atMs, cpuMs: t.cpuMs ?? last.cpuMs };
    last = now;
    if (name === null || name === phase) continue;
    out.push({ phase, wallMs: now.atMs - since.atMs, cpuMs: now.cpuMs - since.cpuMs });
    phase = name;
    since = now;
  }
  return out.filter((p) => p.phase !== "exit");
}

const load = () => Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");

if (import.meta.main) {
  Deno.env.set("VOUCH_BENCH_TRACE", "1");
  const all: readonly AgentPath[] = [OPENAI, CLAUDE, CODEX, GEMINI, QWEN];
  const want = Deno.args.length > 0 ? Deno.args : all.map((a) => a.backend);
  for (const agent of all.filter((a) => want.some((w) => a.backend.startsWith(w)))) {
    if (agent.missing !== null) {
      console.log(`${agent.label}: ${agent.missing}`);
      continue;
    }
    const before = load();
    const { run } = await play(agent, [FIX_ADD, { say: "Fixed add()." }]);
    const phases = phasesOf(run.trace ?? []);
    console.log(
      `${agent.label}: ${run.json.state}, wall ${run.ms} ms, driver ${run.json.elapsedMs} ms, ` +
        `vouch process CPU ${
          (run.trace ?? []).findLast((t) => t.cpuMs !== null)?.cpuMs ?? "?"
        } ms; load ${before} -> ${load()}`,
    );
    for (const p of phases) {
      console.log(`  ${p.phase.padEnd(22)} wall ${String(p.wallMs).padStart(6)}  cpu ${p.cpuMs}`);
    }
  }
}
