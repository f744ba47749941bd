/**
 * A baseline check the run's deadline leaves no time for is never started and
 * fails as timed out, saying the wall budget left no time: the run then ends
 * on its budget (exit 3), not "could not run" (exit 5).
 */
import assert from "node:assert/strict";
import { createRepo, git } from "../../golden/fixture_repos.ts";
import { createCleanVerifier } from "../../../adapters/verification/clean_verifier.ts";
import { contractFromCommand } from "../../../adapters/verification/clean_verifier.ts";
import { EventLog } from "../../../adapters/log/store.ts";
import { importMacKey } from "../../../adapters/keys/mac_key.ts";
import { ReceiptRecorder } from "../../../adapters/receipts/chain.ts";

Deno.test("clean verifier: a deadline that left no time fails the baseline check as timed out, not as a contract that cannot run", async () => {
  const repo = await createRepo({ "README.md": "# x\n" }, "true", { prefix: "vouch-deadline-" });
  const root = await Deno.makeTempDir({ prefix: "vouch-deadline-wt-" });
  const log = await EventLog.open(`${root}/events.jsonl`);
  try {
    const key = await importMacKey(new Uint8Array(32).fill(3), "test");
    const verifier = createCleanVerifier({
      repo: repo.dir,
      base: (await git(repo.dir, "rev-parse", "HEAD")).trim(),
      taskId: "t-deadline",
      contract: contractFromCommand("touch started; true", 60_000),
      receipts: ReceiptRecorder.resume(log, key, log.openReport.lastReceipt),
      sandbox: "none",
      worktreeRoot: `${root}/trees`,
      deadline: Date.now() - 1,
    });
    const b = await verifier.baseline(new AbortController().signal, () => {});
    await verifier.settle();
    assert.equal(b.ran, true, "the contract itself is fine: the budget ran out");
    assert.deepEqual(b.refusals, []);
    assert.deepEqual(b.checks.map((c) => [c.id, c.outcome, c.receipts.length]), [[
      "verify",
      "fail",
      0,
    ]]);
    assert.match(
      b.summaries[0]?.detail ?? "",
      /not started: the run's wall-time budget \(--timeout\) left no time/,
    );
  } finally {
    await log.close();
    await repo.cleanup();
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
});
