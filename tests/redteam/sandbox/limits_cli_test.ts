/**
 * Red team, issue #20 §3: limits were never enforced under the CLI's own Deno
 * flags. The watchdog reads `/proc/<pid>`, which `deno task vouch` may not
 * ("Requires all access"), so it saw one process and 0 bytes; `/dev` was an
 * uncapped tmpfs and nothing bounded what a check wrote into its tree. Each
 * test runs `vouch verify --contract` exactly as users do (the task's flags,
 * never -A) with `sandbox.limits` set, and needs the check to FAIL with the
 * limit named. Sizes stay small next to the limits they cross.
 */
import assert from "node:assert/strict";
import { cgroupHost } from "../../../adapters/process/_kernel_limits.ts";
import { checkReasons, hasPython, isRoot, skipReason, verifyCheck } from "./_cli.ts";

const ignore = skipReason !== null;

async function assertLimit(run: string, limits: Record<string, number>, code: string) {
  const r = await verifyCheck({ run, timeout: 60 }, limits);
  assert.equal(r.code, 1, `expected a rejection\n${r.stdout}\n${r.stderr}`);
  assert.ok(checkReasons(r).includes(code), `expected ${code}\n${r.stdout}`);
}

Deno.test({
  name: "limits (CLI): allocating 1 GiB under memoryMb=128 fails with limit_memory",
  ignore: ignore || !hasPython,
  fn: () =>
    assertLimit(
      `/usr/bin/python3 -c 'b = bytes([1]) * (1 << 30); print(len(b))'`,
      { memoryMb: 128 },
      "limit_memory",
    ),
});

// Root's host uid 0 is exempt from RLIMIT_NPROC: without a pids cgroup, the scan of /proc by a
// shell (every second or so) is what stops it; the sleeps outlive any scan delay.
Deno.test({
  name: "limits (CLI): 400 processes under processes=256 fails with limit_processes",
  ignore,
  fn: async () => {
    const r = await verifyCheck({
      run: "i=0; while [ $i -lt 400 ]; do sleep 30 & i=$((i+1)); echo forked $i; done; wait; " +
        "echo all-forked",
      timeout: 120,
    }, { processes: 256 });
    assert.equal(r.code, 1, `expected a rejection\n${r.stdout}\n${r.stderr}`);
    assert.ok(checkReasons(r).includes("limit_processes"), r.stdout);
    const out = JSON.stringify(r.json?.["checks"]);
    assert.doesNotMatch(out, /all-forked/);
    const forked = Math.max(...[...out.matchAll(/forked (\d+)/g)].map((m) => Number(m[1])));
    console.log(
      `processes=256 (${isRoot ? "root" : "user"}, cgroup ${cgroupHost() !== null}): ` +
        `stopped after ${forked} forks`,
    );
  },
});

Deno.test({
  name: "limits (CLI): 4 processes of 100 MiB each under memoryMb=256 fail with limit_memory " +
    "(the tree's total, not each process's)",
  ignore: ignore || !hasPython,
  fn: () =>
    assertLimit(
      "for i in 1 2 3 4; do /usr/bin/python3 -c 'import time; b = bytes([1]) * (100 << 20); " +
        "time.sleep(30)' & done; wait; echo held",
      { memoryMb: 256 },
      "limit_memory",
    ),
});

for (const where of ["/dev/shm", "/tmp"]) {
  Deno.test({
    name: `limits (CLI): writing 200 MB to ${where} under tmpMb=64 fails with limit_tmp`,
    ignore,
    fn: () => assertLimit(`head -c 200M /dev/zero > ${where}/fill`, { tmpMb: 64 }, "limit_tmp"),
  });
}

Deno.test({
  name: "limits (CLI): /dev itself is read-only (nothing lands beside the device nodes)",
  ignore,
  fn: async () => {
    const r = await verifyCheck({ run: "head -c 1M /dev/zero > /dev/fill" });
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stdout, /Read-only file system/);
  },
});

Deno.test({
  name:
    "limits (CLI): a 2 GB file under fileSizeMb=100 fails, even when the check swallows the error",
  ignore,
  fn: () =>
    assertLimit(
      "head -c 2G /dev/zero > big.bin; ls -l big.bin",
      { fileSizeMb: 100 },
      "limit_file_size",
    ),
});

Deno.test({
  name: "limits (CLI): many files under the per-file limit past diskMb fail with limit_disk",
  ignore,
  fn: () =>
    assertLimit(
      "for i in 1 2 3 4 5 6; do head -c 8M /dev/zero > f$i.bin || exit 0; done; du -sh .",
      { fileSizeMb: 10, diskMb: 32 },
      "limit_disk",
    ),
});

Deno.test({
  name: "limits (CLI): a busy loop past cpuSeconds=1 fails with limit_cpu, before its timeout",
  ignore,
  // `exec` so the looping shell is the check itself; a timeout would be another reason.
  fn: () => assertLimit("exec sh -c 'while :; do :; done'", { cpuSeconds: 1 }, "limit_cpu"),
});

Deno.test({
  name: "limits (CLI): a grandchild past cpuSeconds=1 whose status is passed on: limit_cpu",
  ignore,
  fn: () =>
    assertLimit(
      `sh -c 'while :; do :; done'; st=$?; echo "loop ended: $st"; exit $st`,
      { cpuSeconds: 1 },
      "limit_cpu",
    ),
});

Deno.test({
  name: "limits (CLI): diskMb holds at the peak: a check still writing is killed past it",
  ignore,
  fn: async () => {
    // Up to 512 MiB, 1 MiB a file (under fileSizeMb) with a pause between: before the peak was
    // watched it wrote them all and failed only after it exited.
    const r = await verifyCheck({
      run: "i=0; while [ $i -lt 512 ]; do head -c 1M /dev/zero > f$i.bin; i=$((i+1)); " +
        "echo wrote $i; sleep 0.02; done; echo finished",
      timeout: 120,
    }, { fileSizeMb: 10, diskMb: 16 });
    assert.equal(r.code, 1, r.stdout);
    assert.ok(checkReasons(r).includes("limit_disk"), r.stdout);
    const tail = JSON.stringify(r.json?.["checks"]);
    assert.doesNotMatch(tail, /finished/, "killed while it ran");
    const wrote = Math.max(...[...tail.matchAll(/wrote (\d+)/g)].map((m) => Number(m[1])));
    console.log(`diskMb=16: killed after ${wrote} MiB written`);
    assert.ok(wrote < 512, `wrote ${wrote} MiB`);
  },
});
