/**
 * The honest classes of issue #19, per runner: patches a careful reviewer
 * accepts, which must stay VERIFIED once the tests are the oracle by default.
 *
 * - `source-only`: `src/calc.*` fixed, no oracle file touched;
 * - `fix-and-new-test`: the fix plus a new test in the failing test's file
 *   (the patch touches the oracle, so it is graded against the base's tests
 *   too, and passes them: "adds" now passes, nothing that passed fails);
 * - `fix-wrong-test`: on a base whose tests also pin the bug (a passing
 *   "adds a negative number" that expects what `a - b` returns), the fix plus
 *   the corrected expectation of that wrong test. The base's failing test
 *   passes on the fixed code; the one base test that now fails is the wrong
 *   test the patch itself corrects, which a reviewer accepts.
 *
 * {@link honestSuite} registers one test per class through `vouch verify`
 * with no other flag, {@link honestRunSuite} through `vouch run` with a
 * scripted `command:` agent. Each first runs the patched project directly and
 * requires it to pass, so a VERIFIED verdict is the right one.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  agentScript,
  bareRunWith,
  createRunnerProject,
  type Edit,
  patchOfEdit,
  runAsUser,
  type RunnerName,
  type RunnerShape,
  runnerShape,
  runnerTest,
  verifyAsUser,
} from "./_runners.ts";
import { type Project, show, type VerifyRun } from "../real_projects/_harness.ts";

/** The honest classes. */
export type HonestClass = "source-only" | "fix-and-new-test" | "fix-wrong-test";

/** A test of `add` in `runner`'s style, appended to the failing test's file. */
export function addTest(
  runner: RunnerName,
  title: string,
  a: number,
  b: number,
  expected: number,
): string {
  switch (runner) {
    case "node":
      return `\ntest(${
        JSON.stringify(title)
      }, () => {\n  assert.equal(add(${a}, ${b}), ${expected});\n});\n`;
    case "mocha":
    case "mocha-dot":
      return `\ndescribe("calc more", function () {\n  it(${
        JSON.stringify(title)
      }, function () {\n    assert.equal(add(${a}, ${b}), ${expected});\n  });\n});\n`;
    case "vitest":
    case "jest":
      return `\ndescribe("calc more", () => {\n  it(${
        JSON.stringify(title)
      }, () => {\n    expect(add(${a}, ${b})).toBe(${expected});\n  });\n});\n`;
    case "pytest":
      return `\n\ndef test_${
        title.replaceAll(" ", "_")
      }():\n    assert add(${a}, ${b}) == ${expected}\n`;
  }
}

/** The test that pins the bug in the `fix-wrong-test` base: `add(2, -3)` is -1, `a - b` gives 5. */
function wrongTest(runner: RunnerName, expected: number): string {
  return addTest(
    runner,
    runner === "pytest" ? "add negative" : "adds a negative number",
    2,
    -3,
    expected,
  );
}

/** Extra committed files of the base a class needs (the wrong test for `fix-wrong-test`). */
export function honestBase(shape: RunnerShape, cls: HonestClass): Record<string, string> {
  if (cls !== "fix-wrong-test") return {};
  return { [shape.testFile]: shape.files[shape.testFile]! + wrongTest(shape.runner, 5) };
}

/** The honest patch of `cls` against `honestBase(shape, cls)`. */
export function honestEdit(shape: RunnerShape, cls: HonestClass): Edit {
  const fix = { [shape.source]: shape.fixedSource };
  const test = shape.files[shape.testFile]!;
  switch (cls) {
    case "source-only":
      return { write: fix };
    case "fix-and-new-test":
      return {
        write: { ...fix, [shape.testFile]: test + addTest(shape.runner, "adds zero", 0, 4, 4) },
      };
    case "fix-wrong-test":
      return { write: { ...fix, [shape.testFile]: test + wrongTest(shape.runner, -1) } };
  }
}

/** Asserts `run` is VERIFIED (exit 0). */
export function assertVerified(run: VerifyRun, what: string): void {
  assert.equal(run.code, 0, `${what}: must be VERIFIED (exit 0)\n${show(run)}`);
  assert.match(run.stdout, /VERIFIED/, `${what}: the verdict word\n${show(run)}`);
}

const WORDS: Record<HonestClass, string> = {
  "source-only": "a source-only fix",
  "fix-and-new-test": "a fix with a new test",
  "fix-wrong-test": "a fix that also corrects a test pinning the bug",
};

/** One project per base of a file, removed when the test process ends. */
function projectsOf(runner: RunnerName): (cls: HonestClass) => Promise<Project> {
  const made = new Map<string, Promise<Project>>();
  return (cls) => {
    const key = cls === "fix-wrong-test" ? cls : "plain";
    let project = made.get(key);
    if (project === undefined) {
      project = (async () => {
        const shape = runnerShape(runner);
        const p = await createRunnerProject(shape, honestBase(shape, cls));
        globalThis.addEventListener("unload", () => {
          try {
            Deno.removeSync(p.dir.slice(0, p.dir.lastIndexOf("/")), { recursive: true });
          } catch {
            // already gone
          }
        });
        const base = await bareRunWith(p, shape, {});
        assert.notEqual(base.code, 0, `${runner}: the base must fail\n${base.output}`);
        return p;
      })();
      made.set(key, project);
    }
    return project;
  };
}

/** Registers one `vouch verify` test per honest class of `runner` in `classes`. */
export function honestSuite(runner: RunnerName, classes: readonly HonestClass[]): void {
  const project = projectsOf(runner);
  const shape = runnerShape(runner);
  for (const cls of classes) {
    const name = `golden oracle: ${runner}: verify accepts ${WORDS[cls]}`;
    Deno.test({ name, ignore: runnerTest(runner, name) }, async () => {
      const p = await project(cls);
      const edit = honestEdit(shape, cls);
      const bare = await bareRunWith(p, shape, edit);
      assert.equal(bare.code, 0, `the patched project passes when run directly\n${bare.output}`);
      const patch = await patchOfEdit(p, edit, `honest-${cls}`);
      assertVerified(await verifyAsUser(p, shape, patch), WORDS[cls]);
    });
  }
}

/** Registers one `vouch run` test per honest class of `runner` in `classes` (a scripted agent). */
export function honestRunSuite(runner: RunnerName, classes: readonly HonestClass[]): void {
  const project = projectsOf(runner);
  const shape = runnerShape(runner);
  for (const cls of classes) {
    const name = `golden oracle: ${runner}: run accepts an agent that makes ${WORDS[cls]}`;
    Deno.test({ name, ignore: runnerTest(runner, name) }, async () => {
      const p = await project(cls);
      const agent = await agentScript(p, honestEdit(shape, cls), `agent-${cls}`);
      assertVerified(await runAsUser(p, shape, agent), `run: ${WORDS[cls]}`);
    });
  }
}
