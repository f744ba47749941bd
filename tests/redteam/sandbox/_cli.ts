/**
 * Shared pieces of the sandbox red-team tests (issue #20): run a contract check
 * through the real CLI with its own permission flags (`deno task vouch`, never
 * -A), and run the same bwrap command line as a normal user.
 */
import { createRepo, git } from "../../golden/fixture_repos.ts";
import { type CliRun, runVouch } from "../../golden/cli_harness.ts";
import { probeSandbox } from "../../../adapters/host/sandbox_probe.ts";

export const probe = await probeSandbox();
/** Why bwrap tests are skipped here (printed), or null. */
export const skipReason = probe.bwrap.available ? null : `bwrap unavailable: ${probe.bwrap.reason}`;
if (skipReason !== null) console.log(`SKIP sandbox red-team (bwrap): ${skipReason}`);

/** Whether `/usr/bin/python3` exists (the memory attacks allocate with it); printed when not. */
export const hasPython = (() => {
  try {
    return Deno.statSync("/usr/bin/python3").isFile;
  } catch {
    console.log("SKIP sandbox red-team memory attacks: /usr/bin/python3 not installed");
    return false;
  }
})();

/** Whether this test process runs as root (CI does). */
export const isRoot = Deno.uid() === 0;

/** A check of a contract run by `vouch verify`. */
export interface AttackCheck {
  readonly run: string;
  readonly timeout?: number;
  /** The check's name in the contract. @default "attack" */
  readonly name?: string;
  /** A command vouch is started under (`[bash, -c, ...]` holding fds open, say). */
  readonly wrap?: readonly string[];
}

/**
 * Runs `vouch verify --contract` (the CLI's own flags) on a one-line patch in
 * a fresh repository whose contract has the one check `check` and
 * `sandbox.limits` = `limits`; `files` are committed first (scripts the check
 * runs). Returns the CLI run (`--json`).
 */
export async function verifyCheck(
  check: AttackCheck,
  limits: Record<string, number> = {},
  files: Record<string, string> = {},
): Promise<CliRun> {
  const repo = await createRepo({ "a.txt": "a\n", ...files }, "true", {
    prefix: "vouch-rt-sbx-",
  });
  const state = await Deno.makeTempDir({ prefix: "vouch-rt-sbx-state-" });
  try {
    await Deno.writeTextFile(`${repo.dir}/b.txt`, "b\n");
    await git(repo.dir, "add", "b.txt");
    const patch = await git(repo.dir, "diff", "--cached", "--binary");
    await git(repo.dir, "reset", "-q", "--hard");
    await Deno.writeTextFile(`${repo.dir}/../fix.patch`, patch);
    const contract = {
      checks: [{ name: check.name ?? "attack", run: check.run, timeout: check.timeout ?? 60 }],
      sandbox: { limits },
    };
    await Deno.writeTextFile(`${repo.dir}/../contract.json`, JSON.stringify(contract));
    return await runVouch(
      repo,
      ["verify", "--patch", "../fix.patch", "--contract", "../contract.json", "--json"],
      state,
      "deno",
      {},
      check.wrap ?? [],
    );
  } finally {
    await repo.cleanup();
    await Deno.remove(state, { recursive: true }).catch(() => {});
  }
}

/** The reason codes of the one check of a `vouch verify --json` run. */
export function checkReasons(run: CliRun): string[] {
  const checks = (run.json?.["checks"] ?? []) as { outputTail?: string }[];
  const tail = checks.map((c) => c.outputTail ?? "").join("\n");
  // The verdict lists each reason as a `code: message` line after the output.
  return [...tail.matchAll(/^([a-z_]+): /gm)].map((m) => m[1]!);
}

/**
 * The profile as a normal user's vouch would build it: no user map (bwrap maps
 * the user to itself), so its command line can be re-run as nobody.
 */
export function unmapped<P extends { readonly userMap?: unknown }>(profile: P): P {
  const { userMap: _dropped, ...plain } = profile;
  return plain as P;
}

/** `setpriv` as nobody, or null when this process cannot switch users (not root). */
export function asNobody(argv: readonly string[]): string[] | null {
  if (!isRoot) return null;
  return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", ...argv];
}

/** Runs `argv` and returns its exit code and output. */
export async function run(
  argv: readonly string[],
  cwd: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(argv[0]!, {
    args: argv.slice(1),
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const d = new TextDecoder();
  return { code: out.code, stdout: d.decode(out.stdout), stderr: d.decode(out.stderr) };
}

/**
 * Runs the bwrap command line vouch spawned (`spawnedArgv`, from bwrap on:
 * without vouch's setsid and cgroup launchers) again as nobody, so bwrap makes
 * the user namespace itself, unprivileged. Mounts of root's own dirs (a deno or
 * a toolchain under /root) that nobody cannot read are dropped.
 */
export async function rerunAsNobody(
  spawnedArgv: readonly string[],
  cwd: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const spawned = spawnedArgv.slice(spawnedArgv.indexOf(probe.bwrap.path!));
  const argv: string[] = [];
  for (let i = 0; i < spawned.length; i++) {
    const a = spawned[i]!;
    if (/^--(ro-)?bind$/.test(a) && spawned[i + 1]!.startsWith("/root/")) {
      i += 2;
      continue;
    }
    argv.push(a);
  }
  return await run(asNobody(argv)!, cwd);
}
