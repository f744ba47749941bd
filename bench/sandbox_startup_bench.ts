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

const worktree = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "vouch-bench-sbx-" }));
const probe = await probeSandbox();
const profile = probe.bwrap.available
  ? bwrapProfile({ worktree, limits: DEFAULT_CHECK_LIMITS })
  : null;
if (profile === null) console.error(`sandbox start-up bench skipped: ${probe.bwrap.reason}`);

Deno.bench({
  group: "sandbox start-up",
  name: "bare bwrap --ro-bind / / /bin/true",
  baseline: true,
  ignore: profile === null,
  fn: async () => {
    const out = await new Deno.Command(profile!.bwrapPath, {
      args: ["--ro-bind", "/", "/", "--unshare-pid", "--unshare-net", "/bin/true"],
      cwd: worktree,
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error("bare bwrap failed");
  },
});

Deno.bench({
  group: "sandbox start-up",
  name: "a check's sandbox /bin/true (userns, limits, cgroup, tree budget)",
  ignore: profile === null,
  fn: async () => {
    const r = await runProcess({
      argv: ["/bin/true"],
      cwd: worktree,
      sandbox: profile!,
      timeoutMs: 30_000,
    });
    if (r.exitCode !== 0) throw new Error(`exited ${r.exitCode}: ${r.stderr.head}`);
  },
});

globalThis.addEventListener("unload", () => Deno.removeSync(worktree, { recursive: true }));
