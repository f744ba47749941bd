/**
 * Self-written fixtures in the shape of the real projects issue #19 was
 * found on (GitHub is out of reach, so their layout is reproduced, not their
 * code), as {@link RunnerShape}s for the helpers of `_runners.ts`:
 *
 * - express: `lib/`, tests named without a `.test` suffix (`test/utils.js`,
 *   `test/acceptance/*.js`), `npm test` = `mocha --require test/support/env
 *   --reporter spec --check-leaks test/ test/acceptance/`;
 * - picomatch: `lib/`, `test/*.js` (`test/api.calc.js`), `npm test` =
 *   `npm run mocha` with `mocha --reporter dot`;
 * - pallets/click: `src/` layout (a package), `tests/` with a `conftest.py`
 *   whose `runner` fixture invokes the CLI, `pyproject.toml`'s
 *   `[tool.pytest.ini_options]` (testpaths, pythonpath, filterwarnings),
 *   `pytest -q`.
 *
 * Each has a bug that makes one test fail, next to passing tests.
 *
 * @module
 */
import type { Edit, RunnerShape } from "./_runners.ts";

/** The real-project shapes. */
export type RealShapeName = "express" | "picomatch" | "click";

const JS_LIB = [
  '"use strict";',
  "",
  "exports.add = function add(a, b) {",
  "  return a - b;",
  "};",
  "",
  "exports.sub = function sub(a, b) {",
  "  return a - b;",
  "};",
  "",
].join("\n");

const JS_LIB_FIXED = JS_LIB.replace("return a - b;", "return a + b;");

function mochaFile(suite: string, lib: string, cases: [string, string][]): string {
  return [
    '"use strict";',
    "",
    'var assert = require("assert");',
    `var calc = require(${JSON.stringify(lib)});`,
    "",
    `describe(${JSON.stringify(suite)}, function () {`,
    ...cases.flatMap(([title, body]) => [
      `  it(${JSON.stringify(title)}, function () {`,
      `    ${body}`,
      "  });",
      "",
    ]),
    "});",
    "",
  ].join("\n");
}

const CLICK_CORE = [
  '"""A click-shaped command line: ``main(["add", "2", "3"])`` prints 5."""',
  "",
  "import sys",
  "",
  "",
  "def add(a, b):",
  "    return a - b",
  "",
  "",
  "def sub(a, b):",
  "    return a - b",
  "",
  "",
  'COMMANDS = {"add": add, "sub": sub}',
  "",
  "",
  "def main(args, out=sys.stdout):",
  "    name, a, b = args",
  '    out.write(f"{COMMANDS[name](int(a), int(b))}\\n")',
  "    return 0",
  "",
].join("\n");

