/**
 * Red team rt2, finding 1: a top-level Python file named like a standard
 * library module (`argparse.py`, `inspect/__init__.py`) shadows the one pytest
 * and unittest import after startup under `python3 -m pytest` (the working
 * directory is first on `sys.path`): it is runner configuration (the oracle)
 * for the Python runners, top level only.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { ORACLE_RUNNERS, type OracleRunner, oracleSet } from "../../../kernel/oracle/mod.ts";
import { PY_STDLIB_MODULES } from "../../../kernel/oracle/_py_stdlib.ts";

const classify = (path: string, runners: readonly OracleRunner[]) =>
  oracleSet({ paths: [], runners }).classify(path);
const STD = /^shadows the standard library module (\S+) \(cwd is first on sys\.path\)$/;

Deno.test("the stdlib list is sys.stdlib_module_names: what pytest and unittest import, no test package", () => {
  // What `python3 -X importtime -m pytest --version` (pytest 9.0.3, Python 3.11.7) imports first.
  for (
    const m of [
      "argparse",
      "inspect",
      "ast",
      "dataclasses",
      "pprint",
      "difflib",
      "tempfile",
      "json",
      "unittest",
      "traceback",
      "_colorize", // 3.13's unittest and traceback
      "tomllib",
      "importlib",
      "enum",
    ]
  ) assert.ok(PY_STDLIB_MODULES.has(m), m);
  for (const m of ["test", "tests", "pytest", "_pytest", "pluggy", "calc", "src", "conftest"]) {
    assert.ok(!PY_STDLIB_MODULES.has(m), m);
  }
  assert.equal(PY_STDLIB_MODULES.size, 320);
});

Deno.test("a top-level argparse.py or a stdlib-named package is the oracle for pytest and unittest", () => {
  const cases: [string, string][] = [
    ["argparse.py", "argparse"],
    ["inspect.py", "inspect"],
    ["difflib.py", "difflib"],
    ["json/__init__.py", "json"],
    ["json/decoder.py", "json"],
    ["email/mime/text.py", "email"],
    ["_colorize.py", "_colorize"],
  ];
  for (const [path, mod] of cases) {
    for (const runners of [["pytest"], ["unittest"], ["pytest", "node"], []] as OracleRunner[][]) {
      const e = classify(path, runners);
      assert.equal(e?.scope, "file", `${path} ${runners}`);
      const why = e!.reasons.map((r) => STD.exec(r)?.[1]).filter((x) => x !== undefined);
      assert.deepEqual(why, [mod], `${path} ${runners}: ${e!.reasons}`);
    }
  }
  // unittest keeps the runner's own reason (it is both).
  assert.ok(
    classify("unittest.py", ["unittest"])!.reasons.some((r) => /runner's module unittest/.test(r)),
  );
});

Deno.test("not the stdlib's: nested modules, other runners, non-Python files, near names", () => {
  for (
    const path of [
      "pkg/json.py", // the repository's own module (only the cwd is first on sys.path)
      "src/argparse.py",
      "src/json/__init__.py",
      "lib/python3.11/argparse.py",
      "argparse", // no .py: no module
      "argparse.txt",
      "argparse.pyc.txt",
      "json/schema.json", // data, not Python source
      "types/index.d.ts",
      "html/index.html",
      "argparse_helpers.py",
      "myjson.py",
      "calc.py",
    ]
  ) {
    assert.equal(classify(path, ["pytest"]), null, path);
    assert.equal(classify(path, ["unittest"]), null, path);
  }
  // A JS or Go project's argparse.py, json/x.py: not its runner's.
  for (const runners of [["node"], ["jest"], ["go"], ["deno"], ["cargo"]] as OracleRunner[][]) {
    assert.equal(classify("argparse.py", runners), null, String(runners));
    assert.equal(classify("json/x.py", runners), null, String(runners));
  }
});

const ident = fc.stringMatching(/^[a-z_][a-z0-9_]{0,10}$/);
const stdName = fc.constantFrom(...PY_STDLIB_MODULES);
const tail = fc.array(ident, { minLength: 0, maxLength: 3 }).map((s) => s.join("/"));

Deno.test("property: <stdlib>.py and <stdlib>/**.py at top level are the oracle for pytest/unittest", () => {
  fc.assert(
    fc.property(
      stdName,
      tail,
      ident,
      fc.constantFrom<OracleRunner>("pytest", "unittest"),
      fc.subarray([...ORACLE_RUNNERS]),
      (mod, dirs, file, py, extra) => {
        const runners = [...new Set<OracleRunner>([py, ...extra])];
        for (const path of [`${mod}.py`, [mod, dirs, `${file}.py`].filter(Boolean).join("/")]) {
          const e = classify(path, runners);
          assert.equal(e?.scope, "file", path);
          assert.equal(classify(path, [])?.scope, "file", path);
        }
      },
    ),
  );
});

Deno.test("property: a stdlib name one directory down, or no .py file, is not the stdlib's", () => {
  const plain = ident.filter((n) =>
    !PY_STDLIB_MODULES.has(n) &&
    !/test|spec|fixtures|snap|conf|setup|rc|pluggy|hooks|vouch|^vendor$|^pytest$|^_pytest$|^iniconfig$|mocks/
      .test(n)
  );
  fc.assert(
    // unittest/ is the runner's own package: every file below it is the oracle.
    fc.property(plain, stdName, fc.constantFrom(".txt", ".json", ".md", ""), (dir, mod, ext) => {
      assert.equal(classify(`${dir}/${mod}.py`, ["pytest"]), null, `${dir}/${mod}.py`);
      assert.equal(classify(`${dir}/${mod}/core.py`, ["pytest"]), null, `${dir}/${mod}/core.py`);
      if (mod !== "unittest") {
        assert.equal(classify(`${mod}/data${ext}`, ["pytest"]), null, `${mod}/data${ext}`);
      }
    }),
  );
});

Deno.test("property: a top-level name that is no stdlib (nor runner) module is plain source", () => {
  const plain = ident.filter((n) =>
    !PY_STDLIB_MODULES.has(n) &&
    !/test|spec|fixtures|snap|conf|setup|rc|pluggy|hooks|vouch|^vendor$|^pytest$|^_pytest$|^iniconfig$|mocks|customize/
      .test(n)
  );
  fc.assert(
    fc.property(plain, (n) => {
      assert.equal(classify(`${n}.py`, ["pytest", "unittest"]), null, `${n}.py`);
      assert.equal(classify(`${n}/__init__.py`, ["pytest", "unittest"]), null, n);
    }),
  );
});
