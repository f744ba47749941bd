/**
 * `verifyPatchInRepo` drives the same kernel as `vouch run`: its log replays
 * deterministically and `vouch inspect`'s audit shows the task's real states
 * (submitted, worktree, backend, extraction, scope, verification, mint) with
 * the evidence bound to its receipts. Real git, real processes.
 */
import assert from "node:assert/strict";
import { verifyPatchInRepo } from "../../../adapters/driver/verify_patch.ts";
import { assertVerifiedPatch } from "../../../adapters/verified_patch/verified_patch.ts";
import { contractFromCommand } from "../../../adapters/verification/clean_verifier.ts";
import { inspectLog } from "../../../adapters/audit/audit_log.ts";
import { loadOrCreateMacKey } from "../../../adapters/keys/mac_key.ts";
import { createDenoRepo, git, snapshot, snapshotDifferences } from "../../golden/fixture_repos.ts";

async function fixPatch(dir: string, from: string, to: string): Promise<Uint8Array> {
  const path = `${dir}/math.ts`;
  const original = await Deno.readTextFile(path);
  await Deno.writeTextFile(path, original.replace(from, to));
  const patch = await git(dir, "diff", "--binary", "--full-index");
  await Deno.writeTextFile(path, original);
  return new TextEncoder().encode(patch);
}

async function withVerify(
  from: string,
  to: string,
  fn: (
    outcome: Awaited<ReturnType<typeof verifyPatchInRepo>>,
    keyEnv: Record<string, string>,
    repo: string,
  ) => Promise<void>,
): Promise<void> {
  const repo = await createDenoRepo();
  const state = await Deno.makeTempDir();
  const keyEnv = { VOUCH_KEY_FILE: `${state}/key`, XDG_STATE_HOME: `${state}/state` };
  try {
    const before = await snapshot(repo.dir);
    const outcome = await verifyPatchInRepo({
      dir: repo.dir,
      patch: await fixPatch(repo.dir, "a - b", to === "" ? from : to),
      contract: contractFromCommand(repo.verify, 60_000),
      sandbox: "none",
      keyEnv,
      worktreeRoot: `${state}/wt`,
    });
    assert.deepEqual(snapshotDifferences(before, await snapshot(repo.dir)), []);
    await fn(outcome, keyEnv, repo.dir);
  } finally {
    await repo.cleanup();
    await Deno.remove(state, { recursive: true });
  }
}

Deno.test("verifyPatchInRepo: a fixing patch is verified through the kernel; the log replays and audits", async () => {
  await withVerify("a - b", "a + b", async (outcome, keyEnv, repo) => {
    assert.equal(outcome.verdict, "verified", JSON.stringify(outcome));
    assert.equal(outcome.state, "verified");
    assert.equal(outcome.exitCode, 0);
    assert.ok(outcome.verifiedPatchPath !== null);
    // The VerifiedPatch covers exactly the supplied bytes.
    const record = JSON.parse(await Deno.readTextFile(outcome.verifiedPatchPath));
    assert.equal(record.patchDigest, outcome.patchDigest);
    const key = await loadOrCreateMacKey({ repoRoot: repo, env: keyEnv });
    // The outcome carries the minted VerifiedPatch itself: it passes the gate under the key,
    // and its JSON form is the file's.
    const verified = await assertVerifiedPatch(outcome.verifiedPatch, key);
    assert.equal(verified.patchDigest, outcome.patchDigest);
    assert.deepEqual(JSON.parse(JSON.stringify(verified)), record);
    const report = await inspectLog(outcome.logPath, { key });
    assert.equal(report.verdict, "verified", JSON.stringify(report.evidence));
    assert.equal(report.evidence.issue, null);
    // The baseline (run by default: the reference the verdict is judged against) and the
    // verification each name their receipts.
    assert.equal(report.evidence.events, 2, "the baseline and verification results name receipts");
    assert.equal(report.replay.status, "deterministic");
    const task = report.tasks.find((t) => t.task === outcome.task)!;
    const phases = task.phases.map((p) => p.to);
    assert.deepEqual(phases, [
      "submitted",
      "baselining",
      "worktree_ready",
      "backend_running",
      "extracting",
      "patch_proposed",
      "verifying",
      "verified",
      "completed",
    ]);
    assert.equal(task.verdict, "verified");
    assert.equal(task.status, "completed");
    assert.ok(task.durationMs >= 0);
  });
});

Deno.test("verifyPatchInRepo: a patch that does not fix is rejected by the kernel (exit 1), log replays", async () => {
  await withVerify("a - b", "a * b", async (outcome, keyEnv, repo) => {
    assert.equal(outcome.verdict, "rejected");
    assert.equal(outcome.state, "rejected");
    assert.equal(outcome.exitCode, 1);
    assert.ok(outcome.reasons.includes("checks_failed"), outcome.reasons.join(","));
    assert.equal(outcome.verifiedPatch, null);
    assert.equal(outcome.verifiedPatchPath, null);
    const key = await loadOrCreateMacKey({ repoRoot: repo, env: keyEnv });
    const report = await inspectLog(outcome.logPath, { key });
    assert.equal(report.replay.status, "deterministic");
    // The failing verification result is bound to the receipt that shows the failure.
    assert.equal(report.evidence.issue, null, JSON.stringify(report.evidence));
    assert.equal(report.evidence.events, 2);
  });
});

Deno.test("verifyPatchInRepo: nothing but the clean tree is checked out (the patch is read without a worktree)", async () => {
  const repo = await createDenoRepo();
  const state = await Deno.makeTempDir();
  const keyEnv = { VOUCH_KEY_FILE: `${state}/key`, XDG_STATE_HOME: `${state}/state` };
  try {
    // The check counts the repository's worktrees while it runs: the user's checkout and the
    // clean tree it runs in, and no agent worktree beside them.
    const count = `test "$(git worktree list --porcelain | grep -c '^worktree ')" = 2`;
    const outcome = await verifyPatchInRepo({
      dir: repo.dir,
      patch: await fixPatch(repo.dir, "a - b", "a + b"),
      contract: contractFromCommand(`${count} && ${repo.verify}`, 60_000),
      sandbox: "none",
      keyEnv,
      worktreeRoot: `${state}/wt`,
    });
    assert.equal(outcome.verdict, "verified", JSON.stringify(outcome.details));
    assert.deepEqual(outcome.violations, []);
    // git's reading of the handed patch (a temporary index, no checkout) named the changed path.
    const records = (await Deno.readTextFile(outcome.logPath)).trim().split("\n")
      .map((l) => JSON.parse(l));
    const run = records.find((r) => r.kind === "run.outcome" && r.task === outcome.task);
    assert.deepEqual(run.body.rounds[0].filesChanged, ["math.ts"]);
    // No workspace was made for it (no scratch directory to leak): the kernel's `worktree` is
    // the task's own artefacts directory, and no backend claim was recorded.
    const ready = records.find((r) =>
      r.task === outcome.task && r.kind === "kernel.event" && r.body?.kind === "worktree_ready"
    );
    assert.equal(ready?.body.path, run.body.artefactsDir, JSON.stringify(ready));
    assert.equal(run.body.rounds[0].backendStatus, "not_run");
    assert.equal(
      records.some((r) => r.task === outcome.task && r.kind === "backend.transcript"),
      false,
    );
    assert.equal(
      (await git(repo.dir, "worktree", "list", "--porcelain")).match(/^worktree /gm)?.length,
      1,
    );
  } finally {
    await repo.cleanup();
    await Deno.remove(state, { recursive: true });
  }
});
