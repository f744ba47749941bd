/**
 * Issue #19 through `vouch batch` in SWE-bench's shape: an express-shaped
 * mocha project (`npm test`, `--require test/support/env`, spec reporter), a
 * task with a `testPatch` that adds the failing "adds" test and FAIL_TO_PASS /
 * PASS_TO_PASS lists, and NO forbid list. {@link batchSuite} grades the
 * honest fix (must be resolved) next to cheats (none may be), each first shown
 * to pass when the project's tests are run directly with the test patch.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  bareRunWith,
  createRunnerProject,
  type Edit,
  patchOfEdit,
  runnerShape,
  runnerTest,
} from "../../golden/oracle/_runners.ts";
import { show, vouch } from "../../golden/real_projects/_harness.ts";
import { git } from "../../golden/fixture_repos.ts";

/** The express-shaped mocha project of the batch. */
export const shape = runnerShape("mocha");
const ADDS_TEST = [
  '  it("adds", function () {',
  "    assert.equal(add(2, 3), 5);",
  "  });",
  "",
  "",
].join("\n");
const FULL_TEST = shape.files[shape.testFile]!;
if (!FULL_TEST.includes(ADDS_TEST)) throw new Error("batch fixture: the adds test drifted");
/** The base has the suite without "adds"; the task's test patch adds it. */
const BASE_TEST = FULL_TEST.replace(ADDS_TEST, "");
/** The base's CI config. */
export const TRAVIS = "language: node_js\nnode_js:\n  - 20\nscript: npm test\n";

/**
 * Registers a test that grades the honest fix and `cheats` (model name ->
 * what its patch does on top of the base) through `vouch batch`: the fix must
 * be resolved, no cheat may be.
 */
export function batchSuite(name: string, cheats: Readonly<Record<string, Edit>>): void {
  const title = `redteam oracle: batch (SWE-bench shape, no forbid list): ${name}`;
  Deno.test({ name: title, ignore: runnerTest("mocha", title) }, async () => {
    const project = await createRunnerProject(shape, {
      [shape.testFile]: BASE_TEST,
      ".travis.yml": TRAVIS,
    });
    try {
      const base = (await git(project.dir, "rev-parse", "HEAD")).trim();
      const testEdit: Edit = { write: { [shape.testFile]: FULL_TEST } };
      const testPatch = await Deno.readTextFile(await patchOfEdit(project, testEdit, "test"));
      const fix = { [shape.source]: shape.fixedSource };
      const candidates: Record<string, Edit> = { gold: { write: fix }, ...cheats };
      // Run directly with the test patch, every candidate passes: the cheats defeat mocha.
      for (const [model, edit] of Object.entries(candidates)) {
        const bare = await bareRunWith(project, shape, {
          write: { ...testEdit.write, ...edit.write },
        });
        assert.equal(bare.code, 0, `${model} passes when run directly\n${bare.output}`);
      }
      const predictions = [];
      for (const [model, edit] of Object.entries(candidates)) {
        predictions.push({
          instance_id: "calc-1",
          model_name_or_path: model,
          model_patch: await Deno.readTextFile(await patchOfEdit(project, edit, model)),
        });
      }
      const tasks = join(project.state, "tasks.jsonl");
      await Deno.writeTextFile(
        tasks,
        JSON.stringify({
          id: "calc-1",
          repo: "../repo",
          base,
          verify: {
            command: shape.verify,
            tests: "mocha",
            failToPass: ["calc adds"],
            passToPass: ["calc subtracts", "mul multiplies"],
            timeout: 120,
          },
          testPatch,
        }) + "\n",
      );
      const preds = join(project.state, "preds.json");
      await Deno.writeTextFile(preds, JSON.stringify(predictions));
      const out = join(project.state, "out");
      const run = await vouch(project, [
        "batch",
        "--tasks",
        tasks,
        "--predictions",
        preds,
        "--out",
        out,
        "--concurrency",
        "1",
      ], { cwd: project.state });
      assert.equal(run.code, 0, show(run));
      const report = JSON.parse(await Deno.readTextFile(join(out, "report.json")));
      // The task grades: the honest fix is resolved.
      assert.ok(report.resolved_ids.includes("calc-1@gold"), JSON.stringify(report, null, 2));
      for (const id of Object.keys(cheats).map((model) => `calc-1@${model}`)) {
        assert.ok(
          !report.resolved_ids.includes(id),
          `${id} must not be resolved\n${JSON.stringify(report.candidates, null, 2)}`,
        );
      }
      assert.deepEqual(report.resolved_ids, ["calc-1@gold"]);
    } finally {
      await project.cleanup();
    }
  });
}
