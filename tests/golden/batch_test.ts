/**
 * `vouch batch` end to end through the real CLI (the `deno task vouch` flags,
 * no network): a SWE-bench-format predictions file graded against tasks with
 * test lists, per-candidate lines on a non-terminal stderr, the three reports,
 * a candidate's log that `vouch inspect` verifies, a resumed rerun, and CLI
 * shards merged into the unsharded report.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { batchReportSchema } from "../../adapters/batch/schema.ts";
import { makeCohort, timeless } from "../adapters/batch/_cohort.ts";
import { runVouch } from "./cli_harness.ts";

Deno.test("golden: vouch batch grades, reports, resumes, shards and merges through the CLI", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-golden-batch-" });
  const here = { dir, verify: "", cleanup: async () => {} };
  const state = join(dir, "state");
  try {
    const cohort = await makeCohort(dir, {
      node: 1,
      deno: 1,
      kinds: ["good", "noop", "test_editing", "empty"],
    });
    const args = ["batch", "--tasks", cohort.tasksFile, "--predictions", cohort.predictionsFile];
    const run = await runVouch(here, [...args, "--out", "out", "--concurrency", "2"], state);
    assert.equal(run.code, 0, run.stderr);
    // Not a terminal: one line per candidate.
    const lines = run.stderr.split("\n").filter((l) => /^\[\d+\/8\] /.test(l));
    assert.equal(lines.length, 8, run.stderr);
    assert.match(run.stdout, /resolved 2\/8, unresolved 4, error 0, empty patch 2/);
    const report = batchReportSchema.parse(
      JSON.parse(await Deno.readTextFile(join(dir, "out", "report.json"))),
    );
    assert.deepEqual(report.resolved_ids, ["deno-calc-2@good-0", "node-calc-1@good-0"]);
    assert.deepEqual(report.empty_patch_ids, ["deno-calc-2@empty-3", "node-calc-1@empty-3"]);
    assert.ok((await Deno.readTextFile(join(dir, "out", "junit.xml"))).includes("<testsuites"));
    assert.ok((await Deno.readTextFile(join(dir, "out", "report.md"))).includes("## By task"));

    // A resolved candidate's own log audits as verified with the run's key.
    const good = report.candidates.find((c) => c.status === "resolved")!;
    const inspect = await runVouch(here, ["inspect", join("out", good.artefacts.log!)], state);
    assert.equal(inspect.code, 0, inspect.stdout + inspect.stderr);
    // Each judged candidate keeps its checks' whole output as SWE-bench's test_output.txt, named
    // in the report and by inspect of its log.
    assert.match(inspect.stdout, /^ {2}output {4}\S+\/round-1\/test_output\.txt$/m, inspect.stdout);
    const noop = report.candidates.find((c) => c.status === "unresolved")!;
    assert.equal(noop.artefacts.test_output, `candidates/${noop.key}/test_output.txt`);
    assert.match(
      await Deno.readTextFile(join(dir, "out", noop.artefacts.test_output!)),
      /^=== check "[^"]+": exit [1-9]\d*, \d+ ms ===$/m,
    );

    // A rerun judges nothing again.
    const again = await runVouch(here, [...args, "--out", "out"], state);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /8 candidates, 8 already judged/);
    assert.equal(again.stderr.split("\n").filter((l) => /^\[\d+\/8\] /.test(l)).length, 0);
    const json = await runVouch(here, [...args, "--out", "out", "--json"], state);
    // `--json` is the report with its output schema version first.
    const { schemaVersion, ...printed } = JSON.parse(json.stdout);
    assert.equal(schemaVersion, 1);
    assert.deepEqual(printed, report);

    // Shards through the CLI merge into the unsharded report.
    for (const i of [1, 2]) {
      const shard = await runVouch(here, [...args, "--out", `s${i}`, "--shard", `${i}/2`], state);
      assert.equal(shard.code, 0, shard.stderr);
    }
    const merged = await runVouch(
      here,
      ["batch", "merge", "--out", "merged", "s2/report.json", "s1/report.json"],
      state,
    );
    assert.equal(merged.code, 0, merged.stderr);
    // The shards judged their candidates again: the same report but for the durations.
    assert.deepEqual(
      timeless(JSON.parse(await Deno.readTextFile(join(dir, "merged", "report.json")))),
      timeless(report),
    );
    const missing = await runVouch(
      here,
      ["batch", "merge", "--out", "m2", "s1/report.json"],
      state,
    );
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /missing shard\(s\) 2\/2/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
