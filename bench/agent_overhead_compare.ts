/**
 * vouch's added time per agent run, two checkouts side by side in one run
 * (issue 21's before/after): `deno run -A bench/agent_overhead_compare.ts
 * BEFORE_ROOT AFTER_ROOT [ROUNDS] [AGENT...]` runs each checkout's own
 * `bench/agent_overhead_bench.ts AGENT` (one honest fix through the real CLI,
 * `VOUCH_BENCH_CPU=1`: the CPU time of the run and everything it waited for,
 * agent and checks included), interleaved (before, after; then after,
 * before) so a loaded machine weighs on both alike, and prints per agent the
 * medians of wall time, CPU time and the split (vouch's own, the agent's,
 * the tests'), with the after/before ratios. AGENT is a `--backend` prefix
 * (`openai`, `acp:claude`, ...); default: all five.
 *
 * @module
 */

/** One run's figures as `agent_overhead_bench.ts LABEL` prints them. */
interface Split {
  readonly wallMs: number;
  readonly cpuMs: number | null;
  readonly vouchMs: number;
  readonly agentMs: number;
  readonly testsMs: number;
  readonly preflightMs: number;
  readonly error?: string;
}

async function once(root: string, agent: string): Promise<Split> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      `--config=${root}/deno.json`,
      `${root}/bench/agent_overhead_bench.ts`,
      agent,
    ],
    cwd: root,
    env: { VOUCH_BENCH_CPU: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim().split("\n").at(-1) ?? "";
  try {
    return JSON.parse(text) as Split;
  } catch {
    const err = new TextDecoder().decode(out.stderr).slice(-600);
    return { error: `exit ${out.code}: ${err}` } as Split;
  }
}

const median = (xs: readonly number[]) =>
  xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const s = (ms: number) => Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : "-";
const ratio = (a: number, b: number) => Number.isFinite(a / b) ? `${(a / b).toFixed(2)}x` : "-";

if (import.meta.main) {
  const [before, after, roundsArg, ...agentsArg] = Deno.args;
  if (before === undefined || after === undefined) {
    console.error("usage: agent_overhead_compare.ts BEFORE_ROOT AFTER_ROOT [ROUNDS] [AGENT...]");
    Deno.exit(2);
  }
  const rounds = Number(roundsArg ?? "2");
  const agents = agentsArg.length > 0
    ? agentsArg
    : ["openai", "acp:claude", "acp:codex", "acp:gemini", "acp:qwen"];
  const runs = new Map<string, { before: Split[]; after: Split[] }>();
  for (let r = 0; r < rounds; r++) {
    for (const agent of agents) {
      const entry = runs.get(agent) ?? { before: [], after: [] };
      runs.set(agent, entry);
      const order = r % 2 === 0 ? ["before", "after"] as const : ["after", "before"] as const;
      for (const which of order) {
        const split = await once(which === "before" ? before : after, agent);
        console.error(`${agent} ${which}: ${JSON.stringify(split)}`);
        if (split.error === undefined) entry[which].push(split);
      }
    }
  }
  console.log(
    "| agent | wall before | wall after | ratio | CPU before | CPU after | ratio | " +
      "vouch before | vouch after | agent before | agent after | tests before | tests after |",
  );
  console.log("|" + " --- |".repeat(13));
  for (const [agent, { before: b, after: a }] of runs) {
    const m = (xs: Split[], k: keyof Split) => median(xs.map((x) => Number(x[k] ?? NaN)));
    console.log(
      `| ${agent} (${b.length}/${a.length} runs) | ${s(m(b, "wallMs"))} | ${s(m(a, "wallMs"))} | ${
        ratio(m(a, "wallMs"), m(b, "wallMs"))
      } | ${s(m(b, "cpuMs"))} | ${s(m(a, "cpuMs"))} | ${ratio(m(a, "cpuMs"), m(b, "cpuMs"))} | ${
        s(m(b, "vouchMs"))
      } | ${s(m(a, "vouchMs"))} | ${s(m(b, "agentMs"))} | ${s(m(a, "agentMs"))} | ${
        s(m(b, "testsMs"))
      } | ${s(m(a, "testsMs"))} |`,
    );
  }
}
