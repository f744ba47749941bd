/**
 * Sandbox start-up per check (issue #20): a check's full sandbox (its own
 * user namespace, capabilities dropped, /proc/sys and /dev read-only, the
 * rlimits via prlimit, a pids cgroup where the host gives one, the tree's
 * write budget measured before and after) against bare
 * `bwrap --ro-bind / / --unshare-pid --unshare-net /bin/true` spawned
 * directly. Target: at most 40 ms per check; Deno reports the ratio to the
 * bare bwrap baseline. One run, never in a loop (the machine is shared).
 */
import { runProcess } from "../adapters/process/run.ts";
import { bwrapProfile } from "../adapters/sandbox/bwrap.ts";
import { DEFAULT_CHECK_LIMITS } from "../adapters/sandbox/limits.ts";
import { probeSandbox } from "../adapters/host/sandbox_probe.ts";
import { type BudgetSpec, interleavedMs } from "./_budget.ts";

const worktree = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "vouch-bench-sbx-" }));
const probe = await probeSandbox();
const profile = probe.bwrap.available
  ? bwrapProfile({ worktree, limits: DEFAULT_CHECK_LIMITS })
  : null;
if (profile === null) console.error(`sandbox start-up bench skipped: ${probe.bwrap.reason}`);

async function bare(): Promise<void> {
  const out = await new Deno.Command(profile!.bwrapPath, {
    args: ["--ro-bind", "/", "/", "--unshare-pid", "--unshare-net", "/bin/true"],
    cwd: worktree,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error("bare bwrap failed");
}

async function check(): Promise<void> {
  const r = await runProcess({
    argv: ["/bin/true"],
    cwd: worktree,
    sandbox: profile!,
    timeoutMs: 30_000,
  });
  if (r.exitCode !== 0) throw new Error(`exited ${r.exitCode}: ${r.stderr.head}`);
}

Deno.bench({
  group: "sandbox start-up",
  name: "bare bwrap --ro-bind / / /bin/true",
  baseline: true,
  ignore: profile === null,
  fn: () => bare(),
});

Deno.bench({
  group: "sandbox start-up",
  name: "a check's sandbox /bin/true (userns, limits, cgroup, tree budget)",
  ignore: profile === null,
  fn: () => check(),
});

globalThis.addEventListener("unload", () => Deno.removeSync(worktree, { recursive: true }));

/** Budgets checked by `deno task bench:check` (docs/benchmarks.md). */
export const budgets: readonly BudgetSpec[] = [{
  id: "sandbox.startup",
  measures: "a check's full sandbox running /bin/true (runProcess with the bwrap profile: " +
    "userns, caps dropped, rlimits, pids cgroup, tree write budget), ms",
  peer: "bare bwrap --ro-bind / / --unshare-pid --unshare-net /bin/true",
  bound: "<= 40 ms",
  measure: () =>
    profile === null
      ? `bwrap unavailable: ${probe.bwrap.available ? "" : probe.bwrap.reason}`
      : interleavedMs(check, bare, { warmup: 3, rounds: 21 }),
}];
