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
  /** CPU of the whole sample's cgroup (cpuacct), ms, or null. */
  readonly groupCpuMs: number | null;
  readonly vouchMs: number;
  readonly agentMs: number;
  readonly testsMs: number;
  readonly error?: string;
}

/** A fresh cpuacct cgroup (v1) to run one sample in, or null where there is none to make. */
function cpuGroup(): string | null {
  const dir = `/sys/fs/cgroup/cpuacct/vouch-overhead-${Deno.pid}-${
    crypto.randomUUID().slice(0, 8)
  }`;
  try {
    Deno.mkdirSync(dir);
    return dir;
  } catch {
    return null;
  }
}

async function once(root: string, agent: string): Promise<Split> {
  // The whole sample (bench process, scripted server, vouch, its agents and checks, even the
  // processes killed with their sandbox) in one cpuacct cgroup: `groupCpuMs`.
  const group = cpuGroup();
  const argv = [
    Deno.execPath(),
    "run",
    "-A",
    `--config=${root}/deno.json`,
    `${root}/bench/agent_overhead_bench.ts`,
    agent,
  ];
  const join = group === null ? 'exec "$@"' : `echo $$ > ${group}/cgroup.procs && exec "$@"`;
  const out = await new Deno.Command("/bin/sh", {
    args: ["-c", join, "sh", ...argv],
    cwd: root,
    env: { VOUCH_BENCH_CPU: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  let groupCpuMs: number | null = null;
  if (group !== null) {
    try {
      groupCpuMs = Math.round(Number(Deno.readTextFileSync(`${group}/cpuacct.usage`)) / 1e6);
      Deno.removeSync(group);
    } catch { /* left for the next boot */ }
  }
  const text = new TextDecoder().decode(out.stdout).trim().split("\n").at(-1) ?? "";
  try {
    return { ...JSON.parse(text), groupCpuMs } as Split;
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
  const cols = ["wallMs", "cpuMs", "groupCpuMs", "vouchMs", "agentMs", "testsMs"] as const;
  console.log(
    "| agent | wall before | after | ratio | CPU (vouch run) before | after | ratio | " +
      "CPU (whole sample, cgroup) before | after | ratio | vouch before | after | ratio | " +
      "agent before | after | tests before | after |",
  );
  console.log("|" + " --- |".repeat(18));
  for (const [agent, { before: b, after: a }] of runs) {
    const m = (xs: Split[], k: keyof Split) => median(xs.map((x) => Number(x[k] ?? NaN)));
    const cells = cols.flatMap((k) => {
      const pair = [s(m(b, k)), s(m(a, k))];
      return k === "agentMs" || k === "testsMs" ? pair : [...pair, ratio(m(a, k), m(b, k))];
    });
    console.log(`| ${agent} (${b.length}/${a.length} runs) | ${cells.join(" | ")} |`);
  }
}
