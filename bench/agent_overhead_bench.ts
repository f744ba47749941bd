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
 * What is left is vouch's: CLI start, the ACP preflight (the agent started
 * once and sent `initialize` before the baseline), worktree, baseline and
 * round bookkeeping, diff extraction, the clean tree of the verification,
 * cleanup. Target: <= 1.5 s per run on a small repo.
 *
 * `deno bench` prints one run per agent; `deno task bench:check --only
 * agent_overhead` judges the median of 3 runs per agent against the budget.
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
import type { BudgetSpec, Measured } from "./_budget.ts";

/** One run's split of its wall time, ms. */
export interface RunSplit {
  readonly wallMs: number;
  readonly agentMs: number;
  readonly testsMs: number;
  readonly vouchMs: number;
  /**
   * Of `vouchMs`, the part outside the driver (wall - the run's `elapsedMs`): the CLI's start,
   * the backend's preflight (an ACP agent started once and sent `initialize`), the output.
   */
  readonly outsideMs: number;
}

/** Seconds of a plain progress line (`[  2.3s] · round 1 · backend · acp`), or null. */
function at(line: string): number | null {
  const m = /^\[\s*(\d+(?:\.\d+)?)s\]/.exec(line);
  return m === null ? null : Number(m[1]) * 1000;
}

/**
 * The agent's time from the plain progress: per round, from its first `backend` line to its
 * `validate` line (each round's agent time, its start-up included).
 */
export function agentMsOf(stderr: string): number {
  let total = 0;
  const start = new Map<string, number>();
  for (const line of stderr.split("\n")) {
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
export async function splitRun(agent: AgentPath): Promise<RunSplit> {
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
  return { wallMs: run.ms, agentMs, testsMs, vouchMs: run.ms - agentMs - testsMs, outsideMs };
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
      const s = await splitRun(agent);
      console.error(
        `${agent.label}: wall ${s.wallMs} ms = vouch ${s.vouchMs} (CLI start + preflight ` +
          `${s.outsideMs}) + agent ${s.agentMs} + tests ${s.testsMs}`,
      );
    },
  });
}

/** Budgets checked by `deno task bench:check` (docs/benchmarks.md). */
export const budgets: readonly BudgetSpec[] = AGENTS.map((agent): BudgetSpec => ({
  id: `agent.overhead.${agent.backend.replace(/^acp:/, "acp-").replace(/:.*$/, "")}`,
  measures: `vouch's own time in one vouch run with ${agent.label} (wall - agent - tests), ms`,
  peer: "the agent's and the tests' time in the same runs",
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
      note: splits.map((s) =>
        `wall ${s.wallMs} = vouch ${s.vouchMs} (CLI start + preflight ${s.outsideMs}) + ` +
        `agent ${s.agentMs} + tests ${s.testsMs}`
      ).join("; "),
    };
  },
}));
