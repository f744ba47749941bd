/**
 * Runner overhead per check against running the same command bare, with and
 * without bwrap (the allowlisted root, limits via prlimit and the watchdog), and an
 * unsandboxed check with its limits. Targets: < 15 ms added without sandbox, < 40 ms with
 * bwrap, and the confined bwrap start within 15 ms of the old `--ro-bind / /` profile.
 * Deno reports each case relative to the group's baseline (the bare spawn).
 * The bench functions must be `async` functions: Deno times a plain function
 * returning a promise as synchronous.
 */
import { runProcess } from "../adapters/process/run.ts";
import { bwrapProfile } from "../adapters/sandbox/bwrap.ts";
import { DEFAULT_CHECK_LIMITS } from "../adapters/sandbox/limits.ts";
import { probeSandbox } from "../adapters/host/sandbox_probe.ts";

const worktree = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "vouch-bench-" }));
const probe = await probeSandbox();
const bwrap = probe.bwrap.available ? bwrapProfile({ worktree }) : null;
if (bwrap === null) console.error(`bwrap cases skipped: ${probe.bwrap.reason}`);
const deno = Deno.execPath();

async function bare(cmd: string, args: string[]): Promise<void> {
  const out = await new Deno.Command(cmd, { args, cwd: worktree, stdout: "piped", stderr: "piped" })
    .output();
  if (!out.success) throw new Error(`${cmd} failed`);
}

/** An unsandboxed check: the same limits (prlimit, watchdog) a check gets under `--sandbox none`. */
const noneCheck = { kind: "none" as const, limits: DEFAULT_CHECK_LIMITS };

async function viaRunner(argv: string[], sandboxed: boolean | "check"): Promise<void> {
  const r = await runProcess({
    argv,
    cwd: worktree,
    timeoutMs: 30_000,
    ...(sandboxed === true && bwrap !== null ? { sandbox: bwrap } : {}),
    ...(sandboxed === "check" ? { sandbox: noneCheck } : {}),
  });
  if (r.exitCode !== 0) throw new Error(`${argv[0]} exited ${r.exitCode}: ${r.stderr.head}`);
}

Deno.bench({
  group: "true",
  name: "bare /bin/true",
  baseline: true,
  fn: async () => await bare("/bin/true", []),
});
Deno.bench({
  group: "true",
  name: "runProcess /bin/true (none)",
  fn: async () => await viaRunner(["/bin/true"], false),
});
Deno.bench({
  group: "true",
  name: "runProcess /bin/true (none, check limits)",
  fn: async () => await viaRunner(["/bin/true"], "check"),
});
Deno.bench({
  group: "true",
  name: "runProcess /bin/true (bwrap)",
  ignore: bwrap === null,
  fn: async () => await viaRunner(["/bin/true"], true),
});

Deno.bench({
  group: "deno --version",
  name: "bare deno --version",
  baseline: true,
  fn: async () => await bare(deno, ["--version"]),
});
Deno.bench({
  group: "deno --version",
  name: "runProcess deno --version (none)",
  fn: async () => await viaRunner([deno, "--version"], false),
});
Deno.bench({
  group: "deno --version",
  name: "runProcess deno --version (bwrap)",
  ignore: bwrap === null,
  fn: async () => await viaRunner([deno, "--version"], true),
});
