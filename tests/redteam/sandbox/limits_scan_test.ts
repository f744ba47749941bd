/**
 * Red team, issue #20 §3: where vouch may not read `/proc` (the CLI's flags) and no pids cgroup
 * exists (root on such a host: RLIMIT_NPROC exempts uid 0), the shell scan of `/proc` is what
 * counts the tree. Here the scan alone (no cgroup, no rlimit) watches a real fork loop of 400
 * long sleeps and a real 400 MiB tree of four processes.
 */
import assert from "node:assert/strict";
import { watchTreeTotals } from "../../../adapters/process/_proc_scan.ts";
import type { LimitKind } from "../../../adapters/sandbox/limits.ts";
import { hasPython } from "./_cli.ts";

async function scanned(shell: string, limits: { processes: number; memoryMb: number }) {
  const child = new Deno.Command("/bin/sh", {
    args: ["-c", shell],
    stdout: "piped",
    stderr: "null",
    detached: true,
  }).spawn();
  const out = new Response(child.stdout).text();
  const kind = await new Promise<LimitKind | "exited">((resolve) => {
    const w = watchTreeTotals(child.pid, { ...limits, fileSizeMb: 1, tmpMb: 1 }, 0, (k) => {
      void w.stop().then(() => resolve(k));
    });
    void child.status.then(() => w.stop()).then(() => resolve("exited"));
  });
  // The whole group: the loop and its sleeps.
  Deno.kill(-child.pid, "SIGKILL");
  await child.status;
  return { kind, out: await out };
}

Deno.test("limits (scan): 400 processes under processes=256 are seen past the limit", async () => {
  const r = await scanned(
    "i=0; while [ $i -lt 400 ]; do sleep 60 & i=$((i+1)); done; echo forked; wait",
    { processes: 256, memoryMb: 1 << 20 },
  );
  assert.equal(r.kind, "processes");
});

Deno.test({
  name: "limits (scan): four processes of 100 MiB under memoryMb=256 are seen (the total)",
  ignore: !hasPython,
  fn: async () => {
    const r = await scanned(
      "for i in 1 2 3 4; do /usr/bin/python3 -c 'import time; b = bytes([1]) * (100 << 20); " +
        "time.sleep(60)' & done; wait",
      { processes: 1000, memoryMb: 256 },
    );
    assert.equal(r.kind, "memory");
  },
});
