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
 * prefix: `openai`, `acp:claude`, ...; default all five). With `--compare
 * BEFORE_ROOT AFTER_ROOT ROUNDS [AGENT...]` it runs both checkouts' CLIs
 * (`VOUCH_BENCH_CLI_ROOT`: one harness, one scripted server, the same
 * trace) interleaved (before, after; then after, before) and prints per agent
 * the medians of wall, vouch's own time (wall - the agent's - the tests',
 * all from the one run), the vouch process's CPU, the CLI start (wall and
 * CPU up to the first progress line) and the cleanup, with after/before
 * ratios.
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
import { splitOf } from "./agent_overhead_bench.ts";

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

const AGENTS: readonly AgentPath[] = [OPENAI, CLAUDE, CODEX, GEMINI, QWEN];

/** One traced run's figures, ms. */
interface Figures {
  readonly wall: number;
  /** wall - the agent's time - the tests' time (`agent_overhead_bench.ts`'s `splitOf`). */
  readonly vouch: number;
  readonly cpu: number;
  readonly cliWall: number;
  readonly cliCpu: number;
  readonly cleanup: number;
}

/** One honest run of `agent` with the CLI of `root` (null: this checkout), traced. */
async function traced(agent: AgentPath, root: string | null): Promise<{
  phases: PhaseTime[];
  figures: Figures;
  state: unknown;
  elapsedMs: unknown;
}> {
  Deno.env.set("VOUCH_BENCH_TRACE", "1");
  if (root === null) Deno.env.delete("VOUCH_BENCH_CLI_ROOT");
  else Deno.env.set("VOUCH_BENCH_CLI_ROOT", root);
  const { run } = await play(agent, [FIX_ADD, { say: "Fixed add()." }]);
  const phases = phasesOf(run.trace ?? []);
  const cli = phases[0] ?? { wallMs: NaN, cpuMs: NaN };
  const figures: Figures = {
    wall: run.ms,
    vouch: splitOf(run).vouchMs,
    cpu: (run.trace ?? []).findLast((t) => t.cpuMs !== null)?.cpuMs ?? NaN,
    cliWall: cli.wallMs,
    cliCpu: cli.cpuMs,
    cleanup: phases.filter((p) => p.phase.endsWith(" · cleanup")).reduce((n, p) => n + p.wallMs, 0),
  };
  return { phases, figures, state: run.json.state, elapsedMs: run.json.elapsedMs };
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** `--compare BEFORE AFTER ROUNDS [AGENT...]`: both checkouts' CLIs, interleaved, medians. */
async function compare(before: string, after: string, rounds: number, agents: AgentPath[]) {
  const got = new Map<string, { before: Figures[]; after: Figures[] }>();
  const loads = [load()];
  for (let r = 0; r < rounds; r++) {
    for (const agent of agents) {
      const entry = got.get(agent.label) ?? { before: [], after: [] };
      got.set(agent.label, entry);
      for (
        const which of r % 2 === 0 ? ["before", "after"] as const : ["after", "before"] as const
      ) {
        try {
          const t = await traced(agent, which === "before" ? before : after);
          if (t.state !== "verified") throw new Error(String(t.state));
          entry[which].push(t.figures);
          console.error(`${agent.label} ${which}: ${JSON.stringify(t.figures)}`);
        } catch (error) {
          console.error(`${agent.label} ${which}: failed: ${error}`);
        }
      }
    }
    loads.push(load());
  }
  const keys = ["wall", "vouch", "cpu", "cliWall", "cliCpu", "cleanup"] as const;
  console.log(`load average (1, 5, 15 min) at each round's end: ${loads.join(" | ")}`);
  console.log(`| agent | ${keys.map((k) => `${k} before | after | ratio`).join(" | ")} |`);
  console.log(`|${" --- |".repeat(1 + keys.length * 3)}`);
  for (const [label, { before: b, after: a }] of got) {
    const cells = keys.map((k) => {
      const x = median(b.map((f) => f[k]));
      const y = median(a.map((f) => f[k]));
      return `${x} | ${y} | ${(y / x).toFixed(2)}x`;
    });
    console.log(`| ${label} (${b.length}/${a.length}) | ${cells.join(" | ")} |`);
  }
}

if (import.meta.main) {
  if (Deno.args[0] === "--compare") {
    const [, before, after, n, ...names] = Deno.args;
    const picked = AGENTS.filter((a) =>
      a.missing === null && (names.length === 0 || names.some((w) => a.backend.startsWith(w)))
    );
    await compare(before!, after!, Number(n ?? "3"), picked);
  } else {
    const want = Deno.args.length > 0 ? Deno.args : AGENTS.map((a) => a.backend);
    for (const agent of AGENTS.filter((a) => want.some((w) => a.backend.startsWith(w)))) {
      if (agent.missing !== null) {
        console.log(`${agent.label}: ${agent.missing}`);
        continue;
      }
      const before = load();
      const { phases, figures, state, elapsedMs } = await traced(agent, null);
      console.log(
        `${agent.label}: ${state}, wall ${figures.wall} ms, driver ${elapsedMs} ms, vouch's own ` +
          `${figures.vouch} ms, vouch process CPU ${figures.cpu} ms; load ${before} -> ${load()}`,
      );
      for (const p of phases) {
        console.log(`  ${p.phase.padEnd(22)} wall ${String(p.wallMs).padStart(6)}  cpu ${p.cpuMs}`);
      }
    }
  }
}
