/**
 * Red-team finding 4 (`deno test`): a patch that leaves the bug and makes the
 * source call `Deno.exit(0)` when the failing test's file loads it. deno 2
 * ends that file's isolate, runs the others and prints `ok | 1 passed | 0
 * failed` (the base: `1 passed | 1 failed`), exit 0: judged by exit code that
 * was VERIFIED. vouch now has deno write a junit report (`--junit-path`), so
 * the base's failing test `adds` is FAIL_TO_PASS and is missing after the
 * patch: REJECTED, with `--verify "deno test"` and with the contract `vouch
 * init` writes. An honest fix of the same project still verifies, per test.
 * The same through `deno task` (`--verify "deno task test"`, `deno task ci`,
 * and the `deno task test` `vouch init` derives from `tasks.test` when no
 * `--verify` is given): each task is one `deno test`, read from the BASE's
 * deno.json, so the report is asked for through the task: REJECTED (all three
 * were VERIFIED by exit code before).
 * Real vouch CLI, real deno, the default sandbox (bwrap).
 */
import assert from "node:assert/strict";
import { dirname } from "node:path";
import {
  createProject,
  HAVE_BWRAP,
  patchOf,
  type Project,
  show,
  type VerifyRun,
  vouch,
} from "../../golden/real_projects/_harness.ts";

const CALC = [
  "export const add = (a: number, b: number): number => a - b; // bug",
  "export const mul = (a: number, b: number): number => a * b;",
  "",
].join("\n");

const FILES: Record<string, string> = {
  "deno.json": '{ "lock": false }\n',
  "calc.ts": CALC,
  "calc_test.ts": [
    'import { add } from "./calc.ts";',
    'Deno.test("adds", () => {',
    '  if (add(2, 3) !== 5) throw new Error("add broken");',
    "});",
    "",
  ].join("\n"),
  "mul_test.ts": [
    'import { mul } from "./calc.ts";',
    'Deno.test("multiplies", () => {',
    '  if (mul(2, 3) !== 6) throw new Error("mul broken");',
    "});",
    "",
  ].join("\n"),
};

/** The dishonest patch: `add` still subtracts; the failing test's file exits as it loads. */
const CHEAT = {
  "calc.ts": CALC + 'if (Deno.mainModule.endsWith("/calc_test.ts")) Deno.exit(0);\n',
};
const FIX = { "calc.ts": CALC.replace("a - b; // bug", "a + b;") };

/** `deno` on PATH for the checks (its directory is mounted into the sandbox as a toolchain). */
const PATH = `${dirname(Deno.execPath())}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`;
const VERIFY = "deno test";

/** The same project run through `deno task`: `tasks.test` and `tasks.ci` are each one `deno test`. */
const TASK_FILES: Record<string, string> = {
  ...FILES,
  "deno.json":
    '{ "lock": false, "tasks": { "test": "deno test", "ci": { "command": "deno test" } } }\n',
};

async function withProject(
  fn: (p: Project) => Promise<void>,
  files: Record<string, string> = FILES,
): Promise<void> {
  const project = await createProject("vouch-redteam-deno-exit-", files);
  try {
    await fn(project);
  } finally {
    await project.cleanup();
  }
}

/** `deno test`'s (or `args`') exit code on the project with `edit` made, run directly (no vouch). */
async function bare(
  project: Project,
  edit: Record<string, string>,
  args: string[] = ["test"],
  files: Record<string, string> = FILES,
): Promise<number> {
  const tree = `${project.state}/bare`;
  await Deno.mkdir(tree);
  try {
    for (const [name, text] of Object.entries({ ...files, ...edit })) {
      await Deno.writeTextFile(`${tree}/${name}`, text);
    }
    const out = await new Deno.Command(Deno.execPath(), {
      args,
      cwd: tree,
      env: { NO_COLOR: "1" },
      stdout: "null",
      stderr: "null",
    }).output();
    return out.code;
  } finally {
    await Deno.remove(tree, { recursive: true });
  }
}

function rejectedNamingAdds(run: VerifyRun): void {
  assert.equal(run.code, 1, show(run));
  assert.match(run.stdout, /^REJECTED /m, show(run));
  assert.match(run.stdout, /"adds" \(missing\)/, show(run));
  assert.match(run.stdout, /fewer tests ran: 2 at baseline, 1 now/, show(run));
  assert.match(run.stdout, /judged per test/, show(run));
}

Deno.test({
  name: "redteam: deno test, Deno.exit(0) when the failing test's file loads: REJECTED",
  ignore: !HAVE_BWRAP,
  async fn() {
    await withProject(async (project) => {
      // The cheat really defeats deno run directly: exit 0, `adds` never ran.
      assert.equal(await bare(project, CHEAT), 0, "the cheat makes deno test exit 0");
      const patch = await patchOf(project, CHEAT, "cheat");
      const env = { PATH };
      const run = await vouch(project, [
        "verify",
        "--dir",
        project.dir,
        "--patch",
        patch,
        "--verify",
        VERIFY,
      ], { env });
      rejectedNamingAdds(run);
      // The contract `vouch init` writes (`"tests": "deno"`) is no way around it either.
      const contract = `${project.state}/contract.json`;
      const init = await vouch(project, [
        "init",
        "--dir",
        project.dir,
        "--verify",
        VERIFY,
        "--out",
        contract,
      ], { env });
      assert.equal(init.code, 0, show(init));
      assert.equal(JSON.parse(await Deno.readTextFile(contract)).checks[0].tests, "deno");
      rejectedNamingAdds(
        await vouch(project, [
          "verify",
          "--dir",
          project.dir,
          "--patch",
          patch,
          "--contract",
          contract,
        ], { env }),
      );
    });
  },
});

