/**
 * What the egress allowlist costs an agent start (issue 21 §3): the proxy
 * helper started (confined in its own bwrap, listening on its unix sockets),
 * the agent's command (`/bin/true`) run under the in-namespace forwarder in
 * its own network namespace (started alongside the helper, gated on it), the
 * helper stopped; against the same agent
 * profile sharing the host network, no proxy (what an agent start cost
 * before). Paid once per task (the proxy lives as long as the agent), never
 * per tool call. One run, never in a loop (the machine is shared).
 */
import { runProcess } from "../adapters/process/run.ts";
import { agentProfile } from "../adapters/sandbox/agent_profile.ts";
import { startAgentEgress } from "../adapters/egress/agent_egress.ts";
import { probeSandbox } from "../adapters/host/sandbox_probe.ts";
import { type BudgetSpec, interleavedMs } from "./_budget.ts";

const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "vouch-bench-egress-" }));
Deno.mkdirSync(`${root}/wt`);
const probe = await probeSandbox();
let n = 0;
const profileIn = (scratch: string) =>
  agentProfile({
    worktree: `${root}/wt`,
    scratch,
    bwrapPath: probe.bwrap.path!,
    home: "/nonexistent-home",
  });
if (!probe.bwrap.available) console.error(`egress bench skipped: ${probe.bwrap.reason}`);

async function shared(): Promise<void> {
  const scratch = Deno.makeTempDirSync({ dir: root });
  const r = await runProcess({
    argv: ["/bin/true"],
    cwd: `${root}/wt`,
    sandbox: profileIn(scratch),
  });
  if (r.exitCode !== 0) throw new Error(`exited ${r.exitCode}: ${r.stderr.head}`);
}

async function filtered(): Promise<void> {
  const scratch = Deno.realPathSync(Deno.makeTempDirSync({ dir: root, prefix: `e${n++}-` }));
  const sandbox = profileIn(scratch);
  const egress = await startAgentEgress({
    dir: scratch,
    sandbox,
    allow: [{ host: "127.0.0.1", port: 4010 }],
  });
  try {
    const r = await runProcess({
      argv: ["/bin/true"],
      cwd: `${root}/wt`,
      sandbox: egress.confine(sandbox),
    });
    if (r.exitCode !== 0) throw new Error(`exited ${r.exitCode}: ${r.stderr.head}`);
    const failed = await egress.ready;
    if (failed !== null) throw failed;
    await egress.proxy.takeRefusals();
  } finally {
    await egress.close();
  }
}

Deno.bench({
  group: "agent start",
  name: "agent sandbox, host network shared (no proxy)",
  baseline: true,
  ignore: !probe.bwrap.available,
  // An async function: Deno.bench awaits only those (a plain arrow's promise is not awaited,
  // and the runs would overlap).
  fn: async () => await shared(),
});

Deno.bench({
  group: "agent start",
  name: "agent sandbox with egress (proxy helper + forwarder + own netns)",
  ignore: !probe.bwrap.available,
  fn: async () => await filtered(),
});

globalThis.addEventListener("unload", () => Deno.removeSync(root, { recursive: true }));

/** Budgets checked by `deno task bench:check` (docs/benchmarks.md). */
export const budgets: readonly BudgetSpec[] = [{
  id: "egress.agent_start",
  measures: "an agent start with egress: proxy helper up (own bwrap), /bin/true under the " +
    "forwarder in its own netns, helper stopped, ms",
  peer: "the same agent profile sharing the host network, no proxy",
  bound: "<= 1000 ms",
  measure: async () => {
    if (!probe.bwrap.available) return `bwrap unavailable: ${probe.bwrap.reason}`;
    return await interleavedMs(filtered, shared, { warmup: 2, rounds: 11 });
  },
}];
