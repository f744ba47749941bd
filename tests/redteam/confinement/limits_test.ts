/**
 * Red team, issue #10 §4 and §6: a check that fills its /tmp, forks without
 * end, eats memory or writes a huge file is stopped with its own reason; a
 * daemonised check never survives (bwrap pid namespace, `none` sweep);
 * timeouts past the timer range are refused.
 */
import assert from "node:assert/strict";
import { runProcess } from "../../../adapters/process/run.ts";
import { ProcessSpecError } from "../../../adapters/process/types.ts";
import { bwrapProfile } from "../../../adapters/sandbox/bwrap.ts";
import type { SandboxLimits } from "../../../adapters/sandbox/limits.ts";
import { parseRunArgs } from "../../../cli/commands/run_args.ts";
import { UsageError } from "../../../cli/command.ts";
import { createRepo } from "../../golden/fixture_repos.ts";
import { verifyPatchInRepo } from "../../../adapters/driver/verify_patch.ts";
import { contractFileSchema, toOutcomeContract } from "../../../adapters/contract/schema.ts";
import { probe, processWithMarker, skipReason, sleep } from "./_harness.ts";

const ignore = skipReason !== null;
const small: SandboxLimits = { memoryMb: 96, processes: 40, fileSizeMb: 2, tmpMb: 8 };

async function boxed(shell: string, limits: SandboxLimits, kind: "bwrap" | "none" = "bwrap") {
  const tree = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-rt-lim-" }));
  try {
    const sandbox = kind === "bwrap"
      ? bwrapProfile({ worktree: tree, bwrapPath: probe.bwrap.path!, limits })
      : { kind: "none" as const, limits };
    return await runProcess({ shell, cwd: tree, sandbox, timeoutMs: 30_000 });
  } finally {
    await Deno.remove(tree, { recursive: true });
  }
}

Deno.test({
  name: "limits: filling the private /tmp stops at tmpMb with reason tmp",
  ignore,
  fn: async () => {
    const r = await boxed("head -c 64M /dev/zero > /tmp/fill", { ...small, fileSizeMb: 1024 });
    assert.notEqual(r.exitCode, 0);
    assert.equal(r.limit?.kind, "tmp", r.stderr.head);
  },
});

for (const kind of ["bwrap", "none"] as const) {
  Deno.test({
    name: `limits (${kind}): a fork storm is killed at the process limit`,
    ignore: kind === "bwrap" && ignore,
    fn: async () => {
      const started = performance.now();
      const r = await boxed(
        "i=0; while [ $i -lt 200 ]; do sleep 600 & i=$((i+1)); done; wait",
        small,
        kind,
      );
      assert.equal(r.limit?.kind, "processes", JSON.stringify(r.limit));
      // Half the storm's 600 s sleeps: it was killed, not waited for, on any machine.
      assert.ok(performance.now() - started < 300_000);
      assert.match(r.limit!.message, /process limit \(40/);
    },
  });

  Deno.test({
    name: `limits (${kind}): a file past fileSizeMb is refused with reason file_size`,
    ignore: kind === "bwrap" && ignore,
    fn: async () => {
      const r = await boxed("head -c 8M /dev/zero > big.bin", small, kind);
      assert.notEqual(r.exitCode, 0);
      assert.equal(r.limit?.kind, "file_size");
    },
  });

  Deno.test({
    name: `limits (${kind}): resident memory past memoryMb is killed with reason memory`,
    ignore: kind === "bwrap" && ignore,
    fn: async () => {
      const deno = Deno.execPath();
      const r = await boxed(
        `'${deno}' eval 'const a = new Uint8Array(400 * 1024 * 1024).fill(1); await new Promise((r) => setTimeout(r, 20000)); console.log(a[5])'`,
        { ...small, memoryMb: 128 },
        kind,
      );
      assert.equal(r.limit?.kind, "memory", r.stderr.head);
      assert.ok(r.durationMs < 15_000);
    },
  });

  Deno.test({
    name: `check (${kind}): a setsid + double-fork daemon does not outlive the check`,
    ignore: kind === "bwrap" && ignore,
    fn: async () => {
      const marker = `vouch-rt-check-daemon-${crypto.randomUUID()}`;
      const r = await boxed(`(setsid sh -c 'sleep 30' ${marker} &); sleep 0.2`, small, kind);
      assert.equal(r.exitCode, 0);
      await sleep(100);
      assert.equal(processWithMarker(marker), false, "the daemon survived the check");
    },
  });
}

Deno.test({
  name:
    "limits from the contract: a check over the contract's process limit fails with limit_processes",
  ignore,
  fn: async () => {
    const repo = await createRepo({ "a.txt": "a\n" }, "true");
    try {
      const contract = toOutcomeContract(contractFileSchema.parse({
        checks: [{
          name: "storm",
          run: "i=0; while [ $i -lt 100 ]; do sleep 30 & i=$((i+1)); done; wait",
        }],
        sandbox: { limits: { processes: 20 } },
      }));
      const outcome = await verifyPatchInRepo({
        dir: repo.dir,
        patch: new TextEncoder().encode(
          "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n",
        ),
        contract,
        sandbox: "bwrap",
        baseline: false,
        keyEnv: { XDG_STATE_HOME: `${repo.dir}/../state` },
        worktreeRoot: `${repo.dir}/../worktrees`,
      });
      assert.notEqual(outcome.verdict, "verified");
      const tail = outcome.checks.map((c) => c.outputTail).join("\n");
      assert.match(tail, /limit_processes/, JSON.stringify(outcome.checks));
    } finally {
      await repo.cleanup();
    }
  },
});

Deno.test("timeouts past the timer range are refused, never turned into 1 ms", async () => {
  await assert.rejects(
    () => runProcess({ argv: ["true"], cwd: "/", timeoutMs: 2_147_484_000 }),
    (e) => e instanceof ProcessSpecError && e.code === "invalid_spec",
  );
  assert.throws(
    () => parseRunArgs(["--goal", "g", "--verify", "true", "--timeout", "2147484"]),
    UsageError,
  );
  assert.throws(
    () => contractFileSchema.parse({ checks: [{ name: "t", run: "true", timeout: 2147484 }] }),
  );
});
