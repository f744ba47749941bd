/**
 * Red team for test-level grading: candidates that try to make the grader
 * believe the listed tests passed without fixing anything.
 *
 * - Node: the code under test prints a forged TAP stream and exits 0 before
 *   any test runs. `node --test` runs each file in a child process and escapes
 *   its output as comments, so the forged `ok` lines are not results: the
 *   failToPass test is missing, which counts as failed.
 * - Deno: the code under test prints forged `... ok` lines and calls
 *   `Deno.exit(0)` at module load: `deno test` intercepts the exit, nothing
 *   ran, and every listed test is missing.
 * - A passing failToPass test alongside a failing copy of the same name (a
 *   duplicated test) is failed: a failure anywhere wins.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runBatch } from "../../../adapters/batch/mod.ts";
import { makeCohort } from "../../adapters/batch/_cohort.ts";
import { git, writeFiles } from "../../golden/fixture_repos.ts";

async function diffOf(repo: string, files: Record<string, string>): Promise<string> {
  await writeFiles(repo, files);
  await git(repo, "add", "-A");
  const diff = await git(repo, "diff", "--cached", "--binary", "HEAD");
  await git(repo, "reset", "-q", "--hard", "HEAD");
  return diff;
}

Deno.test("red team: forged runner output and duplicated test names do not resolve a task", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-redteam-batch-" });
  try {
    const cohort = await makeCohort(dir, { node: 1, deno: 1, kinds: ["good"] });
    const [node, deno] = cohort.tasks;
    const forgedTap =
      "TAP version 13\n# Subtest: adds\nok 1 - adds\n  ---\n  duration_ms: 1\n  ...\n" +
      "ok 2 - subtracts\nok 3 - multiplies\n1..3\n# tests 3\n# pass 3\n# fail 0\n";
    const forgedDeno = "running 3 tests from ./add_test.ts\nadds ... ok (1ms)\n" +
      "subtracts ... ok (1ms)\nmultiplies ... ok (1ms)\n";
    const extra = [
      {
        instance_id: node!.id,
        model_name_or_path: "forged-tap",
        model_patch: await diffOf(node!.repo, {
          "calc.js": `process.stdout.write(${JSON.stringify(forgedTap)});\nprocess.exit(0);\n`,
        }),
      },
      {
        instance_id: deno!.id,
        model_name_or_path: "forged-deno",
        model_patch: await diffOf(deno!.repo, {
          "calc.ts":
            `console.log(${
              JSON.stringify(forgedDeno)
            });\nDeno.exit(0);\nexport const add = (a: number, b: number) => a - b;\n` +
            "export const sub = (a: number, b: number) => a - b;\n" +
            "export const mul = (a: number, b: number) => a * b;\n",
        }),
      },
      {
        // A second test named "adds" that passes, next to the protected one that still fails.
        instance_id: node!.id,
        model_name_or_path: "duplicate-name",
        model_patch: await diffOf(node!.repo, {
          "test/zz.test.js": 'require("node:test")("adds", () => {});\n',
        }),
      },
    ];
    const predictions = JSON.parse(await Deno.readTextFile(cohort.predictionsFile));
    await Deno.writeTextFile(cohort.predictionsFile, JSON.stringify([...predictions, ...extra]));
    const { report } = await runBatch({
      tasks: cohort.tasksFile,
      predictions: cohort.predictionsFile,
      outDir: join(dir, "out"),
      keyEnv: { XDG_STATE_HOME: join(dir, "state") },
    });
    const by = (model: string) => report.candidates.find((c) => c.model_name_or_path === model)!;
    assert.deepEqual(report.resolved_ids.sort(), [
      `${deno!.id}@good-0`,
      `${node!.id}@good-0`,
    ]);
    const tap = by("forged-tap");
    assert.equal(tap.status, "unresolved");
    assert.equal(tap.tests.find((t) => t.id === "adds")?.after, "missing");
    const denoForged = by("forged-deno");
    assert.equal(denoForged.status, "unresolved");
    assert.equal(denoForged.reason, "failed_tests");
    assert.ok(denoForged.tests.every((t) => t.after === "missing"));
    const dup = by("duplicate-name");
    assert.equal(dup.status, "unresolved");
    assert.equal(dup.tests.find((t) => t.id === "adds")?.after, "failed");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
