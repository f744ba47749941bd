/**
 * Red team, issue #20 §3, as a normal user: the command line vouch spawns for
 * a check with limits, started by nobody (`setpriv --reuid=65534`), so bwrap
 * makes the user namespace unprivileged and no cgroup is involved: the
 * rlimits alone (RLIMIT_NPROC counted in the sandbox's own namespace,
 * RLIMIT_DATA, RLIMIT_FSIZE) and the capped tmpfs stop each attack, and vouch
 * recognises which limit did (`exitLimit`). Root runs the same attacks
 * through the CLI in limits_cli_test.ts.
 */
import assert from "node:assert/strict";
import { runProcess } from "../../../adapters/process/run.ts";
import { exitLimit } from "../../../adapters/process/_kernel_limits.ts";
import { bwrapProfile } from "../../../adapters/sandbox/bwrap.ts";
import type { SandboxLimits } from "../../../adapters/sandbox/limits.ts";
import { hasPython, isRoot, probe, rerunAsNobody, skipReason, unmapped } from "./_cli.ts";

const ignore = skipReason !== null || !isRoot;
if (!isRoot) console.log("SKIP limits as nobody: needs root to switch to nobody (setpriv)");
const limits: SandboxLimits = { memoryMb: 128, processes: 256, fileSizeMb: 100, tmpMb: 64 };

async function asNobody(shell: string, limits: SandboxLimits) {
  const tree = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-rt-user-" }));
  try {
    await Deno.chmod(tree, 0o777);
    const profile = unmapped(bwrapProfile({
      worktree: tree,
      bwrapPath: probe.bwrap.path!,
      home: "/nonexistent",
      path: "/usr/bin:/bin",
      limits,
    }));
    // Only to get the command line: `true` in place of the attack, then the attack as nobody.
    const r = await runProcess({ shell: "true", cwd: tree, sandbox: profile, timeoutMs: 30_000 });
    assert.equal(r.exitCode, 0, r.stderr.head);
    const argv = [...r.spawnedArgv];
    argv[argv.length - 1] = shell;
    const u = await rerunAsNobody(argv, tree);
    return { ...u, limit: exitLimit(u.code, null, { head: u.stderr, tail: "" }, profile) };
  } finally {
    await Deno.remove(tree, { recursive: true });
  }
}

const cases: [string, string, string, SandboxLimits?][] = [
  [
    "400 processes under 256",
    "i=0; while [ $i -lt 400 ]; do sleep 3 & i=$((i+1)); done; wait",
    "processes",
  ],
  ["1 GiB under memoryMb=128", `/usr/bin/python3 -c 'b = bytes([1]) * (1 << 30)'`, "memory"],
  ["200 MB into /dev/shm under tmpMb=64", "head -c 200M /dev/zero > /dev/shm/fill", "tmp"],
  ["a 2 GB file under fileSizeMb=100", "head -c 2G /dev/zero > big.bin", "file_size"],
  ["a busy loop under cpuSeconds=1", "exec sh -c 'while :; do :; done'", "cpu", {
    ...limits,
    cpuSeconds: 1,
  }],
];
for (const [what, shell, kind, caseLimits] of cases) {
  Deno.test({
    name: `limits as nobody (rlimits alone): ${what} is stopped (${kind})`,
    ignore: ignore || (kind === "memory" && !hasPython),
    fn: async () => {
      const r = await asNobody(shell, caseLimits ?? limits);
      assert.notEqual(r.code, 0, r.stdout + r.stderr);
      assert.equal(r.limit, kind, r.stderr);
    },
  });
}
