/**
 * `vouch batch` on SWE-bench's own shapes through the real CLI: dataset rows
 * (`instance_id`, `repo` as owner/name, `base_commit`, `test_patch`,
 * `FAIL_TO_PASS`/`PASS_TO_PASS` as JSON-encoded strings, the dataset's other
 * fields) read as tasks with `--repos DIR`, real git and real pytest; the exit
 * codes (`--fail-on-unresolved`, a candidate in error).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { batchReportSchema } from "../../adapters/batch/schema.ts";
import { runVouch } from "./cli_harness.ts";

const PYTEST = new Deno.Command("python3", { args: ["-m", "pytest", "--version"] }).outputSync()
  .success;
if (!PYTEST) console.log("batch_swebench_test: python3 -m pytest unavailable; skipping");

async function git(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", { args, cwd }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).trim();
}

/** The diff that makes calc.py's add return `expr` (made by git, then undone). */
async function fix(repo: string, expr: string): Promise<string> {
  const text = await Deno.readTextFile(join(repo, "calc.py"));
  await Deno.writeTextFile(join(repo, "calc.py"), text.replace("return a - b", `return ${expr}`));
  const patch = await git(repo, "diff");
  await git(repo, "checkout", "--", "calc.py");
  return patch + "\n";
}

/** A python project cloned as DIR/repos/acme__calc, a SWE-bench row and three predictions. */
export async function swebenchFixture(dir: string): Promise<{
  row: Record<string, unknown>;
  predictions: string;
}> {
  const repo = join(dir, "repos", "acme__calc");
  await Deno.mkdir(join(repo, "tests"), { recursive: true });
  await git(repo, "init", "-q");
  await git(repo, "config", "user.email", "t@example.invalid");
  await git(repo, "config", "user.name", "t");
  await Deno.writeTextFile(
    join(repo, "calc.py"),
    "def add(a, b):\n    return a - b\n\ndef sub(a, b):\n    return a - b\n",
  );
  await Deno.writeTextFile(
    join(repo, "tests", "test_sub.py"),
    "from calc import sub\n\ndef test_sub():\n    assert sub(3, 1) == 2\n",
  );
  await Deno.writeTextFile(join(repo, "conftest.py"), "");
  await git(repo, "add", ".");
  await git(repo, "commit", "-qm", "init");
  const base = await git(repo, "rev-parse", "HEAD");
  const testPatch = "diff --git a/tests/test_add.py b/tests/test_add.py\nnew file mode 100644\n" +
    "--- /dev/null\n+++ b/tests/test_add.py\n@@ -0,0 +1,4 @@\n" +
    "+from calc import add\n+\n+def test_add():\n+    assert add(2, 3) == 5\n";
  // Every field of a SWE-bench (princeton-nlp/SWE-bench) row, lists JSON-encoded as on HF.
  const row = {
    repo: "acme/calc",
    instance_id: "acme__calc-1",
    base_commit: base,
    patch: await fix(repo, "a + b"),
    test_patch: testPatch,
    problem_statement: "add() subtracts",
    hints_text: "",
    created_at: "2024-01-01T00:00:00Z",
    version: "1.0",
    FAIL_TO_PASS: JSON.stringify(["tests/test_add.py::test_add"]),
    PASS_TO_PASS: JSON.stringify(["tests/test_sub.py::test_sub"]),
    environment_setup_commit: base,
  };
  const predictions = JSON.stringify([
    { instance_id: row.instance_id, model_name_or_path: "right", model_patch: row.patch },
    {
      instance_id: row.instance_id,
      model_name_or_path: "wrong",
      model_patch: await fix(repo, "a * b"),
    },
    { instance_id: row.instance_id, model_name_or_path: "none", model_patch: "" },
  ]);
  return { row, predictions };
}

