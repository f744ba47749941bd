import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type BatchEvent,
  type BatchReport,
  mergeReports,
  runBatch,
} from "../../../adapters/batch/mod.ts";
import { readPredictions } from "../../../adapters/batch/input.ts";
import { importPublicKey, loadOrCreateSigningKey } from "../../../adapters/keys/mod.ts";
import { verifyEnvelope } from "../../../adapters/attest/mod.ts";
import { type Kind, KINDS, makeCohort, timeless } from "./_cohort.ts";

const ALL: Kind[] = ["good", "noop", "partial", "test_editing", "scope_creep", "empty", "broken"];

Deno.test("vouch batch: a cohort of every kind, in parallel, resumable, sharded, merged", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-batch-" });
  const keyEnv = { XDG_STATE_HOME: join(dir, "state") };
  try {
    const cohort = await makeCohort(dir, { node: 1, deno: 1, kinds: ALL });
    const base = { tasks: cohort.tasksFile, predictions: cohort.predictionsFile, keyEnv };
    let full: BatchReport;

    await t.step("every candidate gets the class and reason its kind calls for", async () => {
      const events: BatchEvent[] = [];
      const r = await runBatch({
        ...base,
        outDir: join(dir, "out"),
        concurrency: 2,
        onEvent: (e) => events.push(e),
      });
      full = r.report;
      assert.equal(full.candidates.length, cohort.expected.size);
      for (const [id, kind] of cohort.expected) {
        const c = full.candidates.find((x) => x.id === id)!;
        assert.deepEqual([c.status, c.reason], [KINDS[kind].status, KINDS[kind].reason], id);
      }
      assert.deepEqual(
        full.resolved_ids,
        [...cohort.expected].filter(([, k]) => k === "good").map(([id]) => id).sort(),
      );
      assert.equal(full.total_instances, 2);
      assert.equal(full.submitted_instances, cohort.expected.size);
      assert.equal(full.completed_instances, full.resolved_instances + full.unresolved_instances);
      assert.equal(events.filter((e) => e.kind === "judged").length, cohort.expected.size);
      // Listed tests are recorded before and after: a partial fix breaks a passToPass test.
      const partial = full.candidates.find((c) => c.model_name_or_path === "partial-2")!;
      assert.deepEqual(partial.tests.map((x) => [x.id, x.before, x.after]), [
        ["adds", "failed", "passed"],
        ["subtracts", "passed", "passed"],
        ["multiplies", "passed", "failed"],
      ]);
      assert.match(partial.detail, /passToPass not passing: multiplies/);
    });

    await t.step(
      "per-candidate artefacts: own log, VerifiedPatch and a verifying attestation",
      async () => {
        const good = full.candidates.filter((c) => c.status === "resolved");
        assert.equal(good.length, 2);
        for (const c of good) {
          const out = join(dir, "out");
          assert.ok((await Deno.stat(join(out, c.artefacts.log!))).isFile);
          assert.ok((await Deno.stat(join(out, c.artefacts.verified_patch!))).isFile);
          const task = cohort.tasks.find((x) => x.id === c.instance_id)!;
          const key = await loadOrCreateSigningKey({ repoRoot: task.repo, env: keyEnv });
          const envelope = JSON.parse(await Deno.readTextFile(join(out, c.artefacts.attestation!)));
          await verifyEnvelope(envelope, await importPublicKey(key.publicKeyPem));
        }
        const rejected = full.candidates.find((c) => c.reason === "failed_tests")!;
        assert.ok((await Deno.stat(join(dir, "out", rejected.artefacts.log!))).isFile);
        assert.equal(rejected.artefacts.verified_patch, null);
      },
    );

    await t.step(
      "reports: JSON, Markdown tables per task and reason, JUnit per candidate",
      async () => {
        const out = join(dir, "out");
        assert.deepEqual(JSON.parse(await Deno.readTextFile(join(out, "report.json"))), full);
        const md = await Deno.readTextFile(join(out, "report.md"));
        assert.match(md, /\| resolved \| 2 \|/);
        assert.match(md, /### node-calc-1 \(1\/7 resolved\)/);
        assert.match(md, /\| protected_path \| 2 \|/);
        const junit = await Deno.readTextFile(join(out, "junit.xml"));
        assert.equal(junit.match(/<testcase /g)?.length, cohort.expected.size);
        assert.equal(junit.match(/<failure /g)?.length, full.unresolved_instances);
        assert.equal(junit.match(/<error /g)?.length, full.error_instances);
      },
    );

    await t.step("a rerun judges nothing again and writes the same report", async () => {
      const events: BatchEvent[] = [];
      const again = await runBatch({
        ...base,
        outDir: join(dir, "out"),
        onEvent: (e) => events.push(e),
      });
      assert.deepEqual(events, [{
        kind: "planned",
        total: cohort.expected.size,
        cached: cohort.expected.size,
      }]);
      assert.deepEqual(again.report, full);
    });

    await t.step(
      "shards 1/2 and 2/2 are disjoint and merge into the unsharded report",
      async () => {
        const one = await runBatch({
          ...base,
          outDir: join(dir, "s1"),
          shard: { index: 1, count: 2 },
        });
        const two = await runBatch({
          ...base,
          outDir: join(dir, "s2"),
          shard: { index: 2, count: 2 },
        });
        const ids1 = one.report.candidates.map((c) => c.id);
        const ids2 = two.report.candidates.map((c) => c.id);
        assert.equal(ids1.filter((id) => ids2.includes(id)).length, 0);
        assert.equal(ids1.length + ids2.length, cohort.expected.size);
        assert.ok(one.report.incomplete_ids.length > 0);
        // runBatch seals its report (`seal`); mergeReports builds the unsealed one (the CLI seals it).
        // Each shard judged its candidates again: equal but for the durations.
        assert.deepEqual(timeless(mergeReports([two.report, one.report])), timeless(full));
        assert.throws(() => mergeReports([one.report]), /missing shard/);
        assert.throws(() => mergeReports([one.report, one.report]), /twice/);
      },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("vouch batch: a failToPass test that already passes on the base makes every candidate an error", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-batch-invalid-" });
  try {
    const cohort = await makeCohort(dir, { node: 1, deno: 0, kinds: ["good", "noop"] });
    // The task claims "subtracts" must go from failing to passing: it already passes.
    const lines = (await Deno.readTextFile(cohort.tasksFile)).trim().split("\n").map((l) => {
      const task = JSON.parse(l);
      task.verify.failToPass = ["subtracts"];
      task.verify.passToPass = ["multiplies"];
      return JSON.stringify(task);
    });
    await Deno.writeTextFile(cohort.tasksFile, lines.join("\n") + "\n");
    const { report } = await runBatch({
      tasks: cohort.tasksFile,
      predictions: cohort.predictionsFile,
      outDir: join(dir, "out"),
      keyEnv: { XDG_STATE_HOME: join(dir, "state") },
    });
    assert.equal(report.error_instances, 2);
    for (const c of report.candidates) {
      assert.equal(c.reason, "contract_invalid");
      assert.deepEqual(c.reasons, ["baseline_fail_to_pass_passes"]);
      assert.equal(c.tests.find((x) => x.id === "subtracts")?.before, "passed");
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("predictions in SWE-bench's JSONL form read the same as the JSON array", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const preds = [
      { instance_id: "a", model_name_or_path: "m", model_patch: "diff" },
      { instance_id: "b", model_name_or_path: "m", model_patch: null, full_output: "x" },
    ];
    await Deno.writeTextFile(join(dir, "p.json"), JSON.stringify(preds));
    await Deno.writeTextFile(join(dir, "p.jsonl"), preds.map((p) => JSON.stringify(p)).join("\n"));
    const a = await readPredictions(join(dir, "p.json"));
    const b = await readPredictions(join(dir, "p.jsonl"));
    assert.deepEqual(a, b);
    assert.equal(a.predictions[1]?.model_patch, null);
    await Deno.writeTextFile(join(dir, "dup.json"), JSON.stringify([preds[0], preds[0]]));
    await assert.rejects(readPredictions(join(dir, "dup.json")), { code: "duplicate_prediction" });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("vouch batch: a prediction for no task is shown as judged (an error) like every other", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-batch-unknown-" });
  try {
    const repo = join(dir, "repo");
    await Deno.mkdir(repo);
    const git = (...args: string[]) =>
      new Deno.Command("git", {
        args: ["-c", "user.email=t@t", "-c", "user.name=t", ...args],
        cwd: repo,
      })
        .output();
    await git("init", "-q");
    await Deno.writeTextFile(join(repo, "f"), "a\n");
    await git("add", "f");
    await git("commit", "-qm", "init");
    const tasks = join(dir, "tasks.jsonl");
    await Deno.writeTextFile(
      tasks,
      JSON.stringify({ id: "t1", repo, base: "HEAD", verify: { command: "true" } }) + "\n",
    );
    const patch = "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n";
    const predictions = join(dir, "preds.json");
    await Deno.writeTextFile(
      predictions,
      JSON.stringify([
        { instance_id: "t1", model_name_or_path: "m", model_patch: patch },
        { instance_id: "nosuch", model_name_or_path: "m", model_patch: patch },
      ]),
    );
    const events: BatchEvent[] = [];
    const r = await runBatch({
      tasks,
      predictions,
      outDir: join(dir, "out"),
      keyEnv: { XDG_STATE_HOME: join(dir, "state") },
      onEvent: (e) => events.push(e),
    });
    const judged = events.filter((e) => e.kind === "judged");
    // The progress counted from 2 of 2 (the unknown one was never shown).
    assert.equal(judged.length, 2, JSON.stringify(events));
    const first = judged[0]!;
    assert.ok(first.kind === "judged");
    assert.deepEqual(first.records.map((c) => [c.instance_id, c.reason]), [[
      "nosuch",
      "unknown_task",
    ]]);
    assert.equal(first.done, 1);
    assert.equal(r.report.error_instances, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
