/**
 * vouch's own added time per `vouch run`, per agent path (issue #21): the
 * real CLI (`deno task vouch`'s flags) with each real agent (claude-code-acp,
 * codex-acp, gemini-cli, qwen-code, from tests/fixtures/agent_clis) and the
 * native `openai:` loop, each against its scripted model server on 127.0.0.1
 * (tests/e2e/real_cli/_scenarios.ts), doing one honest one-line fix on a
 * small repo (3 files). vouch's own time is taken from that one run alone:
 * its wall time less the agent's time (each round's `backend` phase up to its
 * `validate` phase, read from the plain progress lines, plus the agent's
 * start before the baseline: the driver's `setup · start` phase, up to the
 * next line; an ACP agent is started once, in its task's sandbox, there) and
 * less the tests' time (every check's `durationMs` in `--json`: baseline and
 * round). No second CLI start is measured or subtracted: the backend's
 * preflight is a `stat` inside the run, and what is outside the driver (wall
 * - the run's `elapsedMs`: the CLI's start, flags, contract, the output) is
 * vouch's. What is left is vouch's: CLI start, worktree, baseline and round
 * bookkeeping, diff extraction, the clean tree of the verification, cleanup
 * (as `agent_phase_trace.ts` splits it). Target: <= 1.5 s per run on a small
 * repo.
 *
 * `deno bench` prints one run per agent; `deno task bench:check --only
 * agent_overhead` judges the median of 3 runs per agent against the budget;
 * `deno run -A bench/agent_overhead_bench.ts LABEL` prints one run's split
 * as JSON (with `VOUCH_BENCH_CPU=1`: the run's CPU time too), which
 * `bench/agent_overhead_compare.ts` uses to compare two checkouts.
 * An agent that is not installed is reported as such (an `error` row).
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
import type { RealCliRun } from "../tests/e2e/real_cli/_harness.ts";
import type { BudgetSpec, Measured } from "./_budget.ts";

/** One run's split of its wall time, ms, all from that one run. */
export interface RunSplit {
  readonly wallMs: number;
  readonly agentMs: number;
  readonly testsMs: number;
  /** vouch's own: wall - agent - tests. */
  readonly vouchMs: number;
  /**
   * Of vouch's own, the part outside the driver (wall - the run's `elapsedMs`): the CLI's start,
   * flags, contract, the output. Printed, not subtracted.
   */
  readonly outsideMs: number;
  /** CPU time of the run and all it waited for (`VOUCH_BENCH_CPU=1`), ms, or null. */
  readonly cpuMs: number | null;
}

/** Seconds of a plain progress line (`[  2.3s] · round 1 · backend · acp`), or null. */
function at(line: string): number | null {
  const m = /^\[\s*(\d+(?:\.\d+)?)s\]/.exec(line);
  return m === null ? null : Number(m[1]) * 1000;
}

/**
 * The agent's time from the plain progress: per round, from its first `backend` line to its
 * `validate` line (each round's agent time, its start-up included), plus the agent's start
 * before the baseline (`setup · start`, up to the next line).
 */
export function agentMsOf(stderr: string): number {
  let total = 0;
  const start = new Map<string, number>();
  let starting: number | null = null;
  for (const line of stderr.split("\n")) {
    const t0 = at(line);
    if (t0 !== null && starting !== null && !/ · setup · start\b/.test(line)) {
      total += t0 - starting;
      starting = null;
    }
    if (t0 !== null && starting === null && / · setup · start\b/.test(line)) starting = t0;
    const round = / · round (\d+) · (backend|validate)\b/.exec(line);
    const t = at(line);
    if (round === null || t === null) continue;
    const [, n, phase] = round;
    if (phase === "backend" && !start.has(n!)) start.set(n!, t);
    if (phase === "validate" && start.has(n!)) {
      total += t - start.get(n!)!;
      start.set(n!, Number.POSITIVE_INFINITY);
    }
  }
  return total;
}

interface CheckJson {
  durationMs?: number;
}

