/**
 * vouch's own added time per `vouch run`, per agent path (issue #21): the
 * real CLI (`deno task vouch`'s flags) with each real agent (claude-code-acp,
 * codex-acp, gemini-cli, qwen-code, from tests/fixtures/agent_clis) and the
 * native `openai:` loop, each against its scripted model server on 127.0.0.1
 * (tests/e2e/real_cli/_scenarios.ts), doing one honest one-line fix on a
 * small repo (3 files). From the run's wall time it takes away the agent's
 * time (each round's `backend` phase up to its `validate` phase, read from
 * the plain progress lines, the agent's own start-up included) and the
 * tests' time (every check's `durationMs` in `--json`: baseline and round).
 * An ACP agent is started once, in its task's sandbox, before the baseline
 * (the driver's `setup · start` phase, up to the next line): that is the
 * agent's own start-up, counted as the agent's time. It also takes away a
 * backend's preflight outside the driver (a CLI's `--version`): the time
 * outside the driver (wall - the run's `elapsedMs`) less the CLI's own
 * start, measured in the same bench as the wall time of a run whose agent
 * is missing (`acp:/nonexistent/agent`: CLI start, flags, contract, the
 * preflight's `stat`, exit 4); the native `openai:` loop has none (its time
 * outside the driver is vouch's). What is left is vouch's: CLI
 * start, worktree, baseline and round bookkeeping, diff extraction, the
 * clean tree of the verification, cleanup. Target: <= 1.5 s per run on a
 * small repo.
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
import { runRealCli } from "../tests/e2e/real_cli/_harness.ts";
import type { BudgetSpec, Measured } from "./_budget.ts";

/** One run's split of its wall time, ms. */
export interface RunSplit {
  readonly wallMs: number;
  readonly agentMs: number;
  readonly testsMs: number;
  /** vouch's own: wall - agent - tests - preflight. */
  readonly vouchMs: number;
  /**
   * The part outside the driver (wall - the run's `elapsedMs`): the CLI's start, the backend's
   * preflight (an ACP agent started once and sent `initialize`), the output.
   */
  readonly outsideMs: number;
  /** The backend's preflight: `outsideMs` less the CLI's own start ({@linkcode cliStartMs}). */
  readonly preflightMs: number;
  /** CPU time of the run and all it waited for (`VOUCH_BENCH_CPU=1`), ms, or null. */
  readonly cpuMs: number | null;
}

/**
 * The CLI's own start as one run pays it before the backend's preflight: the wall time of a
 * `vouch run` whose agent is missing (flags, sandbox check, contract, a failed `stat`, exit 4).
 */
export async function cliStartMs(): Promise<number> {
  const run = await runRealCli({ backend: "acp:/nonexistent/agent", script: [] });
  if (run.code !== 4) throw new Error(`a missing agent ended ${run.code}: ${run.stderr}`);
  return run.ms;
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

/** One honest run of `agent`, split into vouch's, the agent's and the tests' time. */
export async function splitRun(agent: AgentPath, cliMs: number): Promise<RunSplit> {
  const { run } = await play(agent, [FIX_ADD, { say: "Fixed add()." }]);
  if (run.json.state !== "verified") {
    throw new Error(`${agent.label}: not verified (${run.json.state}): ${run.stderr.slice(-800)}`);
  }
  const checks = [
    ...(run.json.baseline as CheckJson[]),
    ...(run.json.rounds as { checks: CheckJson[] }[]).flatMap((r) => r.checks),
  ];
  const testsMs = checks.reduce((n, c) => n + (c.durationMs ?? 0), 0);
  const agentMs = agentMsOf(run.stderr);
  const outsideMs = run.ms - Number(run.json.elapsedMs);
  // The native loop has no preflight: what is outside its driver is vouch's (its CLI starts
  // twice: the second with --allow-net for the model's one address).
  const preflightMs = agent.backend.startsWith("openai:") ? 0 : Math.max(0, outsideMs - cliMs);
  return {
    wallMs: run.ms,
    agentMs,
    testsMs,
    vouchMs: run.ms - agentMs - testsMs - preflightMs,
    outsideMs,
    preflightMs,
    cpuMs: run.cpuMs,
  };
}

/** One split in words. */
function describe(s: RunSplit, cli: number): string {
  return `wall ${s.wallMs} ms = vouch ${s.vouchMs} (CLI start ${cli}) + preflight ` +
    `${s.preflightMs} + agent ${s.agentMs} + tests ${s.testsMs}`;
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
      const cli = await cliStartMs();
      console.error(`${agent.label}: ${describe(await splitRun(agent, cli), cli)}`);
    },
  });
}

/** Budgets checked by `deno task bench:check` (docs/benchmarks.md). */
export const budgets: readonly BudgetSpec[] = AGENTS.map((agent): BudgetSpec => ({
  id: `agent.overhead.${agent.backend.replace(/^acp:/, "acp-").replace(/:.*$/, "")}`,
  measures:
    `vouch's own time in one vouch run with ${agent.label} (wall - agent - tests - preflight), ms`,
  peer: "the agent's (its preflight included) and the tests' time in the same runs",
  bound: "<= 1500 ms",
  measure: async (): Promise<Measured | string> => {
    if (agent.missing !== null) return agent.missing;
    const splits: RunSplit[] = [];
    const clis: number[] = [];
    for (let i = 0; i < 3; i++) {
      const cli = await cliStartMs();
      clis.push(cli);
      splits.push(await splitRun(agent, cli));
    }
    const pick = median(splits.map((s) => s.vouchMs));
    const picked = splits.find((s) => s.vouchMs === pick)!;
    return {
      subject: pick,
      peer: picked.agentMs + picked.testsMs + picked.preflightMs,
      unit: "ms",
      samples: splits.length,
      note: splits.map((s, i) => describe(s, clis[i]!)).join("; "),
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
    const cli = await cliStartMs();
    console.log(
      JSON.stringify({ agent: agent.label, cliMs: cli, ...(await splitRun(agent, cli)) }),
    );
  }
}
