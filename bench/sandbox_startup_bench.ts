/**
 * Sandbox start-up per check (issue #20): a check's full sandbox (its own
 * user namespace, capabilities dropped, /proc/sys and /dev read-only, the
 * rlimits (prlimit inside, or the launcher's ulimit as root), a pids cgroup
 * where the host gives one, the tree's write budget measured before and
 * after) against bare
 * `bwrap --ro-bind / / --unshare-pid --unshare-net /bin/true` spawned
 * directly. Target: at most 40 ms per check; Deno reports the ratio to the
 * bare bwrap baseline. One run, never in a loop (the machine is shared).
 *
 * Wall time on a loaded machine mostly measures the scheduler, so the budget
 * row also notes the CPU time of the children (bwrap, its init, the command,
 * the launcher shell: what the kernel charges to this process's reaped
 * children), and `sandbox.processes`
 * counts what a check starts, traced with strace: process creations (fork,
 * vfork, clone without CLONE_THREAD) and execs, which load does not change.
 */
import { runProcess } from "../adapters/process/run.ts";
import { bwrapProfile } from "../adapters/sandbox/bwrap.ts";
import { DEFAULT_CHECK_LIMITS } from "../adapters/sandbox/limits.ts";
import { probeSandbox } from "../adapters/host/sandbox_probe.ts";
import { type BudgetSpec, interleavedMs, type Measured } from "./_budget.ts";

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

async function checkIn(sandbox: NonNullable<typeof profile>, cwd: string): Promise<void> {
  const r = await runProcess({ argv: ["/bin/true"], cwd, sandbox, timeoutMs: 30_000 });
  if (r.exitCode !== 0) throw new Error(`exited ${r.exitCode}: ${r.stderr.head}`);
}

const check = () => checkIn(profile!, worktree);

// As root: the same profile without the user map, on a tree of its own (the mapped checks hand
// theirs to uid 65534): what root's checks cost before the map.
const plainTree = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "vouch-bench-sbx-plain-" }));
const plainProfile = profile === null ? null : (() => {
  const { userMap: _m, ...plain } = bwrapProfile({
    worktree: plainTree,
    limits: DEFAULT_CHECK_LIMITS,
  });
  return plain;
})();
const unmappedCheck = () => checkIn(plainProfile!, plainTree);

Deno.bench({
  group: "sandbox start-up",
  name: "bare bwrap --ro-bind / / /bin/true",
  baseline: true,
  ignore: profile === null,
  // An async function: Deno.bench awaits only those (a plain arrow's promise is not awaited,
  // and the runs would overlap).
  fn: async () => await bare(),
});

Deno.bench({
  group: "sandbox start-up",
  name: "a check's sandbox /bin/true (userns, limits, cgroup, tree budget)",
  ignore: profile === null,
  fn: async () => await check(),
});

globalThis.addEventListener("unload", () => {
  Deno.removeSync(worktree, { recursive: true });
  Deno.removeSync(plainTree, { recursive: true });
});

/** User + system CPU ms of this process's reaped children (`/proc/self/stat`, clock ticks). */
function childrenCpuMs(): number {
  const f = Deno.readTextFileSync("/proc/self/stat").split(") ")[1]!.split(" ");
  return (Number(f[13]) + Number(f[14])) * 10;
}

/** Children's CPU per call of `fn` over `n` calls, ms. */
async function cpuPerCall(fn: () => Promise<void>, n: number): Promise<number> {
  const c0 = childrenCpuMs();
  for (let i = 0; i < n; i++) await fn();
  return (childrenCpuMs() - c0) / n;
}

const MARK = "vouch-bench-mark";

/**
 * Process creations and execs of one check and of one bare bwrap, traced: a
 * child Deno runs two untimed checks (the cgroup and the after-child shell
 * exist after them), then one check and one bare bwrap between marker execs.
 */
