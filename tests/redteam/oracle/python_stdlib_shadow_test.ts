/**
 * Red team rt2, finding 1, through the real `vouch verify --dir R --patch P
 * --verify "python3 -m pytest"` with no other flag, real git and pytest 9: a
 * root `argparse.py` (a standard-library module pytest imports at startup,
 * after the working directory went first on `sys.path`) that loads the real
 * argparse and sets `PYTEST_PLUGINS` to a report-flipping plugin makes the
 * failing test pass without fixing `calc.py` (checked by running pytest
 * directly). It is runner configuration (the oracle): graded also against the
 * base's tests, REJECTED naming the test and the file. Measured on main before
 * the fix: VERIFIED, "the patch touches no test".
 */
import {
  assertRejectedNaming,
  cheatPatch,
  FLIP_HOOK,
  PYTEST,
  PYTEST_MISSING,
  PYTEST_TEST,
  verify,
  withPython,
} from "./_python_cheats.ts";

const SHIM = (mod: string, here: string) =>
  [
    "import os",
    "import sys",
    "",
    `_here = os.path.dirname(os.path.abspath(${here}))`,
    "_saved = sys.path[:]",
    'sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]',
    `del sys.modules["${mod}"]`,
    `import ${mod} as _real  # noqa: E402`,
    "",
    "sys.path[:] = _saved",
    `sys.modules["${mod}"] = _real`,
    'os.environ["PYTEST_PLUGINS"] = "helpers_rt"',
    "",
  ].join("\n");

for (
  const [label, file, here] of [
    ["a root argparse.py", "argparse.py", "__file__"],
    ["a root argparse/ package", "argparse/__init__.py", "os.path.dirname(__file__)"],
  ] as const
) {
  Deno.test({
    name:
      `redteam oracle: pytest: ${label} shadowing the stdlib under python3 -m pytest is the oracle`,
    ignore: PYTEST_MISSING !== null,
    fn: () =>
      withPython(PYTEST_TEST, "tests/test_calc.py", async (p) => {
        const patch = await cheatPatch(p, PYTEST, {
          [file]: SHIM("argparse", here),
          "helpers_rt.py": "import pytest\n\n\n" + FLIP_HOOK,
        });
        assertRejectedNaming(await verify(p, patch, PYTEST), ["test_add", file]);
      }),
  });
}