Deno.test({
  name: "redteam: deno test, the honest fix of the same project is VERIFIED per test",
  ignore: !HAVE_BWRAP,
  async fn() {
    await withProject(async (project) => {
      const patch = await patchOf(project, FIX, "fix");
      const run = await vouch(project, [
        "verify",
        "--dir",
        project.dir,
        "--patch",
        patch,
        "--verify",
        VERIFY,
      ], { env: { PATH } });
      assert.equal(run.code, 0, show(run));
      assert.match(run.stdout, /^VERIFIED /m, show(run));
      assert.match(run.stdout, /judged per test/, show(run));
    });
  },
});

Deno.test({
  name:
    "redteam: deno task test / deno task ci (each one deno test), Deno.exit(0) as the file loads: REJECTED",
  ignore: !HAVE_BWRAP,
  async fn() {
    await withProject(async (project) => {
      // Through deno task the cheat defeats deno just as well: exit 0, `adds` never ran.
      assert.equal(await bare(project, CHEAT, ["task", "test"], TASK_FILES), 0);
      const patch = await patchOf(project, CHEAT, "cheat");
      const env = { PATH };
      for (const verify of ["deno task test", "deno task ci"]) {
        rejectedNamingAdds(
          await vouch(project, [
            "verify",
            "--dir",
            project.dir,
            "--patch",
            patch,
            "--verify",
            verify,
          ], { env }),
        );
      }
      // A patch that also narrows the task to the passing file is never graded by its own task
      // (without setup, a deno.json edit is refused as a dependency manifest change).
      const redefined = await patchOf(project, {
        ...CHEAT,
        "deno.json": TASK_FILES["deno.json"]!.replace('"deno test" }', '"deno test mul_test.ts" }'),
      }, "redefine");
      const narrowed = await vouch(project, [
        "verify",
        "--dir",
        project.dir,
        "--patch",
        redefined,
        "--verify",
        "deno task ci",
      ], { env });
      assert.notEqual(narrowed.code, 0, show(narrowed));
      assert.doesNotMatch(narrowed.stdout, /^VERIFIED /m, show(narrowed));
      assert.match(narrowed.stdout, /dependency_change_needs_setup/, show(narrowed));
      // No --verify: `vouch init` derives `deno task test` from tasks.test (what `vouch run` runs too).
      const contract = `${project.state}/contract.json`;
      const init = await vouch(project, ["init", "--dir", project.dir, "--out", contract], { env });
      assert.equal(init.code, 0, show(init));
      const written = JSON.parse(await Deno.readTextFile(contract)).checks[0];
      assert.deepEqual([written.run, written.tests], [["deno", "task", "test"], "deno"]);
      rejectedNamingAdds(
        await vouch(project, [
          "verify",
          "--dir",
          project.dir,
          "--patch",
          patch,
          "--contract",
          contract,
        ], { env }),
      );
    }, TASK_FILES);
  },
});

Deno.test({
  name: "redteam: deno task test, the honest fix is VERIFIED per test",
  ignore: !HAVE_BWRAP,
  async fn() {
    await withProject(async (project) => {
      const patch = await patchOf(project, FIX, "fix");
      const run = await vouch(project, [
        "verify",
        "--dir",
        project.dir,
        "--patch",
        patch,
        "--verify",
        "deno task test",
      ], { env: { PATH } });
      assert.equal(run.code, 0, show(run));
      assert.match(run.stdout, /^VERIFIED /m, show(run));
      assert.match(run.stdout, /judged per test/, show(run));
    }, TASK_FILES);
  },
});

Deno.test({
  name:
    "redteam: deno task ci with setup, a patch that narrows tasks.ci to the passing file: REJECTED",
  ignore: !HAVE_BWRAP,
  async fn() {
    await withProject(async (project) => {
      // With setup a deno.json edit is no dependency refusal, and tasks.ci is no test key: the
      // patch leaves the bug and runs only mul_test.ts. vouch never adopts the tree's task, and
      // reads no per-test result from a run it did not get a report from.
      const narrowed = TASK_FILES["deno.json"]!.replace(
        '"deno test" }',
        '"deno test mul_test.ts" }',
      );
      assert.equal(await bare(project, { "deno.json": narrowed }, ["task", "ci"], TASK_FILES), 0);
      const patch = await patchOf(project, { "deno.json": narrowed }, "narrow");
      const contract = `${project.state}/contract.json`;
      await Deno.writeTextFile(
        contract,
        JSON.stringify({
          setup: { commands: ["true"] },
          checks: [{ name: "tests", run: "deno task ci" }],
        }),
      );
      const run = await vouch(project, [
        "verify",
        "--dir",
        project.dir,
        "--patch",
        patch,
        "--contract",
        contract,
      ], { env: { PATH } });
      assert.equal(run.code, 1, show(run));
      assert.match(run.stdout, /^REJECTED /m, show(run));
      assert.match(run.stdout, /"adds" \(missing\)/, show(run));
    }, TASK_FILES);
  },
});

if (!HAVE_BWRAP) console.log("deno_exit_test: bwrap does not work here: skipped");