async function processStarts(): Promise<Measured | string> {
  const strace = ["/usr/bin/strace", "/bin/strace"].find((p) => {
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  });
  if (strace === undefined) return "strace not installed";
  const dir = Deno.makeTempDirSync({ prefix: "vouch-bench-trace-" });
  const here = (p: string) => new URL(p, import.meta.url).href;
  Deno.writeTextFileSync(
    `${dir}/one.ts`,
    `import { runProcess } from "${here("../adapters/process/run.ts")}";
import { bwrapProfile } from "${here("../adapters/sandbox/bwrap.ts")}";
const wt = Deno.realPathSync(Deno.makeTempDirSync());
const sandbox = bwrapProfile({ worktree: wt });
const check = async () => {
  const r = await runProcess({ argv: ["/bin/true"], cwd: wt, sandbox, timeoutMs: 30000 });
  if (r.exitCode !== 0) throw new Error(r.stderr.head);
};
const mark = (m) => new Deno.Command("/bin/true", { args: ["${MARK}", m] }).outputSync();
await check();
await check();
mark("check");
await check();
mark("bare");
await new Deno.Command(sandbox.bwrapPath, {
  args: ["--ro-bind", "/", "/", "--unshare-pid", "--unshare-net", "/bin/true"],
}).output();
mark("end");
Deno.removeSync(wt, { recursive: true });`,
  );
  const out = await new Deno.Command(strace, {
    args: [
      "-f",
      "-qq",
      "-e",
      "trace=execve,clone,clone3,fork,vfork",
      "-o",
      `${dir}/trace`,
      Deno.execPath(),
      "run",
      "-A",
      "--no-lock",
      `--config=${new URL("../deno.json", import.meta.url).pathname}`,
      `${dir}/one.ts`,
    ],
    stdout: "null",
    stderr: "piped",
  }).output();
  const trace = out.success ? Deno.readTextFileSync(`${dir}/trace`) : "";
  Deno.removeSync(dir, { recursive: true });
  if (!out.success) {
    return `traced run failed: ${new TextDecoder().decode(out.stderr).slice(0, 200)}`;
  }
  const sections = new Map<string, string[]>();
  let current: string | null = null;
  for (const line of trace.split("\n")) {
    const m = new RegExp(`execve\\("/bin/true", \\["/bin/true", "${MARK}", "(\\w+)"`).exec(line);
    if (m !== null) {
      current = m[1]!;
      continue;
    }
    if (current !== null) sections.set(current, [...(sections.get(current) ?? []), line]);
  }
  // A mark's own spawn (a clone3 of Deno's) precedes it: it is in the previous section.
  const count = (name: string) => {
    const lines = sections.get(name) ?? [];
    const starts =
      lines.filter((l) =>
        /\b(clone3?|v?fork)\(/.test(l) && !/CLONE_THREAD/.test(l) && !/resumed>/.test(l)
      ).length - 1;
    const execs = lines.filter((l) => /execve\(/.test(l) && !/ENOENT|resumed>/.test(l));
    return { starts, execs: execs.map((l) => /execve\("([^"]+)"/.exec(l)?.[1] ?? "?") };
  };
  const check = count("check");
  const bare = count("bare");
  return {
    subject: check.starts,
    peer: bare.starts,
    unit: "processes",
    samples: 1,
    note: `execs per check ${check.execs.length} (${
      check.execs.map((e) => e.split("/").at(-1)).join(", ")
    }) vs bare ${bare.execs.length}`,
  };
}

/** Budgets checked by `deno task bench:check` (docs/benchmarks.md). */
export const budgets: readonly BudgetSpec[] = [{
  id: "sandbox.startup",
  measures: "a check's full sandbox running /bin/true (runProcess with the bwrap profile: " +
    "userns, caps dropped, rlimits, pids cgroup, tree write budget), ms",
  peer: "bare bwrap --ro-bind / / --unshare-pid --unshare-net /bin/true",
  bound: "<= 40 ms",
  measure: async () => {
    if (profile === null) {
      return `bwrap unavailable: ${probe.bwrap.available ? "" : probe.bwrap.reason}`;
    }
    const timed = await interleavedMs(check, bare, { warmup: 3, rounds: 21 });
    const cpu = [await cpuPerCall(check, 20), await cpuPerCall(bare, 20)];
    const mapped = profile.userMap !== undefined
      ? await interleavedMs(unmappedCheck, bare, { warmup: 3, rounds: 21 })
      : null;
    return {
      ...timed,
      note: `children's CPU per call ${cpu[0]!.toFixed(1)} ms vs ${cpu[1]!.toFixed(1)} ms ` +
        `(the long-lived after-child shell not counted); ${timed.note ?? ""}` +
        (mapped === null
          ? ""
          : `; as root without the user map ${mapped.subject.toFixed(1)} ms vs bare ` +
            `${mapped.peer.toFixed(1)} ms`),
    };
  },
}, {
  id: "sandbox.processes",
  measures: "processes a check's sandbox starts (strace: fork, vfork, clone without " +
    "CLONE_THREAD) for /bin/true: the launcher (one shell: cgroup, rlimits, user map; it execs " +
    "bwrap), its mapper (a fork), bwrap's init, the command (setpriv execs it); the hand-over " +
    "and the budget's listing are walks of vouch's own (a find each past 128 entries)",
  peer: "the same count for bare bwrap --ro-bind / / --unshare-pid --unshare-net /bin/true",
  bound: "<= 4 processes",
  measure: () =>
    profile === null
      ? `bwrap unavailable: ${probe.bwrap.available ? "" : probe.bwrap.reason}`
      : processStarts(),
}];