/**
 * Splits one `vouch run` (its wall time, `--json` document and plain progress on stderr) into
 * vouch's own, the agent's and the tests' time: vouch's is wall - agent ({@linkcode agentMsOf})
 * - tests (every check's `durationMs`, baseline and rounds), nothing measured apart.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { splitOf } from "./agent_overhead_bench.ts";
 * deepEqual(
 *   splitOf({
 *     ms: 3000,
 *     cpuMs: null,
 *     json: {
 *       elapsedMs: 2400,
 *       baseline: [{ durationMs: 300 }],
 *       rounds: [{ checks: [{ durationMs: 200 }] }],
 *     },
 *     stderr: [
 *       "[   0.0s] · setup · worktree",
 *       "[   0.1s] · setup · start · acp",
 *       "[   0.6s] · setup · baseline",
 *       "[   1.0s] · round 1 · backend · acp",
 *       "[   1.8s] · round 1 · validate",
 *     ].join("\n"),
 *   }),
 *   { wallMs: 3000, agentMs: 1300, testsMs: 500, vouchMs: 1200, outsideMs: 600, cpuMs: null },
 * );
 * ```
 */
export function splitOf(
  run: Pick<RealCliRun, "ms" | "cpuMs" | "stderr"> & { readonly json: Record<string, unknown> },
): RunSplit {
  const checks = [
    ...((run.json.baseline ?? []) as CheckJson[]),
    ...((run.json.rounds ?? []) as { checks: CheckJson[] }[]).flatMap((r) => r.checks),
  ];
  const testsMs = checks.reduce((n, c) => n + (c.durationMs ?? 0), 0);
  const agentMs = agentMsOf(run.stderr);
  return {
    wallMs: run.ms,
    agentMs,
    testsMs,
    vouchMs: run.ms - agentMs - testsMs,
    outsideMs: run.ms - Number(run.json.elapsedMs),
    cpuMs: run.cpuMs,
  };
}

/** One honest run of `agent`, split into vouch's, the agent's and the tests' time. */
export async function splitRun(agent: AgentPath): Promise<RunSplit> {
  const { run } = await play(agent, [FIX_ADD, { say: "Fixed add()." }]);
  if (run.json.state !== "verified") {
    throw new Error(`${agent.label}: not verified (${run.json.state}): ${run.stderr.slice(-800)}`);
  }
  return splitOf(run);
}

/** One split in words. */
function describe(s: RunSplit): string {
  return `wall ${s.wallMs} ms = vouch ${s.vouchMs} (outside the driver ${s.outsideMs}) + ` +
    `agent ${s.agentMs} + tests ${s.testsMs}`;
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const AGENTS: readonly AgentPath[] = [OPENAI, CLAUDE, CODEX, GEMINI, QWEN];

for (const agent of AGENTS) {
  Deno.bench({
    group: "agent_overhead",
    name: `vouch run, ${agent.label}: one honest fix (wall; vouch's share printed)`,
    ignore: agent.missing !== null,
    n: 1,
    warmup: 0,
    fn: async () => {
      console.error(`${agent.label}: ${describe(await splitRun(agent))}`);
    },
  });
}

/** Budgets checked by `deno task bench:check` (docs/benchmarks.md). */
export const budgets: readonly BudgetSpec[] = AGENTS.map((agent): BudgetSpec => ({
  id: `agent.overhead.${agent.backend.replace(/^acp:/, "acp-").replace(/:.*$/, "")}`,
  measures:
    `vouch's own time in one vouch run with ${agent.label} (wall - agent - tests, one run), ms`,
  peer: "the agent's (its start included) and the tests' time in the same runs",
  bound: "<= 1500 ms",
  measure: async (): Promise<Measured | string> => {
    if (agent.missing !== null) return agent.missing;
    const splits: RunSplit[] = [];
    for (let i = 0; i < 3; i++) splits.push(await splitRun(agent));
    const pick = median(splits.map((s) => s.vouchMs));
    const picked = splits.find((s) => s.vouchMs === pick)!;
    return {
      subject: pick,
      peer: picked.agentMs + picked.testsMs,
      unit: "ms",
      samples: splits.length,
      note: splits.map(describe).join("; "),
    };
  },
}));

/** `deno run -A bench/agent_overhead_bench.ts LABEL`: one run of that agent path, as JSON. */
if (import.meta.main) {
  const want = Deno.args[0] ?? "";
  const agent = AGENTS.find((a) => a.label === want || a.backend.startsWith(want));
  if (agent === undefined || agent.missing !== null) {
    console.log(JSON.stringify({ error: agent?.missing ?? `no agent ${Deno.args[0]}` }));
  } else {
    console.log(JSON.stringify({ agent: agent.label, ...(await splitRun(agent)) }));
  }
}