Deno.test({
  name: "golden: vouch batch takes SWE-bench dataset rows with --repos; exit codes",
  ignore: !PYTEST,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "vouch-golden-swebench-" });
    const here = { dir, verify: "", cleanup: async () => {} };
    const state = join(dir, "state");
    try {
      const { row, predictions } = await swebenchFixture(dir);
      await Deno.writeTextFile(join(dir, "tasks.jsonl"), JSON.stringify(row) + "\n");
      await Deno.writeTextFile(join(dir, "preds.json"), predictions);
      const args = ["batch", "--tasks", "tasks.jsonl", "--predictions", "preds.json"];
      const test = [
        "--test-command",
        "python3 -m pytest -v -p no:cacheprovider",
        "--test-format",
        "pytest",
      ];

      const noRepos = await runVouch(here, [...args, ...test, "--out", "o0"], state);
      assert.equal(noRepos.code, 2, noRepos.stderr);
      assert.match(noRepos.stderr, /SWE-bench's shape \(repo "acme\/calc"\): give --repos DIR/);
      const wrong = await runVouch(here, [...args, ...test, "--repos", "elsewhere"], state);
      assert.equal(wrong.code, 2, wrong.stderr);
      assert.match(
        wrong.stderr,
        /no local clone of acme\/calc: tried \S*elsewhere\/acme__calc and \S*elsewhere\/calc/,
      );

      const run = await runVouch(
        here,
        [...args, ...test, "--repos", "repos", "--out", "out"],
        state,
      );
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stderr, /3 candidates, 0 already judged/);
      const report = batchReportSchema.parse(
        JSON.parse(await Deno.readTextFile(join(dir, "out", "report.json"))),
      );
      assert.deepEqual(report.resolved_ids, ["acme__calc-1@right"], run.stderr);
      assert.deepEqual(report.unresolved_ids, ["acme__calc-1@wrong"]);
      assert.deepEqual(report.empty_patch_ids, ["acme__calc-1@none"]);
      const right = report.candidates.find((c) => c.model_name_or_path === "right")!;
      assert.deepEqual(right.tests.map((t) => [t.id, t.list, t.before, t.after]), [
        ["tests/test_add.py::test_add", "failToPass", "failed", "passed"],
        ["tests/test_sub.py::test_sub", "passToPass", "passed", "passed"],
      ]);

      // --fail-on-unresolved: the same (resumed) verdicts, exit 1.
      const strict = await runVouch(
        here,
        [...args, ...test, "--repos", "repos", "--out", "out", "--fail-on-unresolved"],
        state,
      );
      assert.equal(strict.code, 1, strict.stderr);
      assert.match(strict.stderr, /3 candidates, 3 already judged/);
      assert.match(
        strict.stderr,
        /2 candidate\(s\) not resolved \(REJECTED; --fail-on-unresolved\); exit 1/,
      );

      // A command that cannot run: every candidate in error, exit 5 (not 0).
      const broken = await runVouch(
        here,
        [
          ...args,
          "--test-command",
          "nosuch-vouch-cmd",
          "--test-format",
          "pytest",
          "--repos",
          "repos",
          "--out",
          "o2",
        ],
        state,
      );
      assert.equal(broken.code, 5, broken.stderr);
      assert.match(broken.stdout, /error 2, empty patch 1/);
      assert.match(
        broken.stderr,
        /2 of 3 candidate\(s\) in error \(COULD NOT RUN: could not be judged/,
      );
      // Why, on screen (not only in report.json), with the sandbox hint.
      assert.match(broken.stderr, /vouch batch: 2 candidate\(s\) could_not_run: /);
      assert.match(broken.stderr, /pass --sandbox-ro PATH for it \(and --fresh/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "golden: vouch batch says on screen that a reporter hiding passing ids made listed tests missing",
  ignore: !PYTEST,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "vouch-golden-swebench-hints-" });
    const here = { dir, verify: "", cleanup: async () => {} };
    const state = join(dir, "state");
    try {
      const { row, predictions } = await swebenchFixture(dir);
      await Deno.writeTextFile(join(dir, "tasks.jsonl"), JSON.stringify(row) + "\n");
      await Deno.writeTextFile(join(dir, "preds.json"), predictions);
      const args = ["batch", "--tasks", "tasks.jsonl", "--predictions", "preds.json"];
      // pytest -q names failures only: the passToPass test is "missing" on the base; say so.
      const quiet = await runVouch(here, [
        ...args,
        "--test-command",
        "python3 -m pytest -q -p no:cacheprovider",
        "--test-format",
        "pytest",
        "--repos",
        "repos",
        "--out",
        "o3",
      ], state);
      const report = batchReportSchema.parse(
        JSON.parse(await Deno.readTextFile(join(dir, "o3", "report.json"))),
      );
      assert.equal(report.error_instances, 2);
      assert.deepEqual(report.ambiguous_failure_ids, ["acme__calc-1@right", "acme__calc-1@wrong"]);
      assert.equal(quiet.code, 5, quiet.stderr);
      assert.match(
        quiet.stderr,
        /listed test\(s\) missing from "tests"'s output on the base \(tests\/test_sub\.py::test_sub\): the reporter may hide passing tests' ids/,
      );
      assert.match(quiet.stderr, /pytest -rA or -v/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
