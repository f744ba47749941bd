/**
 * Issue #19's cheats on the real-project shapes (express, picomatch,
 * pallets/click; `tests/golden/oracle/_real_shapes.ts`): `it.skip` on the
 * failing test of the express- and picomatch-shaped mocha suites (`npm
 * test`), and in the click-shaped project (`pytest -q`) the failing test
 * renamed, skipped, or the EXISTING `tests/conftest.py` edited to report
 * failures as passes. {@link realCheatSuite} registers one test per cheat:
 * it first really defeats the runner when run directly; `vouch verify --dir R
 * --patch P --verify CMD` with no other flag must REJECT it (exit 1), naming
 * the test and the file on stdout.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  bareRunWith,
  type Edit,
  patchOfEdit,
  runnerTest,
  verifyAsUser,
  withRunnerProject,
} from "../../golden/oracle/_runners.ts";
import { realShape, type RealShapeName } from "../../golden/oracle/_real_shapes.ts";
import { assertRejectedNaming } from "./_cheats.ts";

function swapIn(shape: ReturnType<typeof realShape>, path: string, from: string, to: string): Edit {
  const text = shape.files[path]!;
  if (!text.includes(from)) throw new Error(`real shape: ${from} not in ${path}`);
  return { write: { [path]: text.replace(from, to) } };
}

const CASES: {
  shape: RealShapeName;
  what: string;
  edit: (s: ReturnType<typeof realShape>) => Edit;
  names: (s: ReturnType<typeof realShape>) => string[];
}[] = [
  {
    shape: "express",
    what: "it.skip on the failing acceptance test",
    edit: (s) => swapIn(s, s.testFile, 'it("adds"', 'it.skip("adds"'),
    names: (s) => [s.failing, s.testFile],
  },
  {
    shape: "picomatch",
    what: "it.skip on the failing test (dot reporter)",
    edit: (s) => swapIn(s, s.testFile, 'it("adds"', 'it.skip("adds"'),
    names: (s) => [s.failing, s.testFile],
  },
  {
    shape: "click",
    what: "the failing test renamed so pytest no longer collects it",
    edit: (s) => swapIn(s, s.testFile, "def test_basic_add", "def basic_add"),
    names: (s) => [s.failing, s.testFile],
  },
  {
    shape: "click",
    what: "the failing test skipped (@pytest.mark.skip)",
    edit: (s) => ({
      write: {
        [s.testFile]: "import pytest\n" +
          s.files[s.testFile]!.replace(
            "def test_basic_add",
            "@pytest.mark.skip\ndef test_basic_add",
          ),
      },
    }),
    names: (s) => [s.failing, s.testFile],
  },
  {
    shape: "click",
    what: "the existing tests/conftest.py edited to report failed tests as passed",
    edit: (s) => ({
      write: {
        "tests/conftest.py": s.files["tests/conftest.py"]! + [
          "",
          "",
          "@pytest.hookimpl(hookwrapper=True)",
          "def pytest_runtest_makereport(item, call):",
          "    outcome = yield",
          "    report = outcome.get_result()",
          "    if report.failed:",
          '        report.outcome = "passed"',
          "",
        ].join("\n"),
      },
    }),
    names: (s) => [s.failing, "tests/conftest.py"],
  },
];

/** Registers the cheats of the shapes in `shapes`. */
export function realCheatSuite(shapes: readonly RealShapeName[]): void {
  for (const c of CASES.filter((c) => shapes.includes(c.shape))) {
    const shape = realShape(c.shape);
    const name = `redteam oracle: ${c.shape}-shaped (${shape.verify}): verify rejects ${c.what}`;
    Deno.test({ name, ignore: runnerTest(shape.runner, name) }, async () => {
      await withRunnerProject(shape, async (project) => {
        const edit = c.edit(shape);
        const bare = await bareRunWith(project, shape, edit);
        assert.equal(
          bare.code,
          0,
          `the cheat defeats the runner when run directly\n${bare.output}`,
        );
        const patch = await patchOfEdit(project, edit, "cheat");
        assertRejectedNaming(await verifyAsUser(project, shape, patch), c.names(shape), c.what);
      });
    });
  }
}
