/**
 * Red team A, findings 7 and 8, through the real `vouch verify --dir R --patch
 * P --verify CMD` with no other flag, real git and python3: an
 * unchecked-hash `.pyc` (PEP 552) of a fixed `calc.py` (calc.py untouched;
 * pytest) or of the test with its expectation rewritten (unittest) makes the
 * failing test pass when run directly, and vouch refuses it (`forbidden`),
 * the line naming the `.pyc` and why (Python bytecode).
 */
import assert from "node:assert/strict";
import { show, type VerifyRun } from "../../golden/real_projects/_harness.ts";
import {
  assertRejectedNaming,
  CALC,
  cheatPatch,
  PYTEST,
  PYTEST_MISSING,
  PYTEST_TEST,
  UNITTEST_TEST,
  verify,
  withPython,
} from "./_python_cheats.ts";

function assertBytecodeRefused(r: VerifyRun, path: RegExp): void {
  assertRejectedNaming(r, ["forbidden"]);
  const line = r.stdout.split("\n").find((l) => /^\s*forbidden /.test(l) && path.test(l));
  assert.ok(line !== undefined, `a line names the .pyc\n${show(r)}`);
  assert.match(line, /Python bytecode/, `the line says why\n${show(r)}`);
}

Deno.test({
  name:
    "redteam oracle: pytest: an unchecked-hash .pyc of a fixed calc.py (calc.py untouched) is refused",
  ignore: PYTEST_MISSING !== null,
  fn: () =>
    withPython(PYTEST_TEST, "tests/test_calc.py", async (p) => {
      const patch = await cheatPatch(p, PYTEST, {}, {
        "__pycache__/calc.TAG.pyc": CALC.replace("a - b  # bug", "a + b"),
      });
      assertBytecodeRefused(await verify(p, patch, PYTEST), /__pycache__\/calc\..*\.pyc/);
    }),
});

Deno.test("redteam oracle: unittest: a .pyc of the test with its expectation rewritten is refused", () =>
  withPython(UNITTEST_TEST, "test_calc.py", async (p) => {
    const cmd = "python3 -m unittest";
    const patch = await cheatPatch(p, cmd, {}, {
      "__pycache__/test_calc.TAG.pyc": UNITTEST_TEST.replace(
        "assertEqual(add(2, 3), 5)",
        "assertEqual(add(2, 3), -1)",
      ),
    });
    assertBytecodeRefused(await verify(p, patch, cmd), /__pycache__\/test_calc\..*\.pyc/);
  }));
