/**
 * Red team A, findings 1 and 2: pytest 9's native TOML configs and the files
 * that shadow the runner or Python's startup are runner configuration (the
 * oracle), by the kernel's conventions alone.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { ORACLE_RUNNERS, type OracleRunner, oracleSet } from "../../../kernel/oracle/mod.ts";
import { oracleConfigPaths } from "../../../kernel/oracle/inputs.ts";

const classify = (path: string, runners: readonly OracleRunner[]) =>
  oracleSet({ paths: [], runners }).classify(path);

Deno.test("pytest.toml and .pytest.toml are pytest config, at any depth, like pytest.ini", () => {
  for (
    const path of ["pytest.toml", ".pytest.toml", "pkg/pytest.toml", "pytest.ini", ".pytest.ini"]
  ) {
    for (const runners of [["pytest"], []] as OracleRunner[][]) {
      const e = classify(path, runners);
      assert.equal(e?.scope, "file", `${path} ${runners}`);
      assert.ok(e!.reasons.includes("pytest config"), `${path}: ${e!.reasons}`);
    }
  }
  assert.equal(classify("pytest.toml", ["mocha"]), null, "another runner's project");
  assert.equal(classify("pytest.tomlx", ["pytest"]), null);
});

Deno.test("what pytest.toml and pyproject's native [tool.pytest] name is the oracle", () => {
  const set = oracleSet({
    paths: [],
    runners: ["pytest"],
    configs: {
      "pytest.toml": '[pytest]\naddopts = ["-p", "helpers"]\npython_files = ["check_*.py"]\n',
      ".pytest.toml": '[pytest]\naddopts = ["-p", "dotplug"]\n',
      "pyproject.toml": '[tool.pytest]\naddopts = ["-p", "nativeplug"]\n',
    },
  });
  const has = (path: string, what: RegExp) => {
    const r = set.classify(path);
    assert.ok(r !== null && r.reasons.some((x) => what.test(x)), `${path}: ${r?.reasons}`);
  };
  has("helpers.py", /pytest plugin \(-p\) in addopts of pytest\.toml/);
  has("dotplug.py", /addopts of \.pytest\.toml/);
  has("nativeplug.py", /addopts of pyproject\.toml/);
  has("pkg/check_math.py", /pytest python_files \(pytest\.toml\)/);
  assert.deepEqual(
    oracleConfigPaths(["pytest.toml", ".pytest.toml", "a/pytest.toml", "src/x.py"]),
    [".pytest.toml", "a/pytest.toml", "pytest.toml"],
  );
});

Deno.test("top-level files that shadow the runner's own modules are the oracle", () => {
  const pytestShadows = [
    "pytest.py",
    "pytest/__init__.py",
    "pytest/__main__.py",
    "_pytest/main.py",
    "_pytest/__init__.py",
    "pluggy.py",
    "pluggy/__init__.py",
    "iniconfig.py",
    "unittest.py",
  ];
  for (const path of pytestShadows) {
    for (const runners of [["pytest"], []] as OracleRunner[][]) {
      const e = classify(path, runners);
      assert.equal(e?.scope, "file", `${path} ${runners}`);
      assert.ok(e!.reasons.some((r) => r.startsWith("shadows the runner's module")), `${path}`);
    }
  }
  for (const path of ["unittest.py", "unittest/__init__.py", "unittest/main.py"]) {
    assert.equal(classify(path, ["unittest"])?.scope, "file", path);
  }
  // The repository's own pytest (src layout), a plugin module inside a package, plain source.
  for (
    const path of [
      "src/_pytest/main.py",
      "src/pytest/__init__.py",
      "pkg/pytest.py",
      "pkg/pluggy.py",
      "pytest_helpers.py",
      "pytest", // a file without .py is no module
      "pluggy.txt",
      "calc.py",
    ]
  ) {
    assert.equal(classify(path, ["pytest"]), null, path);
  }
  assert.equal(classify("pytest.py", ["mocha"]), null, "a JS project's pytest.py is source");
});

Deno.test("python startup hooks, .pth files and package metadata are the oracle; conftest.py too", () => {
  const cases: [string, RegExp][] = [
    ["sitecustomize.py", /python startup hook/],
    ["lib/usercustomize.py", /python startup hook/],
    ["evil.pth", /\.pth file/],
    ["site/deep/x.pth", /\.pth file/],
    ["evil.dist-info/entry_points.txt", /entry points load pytest plugins/],
    ["src/pkg.egg-info/entry_points.txt", /entry points load pytest plugins/],
    ["conftest.py", /conftest\.py/],
    ["src/conftest.py", /conftest\.py/],
  ];
  for (const [path, why] of cases) {
    for (const runners of [["pytest"], []] as OracleRunner[][]) {
      const e = classify(path, runners);
      assert.ok(
        e !== null && e.reasons.some((r) => why.test(r)),
        `${path} ${runners}: ${e?.reasons}`,
      );
    }
  }
  assert.equal(classify("evil.pth", ["unittest"])?.scope, "file");
  assert.equal(classify("dist-info/x.txt", ["pytest"]), null);
  assert.equal(classify("x.pthx", ["pytest"]), null);
});

const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,7}$/);
const rest = fc.array(name, { minLength: 1, maxLength: 3 }).map((s) => s.join("/") + ".py");

Deno.test("property: everything below a top-level pytest/_pytest/pluggy package is the oracle for pytest", () => {
  fc.assert(
    fc.property(
      fc.constantFrom("pytest", "_pytest", "pluggy", "iniconfig", "unittest"),
      rest,
      fc.subarray([...ORACLE_RUNNERS]),
      (top, tail, extra) => {
        const path = `${top}/${tail}`;
        const runners: OracleRunner[] = [...new Set<OracleRunner>(["pytest", ...extra])];
        assert.equal(classify(path, runners)?.scope, "file", path);
        assert.equal(classify(path, [])?.scope, "file", path);
      },
    ),
  );
});

Deno.test("property: the same names one directory down are not the runner's (src layouts)", () => {
  fc.assert(
    fc.property(
      name.filter((n) => !/test|spec|fixtures|snap|conf|setup|rc|pluggy|hooks|vouch/.test(n)),
      fc.constantFrom("pytest", "_pytest", "pluggy", "iniconfig", "unittest"),
      (dir, top) => {
        assert.equal(classify(`${dir}/${top}/core.py`, ["pytest"]), null, `${dir}/${top}/core.py`);
        assert.equal(classify(`${dir}/${top}.py`, ["pytest"]), null, `${dir}/${top}.py`);
      },
    ),
  );
});

Deno.test("a Go or Deno project's top-level vendor/ is what its tests load: the oracle", () => {
  // deno.json's "vendor": true imports jsr:/npm:/https: modules from vendor/, unchecked.
  const std = classify("vendor/jsr.io/@std/assert/1.0.0/equals.ts", ["deno"]);
  assert.ok(std?.reasons.some((r) => /vendored dependency/.test(r)), `${std?.reasons}`);
  for (const runners of [["go"], []] as OracleRunner[][]) {
    const e = classify("vendor/github.com/stretchr/testify/assert/assertions.go", runners);
    assert.equal(e?.scope, "file", String(runners));
    assert.ok(e!.reasons.some((r) => /vendored dependency/.test(r)), `${e!.reasons}`);
  }
  assert.ok(classify("vendor/modules.txt", ["go"]) !== null);
  // Another runner's project, a nested vendor/ (another module's), a file named vendor: not it.
  assert.equal(classify("vendor/lib/x.js", ["node"]), null);
  assert.equal(classify("pkg/vendor/x.go", ["go"]), null);
  assert.equal(classify("vendor", ["go"]), null);
});
