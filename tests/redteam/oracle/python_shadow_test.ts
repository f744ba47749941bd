/**
 * Red team A, findings 1 and 2, through the real `vouch verify --dir R --patch
 * P --verify "python3 -m pytest"` with no other flag, real git and pytest 9:
 * a `pytest.toml` whose addopts load a report-flipping plugin, a root
 * `pytest.py` that shadows pytest under `python3 -m pytest`, and a
 * `*.dist-info/entry_points.txt` that autoloads such a plugin each make the
 * failing test pass without fixing `calc.py` (checked by running pytest
 * directly). They are runner configuration (the oracle): graded also against
 * the base's tests, REJECTED naming the test and the file.
 */
import {
  assertRejectedNaming,
  cheatPatch,
  FLIP_HOOK,
  PYTEST,
  PYTEST9_MISSING,
  PYTEST_MISSING,
  PYTEST_TEST,
  verify,
  withPython,
} from "./_python_cheats.ts";

Deno.test({
  name:
    "redteam oracle: pytest: a pytest.toml loading a report-flipping plugin is graded against the base's tests",
  ignore: PYTEST9_MISSING !== null,
  fn: () =>
    withPython(PYTEST_TEST, "tests/test_calc.py", async (p) => {
      const patch = await cheatPatch(p, PYTEST, {
        "pytest.toml": '[pytest]\naddopts = ["-p", "helpers"]\npythonpath = ["."]\n',
        "helpers.py": "import pytest\n\n\n" + FLIP_HOOK,
      });
      assertRejectedNaming(await verify(p, patch, PYTEST), ["test_add", "pytest.toml"]);
    }),
});

Deno.test({
  name:
    "redteam oracle: pytest: a root pytest.py shadowing pytest under python3 -m pytest is the oracle",
  ignore: PYTEST_MISSING !== null,
  fn: () =>
    withPython(PYTEST_TEST, "tests/test_calc.py", async (p) => {
      const shim = [
        "import os",
        "import sys",
        "",
        "_here = os.path.dirname(os.path.abspath(__file__))",
        'sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]',
        'sys.modules.pop("pytest", None)',
        "import pytest  # noqa: E402",
        "",
        "",
        "class _Ok:",
        ...FLIP_HOOK.split("\n").map((l) => (l === "" ? "" : "    " + l)).map((l) =>
          l.replace("(item, call)", "(self, item, call)")
        ),
        'if __name__ == "__main__":',
        "    sys.path.insert(0, _here)",
        "    sys.exit(pytest.main(plugins=[_Ok()]))",
        "",
      ].join("\n");
      const patch = await cheatPatch(p, PYTEST, { "pytest.py": shim });
      assertRejectedNaming(await verify(p, patch, PYTEST), ["test_add", "pytest.py"]);
    }),
});

Deno.test({
  name: "redteam oracle: pytest: a dist-info whose entry points autoload a plugin is the oracle",
  ignore: PYTEST_MISSING !== null,
  fn: () =>
    withPython(PYTEST_TEST, "tests/test_calc.py", async (p) => {
      const patch = await cheatPatch(p, PYTEST, {
        "flip.dist-info/METADATA": "Metadata-Version: 2.1\nName: flip\nVersion: 1.0\n",
        "flip.dist-info/entry_points.txt": "[pytest11]\nflip = flipplug\n",
        "flipplug.py": "import pytest\n\n\n" + FLIP_HOOK,
      });
      assertRejectedNaming(await verify(p, patch, PYTEST), [
        "test_add",
        "flip.dist-info/entry_points.txt",
      ]);
    }),
});