/** The shape `name`. */
export function realShape(name: RealShapeName): RunnerShape {
  const readme = { "Readme.md": `# ${name}-shaped calc\n` };
  switch (name) {
    case "express":
      return {
        runner: "mocha",
        verify: "npm test",
        files: {
          ...readme,
          "package.json": JSON.stringify(
            {
              name: "express-shaped",
              version: "5.0.0",
              private: true,
              devDependencies: { mocha: "10.8.2" },
              scripts: {
                test:
                  "mocha --require test/support/env --reporter spec --check-leaks test/ test/acceptance/",
              },
            },
            null,
            2,
          ) + "\n",
          "index.js": "'use strict';\n\nmodule.exports = require('./lib/utils');\n",
          "lib/utils.js": JS_LIB,
          "test/support/env.js":
            "process.env.NODE_ENV = 'test';\nprocess.env.NO_DEPRECATION = 'express';\n",
          "test/utils.js": mochaFile("utils", "../lib/utils", [
            ["subtracts", "assert.strictEqual(calc.sub(5, 3), 2);"],
          ]),
          "test/acceptance/calc.js": mochaFile("calc acceptance", "../../", [
            ["adds", "assert.strictEqual(calc.add(2, 3), 5);"],
            ["subtracts again", "assert.strictEqual(calc.sub(9, 4), 5);"],
          ]),
        },
        testFile: "test/acceptance/calc.js",
        failing: "adds",
        source: "lib/utils.js",
        fixedSource: JS_LIB_FIXED,
        npm: true,
      };
    case "picomatch":
      return {
        runner: "mocha-dot",
        verify: "npm test",
        files: {
          ...readme,
          "package.json": JSON.stringify(
            {
              name: "picomatch-shaped",
              version: "4.0.0",
              private: true,
              main: "index.js",
              devDependencies: { mocha: "10.8.2" },
              scripts: { mocha: "mocha --reporter dot", test: "npm run mocha" },
            },
            null,
            2,
          ) + "\n",
          "index.js": "'use strict';\n\nmodule.exports = require('./lib/calc');\n",
          "lib/calc.js": JS_LIB,
          "test/api.calc.js": mochaFile("calc", "..", [
            ["adds", "assert.strictEqual(calc.add(2, 3), 5);"],
            ["subtracts", "assert.strictEqual(calc.sub(5, 3), 2);"],
          ]),
          "test/api.sub.js": mochaFile("sub", "..", [
            ["subtracts negatives", "assert.strictEqual(calc.sub(-5, -3), -2);"],
          ]),
        },
        testFile: "test/api.calc.js",
        failing: "adds",
        source: "lib/calc.js",
        fixedSource: JS_LIB_FIXED,
        npm: true,
      };
    case "click":
      return {
        runner: "pytest",
        verify: "pytest -q",
        files: {
          ...readme,
          "pyproject.toml": [
            "[project]",
            'name = "clicky"',
            'version = "8.2.0"',
            'requires-python = ">=3.10"',
            "",
            "[tool.pytest.ini_options]",
            'testpaths = ["tests"]',
            'pythonpath = ["src"]',
            'filterwarnings = ["error"]',
            "",
          ].join("\n"),
          "src/clicky/__init__.py": 'from .core import main\n\n__all__ = ["main"]\n',
          "src/clicky/core.py": CLICK_CORE,
          "src/clicky/testing.py": [
            "import io",
            "",
            "",
            "class Result:",
            "    def __init__(self, exit_code, output):",
            "        self.exit_code = exit_code",
            "        self.output = output",
            "",
            "",
            "class CliRunner:",
            "    def invoke(self, main, args):",
            "        out = io.StringIO()",
            "        return Result(main(args, out=out), out.getvalue())",
            "",
          ].join("\n"),
          "tests/conftest.py": [
            "import pytest",
            "",
            "from clicky.testing import CliRunner",
            "",
            "",
            '@pytest.fixture(scope="function")',
            "def runner(request):",
            "    return CliRunner()",
            "",
          ].join("\n"),
          "tests/test_basic.py": [
            "from clicky import main",
            "",
            "",
            "def test_basic_add(runner):",
            '    result = runner.invoke(main, ["add", "2", "3"])',
            "    assert result.exit_code == 0",
            '    assert result.output == "5\\n"',
            "",
            "",
            "def test_basic_sub(runner):",
            '    result = runner.invoke(main, ["sub", "5", "3"])',
            '    assert result.output == "2\\n"',
            "",
          ].join("\n"),
          "tests/test_utils.py": [
            "from clicky.core import sub",
            "",
            "",
            "def test_sub_negative():",
            "    assert sub(-5, -3) == -2",
            "",
          ].join("\n"),
        },
        testFile: "tests/test_basic.py",
        failing: "test_basic_add",
        source: "src/clicky/core.py",
        fixedSource: CLICK_CORE.replace("    return a - b", "    return a + b"),
        npm: false,
      };
  }
}

/** The honest fix of a shape: its source only. */
export function realFix(shape: RunnerShape): Edit {
  return { write: { [shape.source]: shape.fixedSource } };
}
