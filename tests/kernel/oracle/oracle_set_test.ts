import assert from "node:assert/strict";
import fc from "fast-check";
import {
  ORACLE_RUNNERS,
  type OracleRunner,
  oracleSet,
  testKeysChange,
} from "../../../kernel/oracle/mod.ts";

const reason = (set: ReturnType<typeof oracleSet>, path: string) => set.classify(path)?.reasons;

Deno.test("the issue's cheat files are the oracle, with reasons; source is not", () => {
  const set = oracleSet({
    paths: [
      "src/calc.js",
      "test/calc.test.js",
      "test/support/env.js",
      ".travis.yml",
      "package.json",
    ],
    runners: ["mocha"],
    configs: {
      "package.json": JSON.stringify({ scripts: { test: "mocha --require test/support/env.js" } }),
    },
  });
  assert.deepEqual(set.entries.map((e) => e.path), [
    ".travis.yml",
    "package.json",
    "test/calc.test.js",
    "test/support/env.js",
  ]);
  assert.deepEqual(reason(set, ".travis.yml"), ["CI config"]);
  assert.ok(reason(set, "test/support/env.js")!.includes(
    "--require support file (package.json scripts.test)",
  ));
  assert.equal(set.classify("package.json")?.scope, "test-keys");
  // New files a patch adds.
  assert.deepEqual(reason(set, ".mocharc.js"), ["mocha config"]);
  assert.equal(set.classify("src/calc.js"), null);
  assert.equal(set.classify("README.md"), null);
});

Deno.test("support files named by each runner's configuration", () => {
  const set = oracleSet({
    paths: [],
    runners: ["mocha", "jest", "vitest", "pytest", "cargo", "deno"],
    configs: {
      ".mocharc.yml": "require:\n  - ./lib/hooks.js\nspec: 'spec-files/**/*.{js,mjs}'\n",
      "jest.config.js":
        "module.exports = {\n  setupFilesAfterEnv: ['<rootDir>/jest/after-env.ts'],\n  globalSetup: './jest/global.js',\n};\n",
      "web/vitest.config.ts":
        "export default defineConfig({ test: { setupFiles: ['./vitest.setup.ts', 'helpers/dom.ts'] } })\n",
      "pyproject.toml":
        '[tool.pytest.ini_options]\ntestpaths = ["checks"]\npython_files = ["check_*.py"]\naddopts = "-p myplugin -q"\n',
      "Cargo.toml": '[package]\nname = "x"\n\n[[test]]\nname = "it"\npath = "integration/it.rs"\n',
      "deno.json": '{ "test": { "include": ["qa/"] } }',
    },
  });
  const has = (path: string, what: RegExp) => {
    const r = set.classify(path);
    assert.ok(r !== null && r.reasons.some((x) => what.test(x)), `${path}: ${r?.reasons}`);
  };
  has("lib/hooks.js", /mocha --require support file \(\.mocharc\.yml\)/);
  has("spec-files/deep/a.mjs", /mocha spec/);
  has("jest/after-env.ts", /jest setupFilesAfterEnv/);
  has("jest/global.js", /jest globalSetup/);
  has("web/vitest.setup.ts", /vitest/);
  has("web/helpers/dom.ts", /vitest setupFiles/);
  has("pkg/check_math.py", /pytest python_files/);
  has("myplugin.py", /pytest plugin \(-p\)/);
  has("src/myplugin/__init__.py", /pytest plugin/);
  has("integration/it.rs", /cargo \[\[test\]\]/);
  has("deep/dir/conftest.py", /conftest\.py/);
  assert.equal(set.classify("checks/util.py"), null, "testpaths scope conventions, not every file");
  assert.equal(set.classify("lib/other.js"), null);
});

Deno.test("each runner's conventions", () => {
  const cases: [OracleRunner, string, boolean][] = [
    ["node", "test/calc.test.js", true],
    ["node", "lib/test.js", true],
    ["node", "lib/test-calc.mjs", true],
    ["node", "lib/calc.js", false],
    ["jest", "src/__tests__/calc.ts", true],
    ["jest", "src/calc.spec.tsx", true],
    ["jest", "src/__snapshots__/calc.spec.tsx.snap", true],
    ["vitest", "src/calc.test.mts", true],
    ["deno", "kernel/x_test.ts", true],
    ["deno", "kernel/x.ts", false],
    ["pytest", "pkg/test_calc.py", true],
    ["pytest", "pkg/calc_test.py", true],
    ["pytest", "pkg/testing.py", false],
    ["unittest", "pkg/testing.py", true],
    ["go", "calc/calc_test.go", true],
    ["go", "calc/testdata/in.txt", true],
    ["go", "calc/calc.go", false],
    ["cargo", "tests/it.rs", true],
    ["cargo", "src/lib.rs", false],
    ["cargo", ".cargo/config.toml", true],
  ];
  for (const [runner, path, want] of cases) {
    assert.equal(
      oracleSet({ paths: [path], runners: [runner] }).entries.length === 1,
      want,
      `${runner} ${path}`,
    );
  }
});

Deno.test("baseline ids place the oracle: a test file outside the conventions, doctests in source", () => {
  const set = oracleSet({
    paths: ["qa/checks.py", "src/pkg/mod.py", "e2e/flow.js"],
    runners: ["pytest"],
    baselineTests: [
      "qa/checks.py::test_add",
      "src/pkg/mod.py::pkg.mod.add",
      { id: "flow works", file: "e2e/flow.js" },
    ],
  });
  assert.deepEqual(set.entries.map((e) => [e.path, e.scope]), [
    ["e2e/flow.js", "file"],
    ["qa/checks.py", "file"],
    ["src/pkg/mod.py", "tests-inside"],
  ]);
});

Deno.test("test-defining keys: package.json, pyproject.toml, setup.cfg, tox.ini, Cargo.toml", () => {
  const pkg = (scripts: Record<string, string>, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ name: "x", scripts, ...extra });
  const base = pkg({ test: "npm run unit", unit: "mocha", lint: "eslint ." });
  assert.deepEqual(
    testKeysChange(
      "package.json",
      base,
      pkg({ test: "npm run unit", unit: "mocha --bail", lint: "eslint ." }),
    )
      .keys,
    ["scripts.unit"],
  );
  assert.equal(
    testKeysChange("package.json", base, pkg({ test: "npm run unit", unit: "mocha", lint: "x" }))
      .changed,
    false,
  );
  assert.deepEqual(
    testKeysChange(
      "package.json",
      base,
      pkg({ test: "npm run unit", unit: "mocha", lint: "eslint ." }, {
        mocha: { require: "x.js" },
      }),
    ).keys,
    ["mocha"],
  );
  assert.equal(
    testKeysChange("package.json", base, "{oops").message,
    "package.json: not readable as JSON on one side",
  );
  assert.deepEqual(
    testKeysChange(
      "pyproject.toml",
      '[project]\nname = "x"\n[tool.pytest.ini_options]\naddopts = "-q"\n',
      '[project]\nname = "y"\n[tool.pytest.ini_options]\naddopts = "-q -k \'not test_add\'"\n',
    ).keys,
    ["[tool.pytest.ini_options]"],
  );
  assert.equal(
    testKeysChange("pyproject.toml", '[project]\nname = "x"\n', '[project]\nname = "y"\n').changed,
    false,
  );
  assert.equal(testKeysChange("tox.ini", "[flake8]\na=1\n", "[flake8]\na=2\n").changed, false);
  assert.equal(
    testKeysChange("tox.ini", "[testenv]\ncommands = pytest\n", "[testenv]\ncommands = true\n")
      .changed,
    true,
  );
  assert.equal(
    testKeysChange("Cargo.toml", '[dependencies]\na = "1"\n', '[dependencies]\na = "2"\n').changed,
    false,
  );
  assert.equal(testKeysChange("Cargo.toml", "[lib]\n", "[lib]\ntest = false\n").changed, true);
  assert.equal(testKeysChange("setup.cfg", null, "[tool:pytest]\n").message, "setup.cfg: created");
  // Comments and blank lines do not count as a change.
  assert.equal(
    testKeysChange("setup.cfg", "[tool:pytest]\nx = 1\n", "[tool:pytest]\n# note\n\nx = 1\n")
      .changed,
    false,
  );
});

// ---- properties ------------------------------------------------------------

const segment = fc.stringMatching(/^[a-z][a-z0-9_.-]{0,7}$/);
const anyPath = fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => s.join("/"));
const runnersArb = fc.subarray([...ORACLE_RUNNERS]);
const ciPath = fc.oneof(
  fc.constantFrom(
    ".gitlab-ci.yml",
    ".travis.yml",
    "appveyor.yml",
    "azure-pipelines.yml",
    "Jenkinsfile",
    ".pre-commit-config.yaml",
    "lefthook.yml",
  ),
  fc.tuple(fc.constantFrom(".github", ".circleci", ".husky"), anyPath).map(([d, p]) => `${d}/${p}`),
);
const configsArb = fc.dictionary(
  fc.constantFrom("package.json", ".mocharc.yml", "pytest.ini", "jest.config.js", "Cargo.toml"),
  fc.string({ maxLength: 80 }),
);

Deno.test("property: CI and hook config is always the oracle, whatever the runners and configs", () => {
  fc.assert(
    fc.property(ciPath, runnersArb, configsArb, (path, runners, configs) => {
      const e = oracleSet({ paths: [path], runners, configs }).classify(path);
      assert.ok(e !== null && e.scope === "file");
    }),
  );
});

Deno.test("property: monotone in the file list, independent of its order, agrees with classify", () => {
  fc.assert(
    fc.property(
      fc.array(fc.oneof(anyPath, ciPath), { maxLength: 12 }),
      fc.array(fc.oneof(anyPath, ciPath), { maxLength: 6 }),
      runnersArb,
      configsArb,
      fc.integer(),
      (paths, extra, runners, configs, seed) => {
        const small = oracleSet({ paths, runners, configs });
        const big = oracleSet({ paths: [...paths, ...extra], runners, configs });
        const bigByPath = new Map(big.entries.map((e) => [e.path, e]));
        for (const e of small.entries) assert.deepEqual(bigByPath.get(e.path), e);
        const shuffled = [...paths].sort((a, b) =>
          ((a.length * 31 + seed) % 7) - ((b.length * 31 + seed) % 7)
        );
        assert.deepEqual(
          oracleSet({ paths: shuffled.reverse(), runners, configs }).entries,
          small.entries,
        );
        assert.deepEqual(
          small.entries.map((e) => e.path),
          [...new Set(paths)].filter((p) => small.classify(p) !== null).sort(),
        );
      },
    ),
  );
});

Deno.test("property: a source file under src/ is never the oracle unless a config or the baseline names it", () => {
  const plain = fc.stringMatching(/^[a-z]{1,8}$/).filter((n) =>
    !/test|spec|conftest|fixtures|snap/.test(n)
  );
  const ext = fc.constantFrom(".js", ".ts", ".py", ".go", ".rs", ".mjs");
  fc.assert(
    fc.property(
      fc.array(plain, { minLength: 0, maxLength: 3 }),
      plain,
      ext,
      runnersArb,
      (dirs, name, e, runners) => {
        const path = ["src", ...dirs, name + e].join("/");
        const configs = {
          "package.json": JSON.stringify({ scripts: { test: "mocha --require test/env.js" } }),
          "pytest.ini": "[pytest]\naddopts = -q\ntestpaths = tests\n",
        };
        assert.equal(oracleSet({ paths: [path], runners, configs }).classify(path), null, path);
      },
    ),
  );
});

Deno.test("several versions of a config: what any of them names is the oracle", () => {
  const base = JSON.stringify({ scripts: { test: "mocha --require test/env.js" } });
  const patched = JSON.stringify({ scripts: { test: "mocha --require lib/setup.js" } });
  const set = oracleSet({
    paths: [],
    runners: ["mocha"],
    configs: { "package.json": [base, patched] },
  });
  assert.ok(set.classify("lib/setup.js") !== null);
  assert.ok(set.classify("test/env.js") !== null);
  assert.equal(
    oracleSet({ paths: [], runners: ["mocha"], configs: { "package.json": base } }).classify(
      "lib/setup.js",
    ),
    null,
  );
});

Deno.test("a check run through a task runner: its file defines the check", () => {
  const make = oracleSet({ paths: [], runners: [], command: "make test" });
  assert.deepEqual(make.classify("Makefile")?.reasons, [
    "defines the check (make, in the check command)",
  ]);
  const tox = oracleSet({ paths: [], runners: ["pytest"], command: "tox -e py311" });
  assert.equal(tox.classify("tox.ini")?.scope, "file");
  assert.equal(
    oracleSet({ paths: [], runners: ["pytest"], command: "pytest" }).classify("tox.ini")?.scope,
    "test-keys",
  );
  assert.equal(
    oracleSet({ paths: [], runners: [], command: "npm test" }).classify("Makefile"),
    null,
  );
});

/** Names an object's prototype answers to: a lookup table indexed by them must not. */
const PROTO_NAMES = ["valueOf", "constructor", "__proto__", "toString", "hasOwnProperty"];

Deno.test("words and directories named like Object.prototype members are nothing special", () => {
  // `TASK_FILES["valueOf"]` was Object.prototype.valueOf: "definer is not iterable" (seed 7).
  for (const name of PROTO_NAMES) {
    const set = oracleSet({
      paths: [`${name}/a.js`, `src/${name}.js`, name],
      runners: ["mocha", "pytest"],
      configs: { [name]: "[x]\n", "pytest.ini": `[pytest]\n${name} = 1\n` },
      command: `${name} ${name} && mocha -r ${name}`,
    });
    for (const e of set.entries) {
      for (const r of e.reasons) assert.equal(typeof r, "string", `${e.path}: ${String(r)}`);
    }
    assert.equal(set.classify(`${name}/a.js`), null);
    assert.equal(testKeysChange(name, "a", "b").changed, true);
  }
});

Deno.test("an unbalanced quote glues words into one path, resolved lexically inside the repository", () => {
  // The shell refuses this command; read as words, `" -r ../../etc/passwd` is the one
  // relative path `-r ../../etc/passwd`: the directory `-r ..`, up once, then `etc/passwd`,
  // which is inside the repository. Naming it is fail-closed (one more protected file).
  const set = oracleSet({
    paths: ["etc/passwd"],
    runners: ["mocha"],
    configs: {
      "package.json": JSON.stringify({
        scripts: { test: 'mocha --require " -r ../../etc/passwd' },
      }),
    },
  });
  assert.deepEqual(set.classify("etc/passwd")?.reasons, [
    "--require support file (package.json scripts.test)",
  ]);
  // Balanced, the same words name nothing inside: `../../etc/passwd` leaves the repository.
  const balanced = oracleSet({
    paths: ["etc/passwd"],
    runners: ["mocha"],
    configs: {
      "package.json": JSON.stringify({
        scripts: { test: "mocha --require x -r ../../etc/passwd" },
      }),
    },
  });
  assert.equal(balanced.classify("etc/passwd"), null);
});

Deno.test("property: hostile configs never throw and never name a path outside the repository", () => {
  // Quotes are left out of the random words: an unbalanced one glues the next words into one
  // path that may lexically land inside (the test above); this property is about `..`, `/`,
  // `<rootDir>/..` and prototype names, never reaching outside.
  const value = fc.oneof(
    fc.constantFrom(
      "../../etc/passwd",
      "/etc/passwd",
      "./ok.js",
      "<rootDir>/../x",
      "a/../../b",
      "{a,b}/**",
      "**",
      ...PROTO_NAMES,
    ),
    fc.string({ maxLength: 30 }).filter((s) => !s.includes("etc") && !/["']/.test(s)),
  );
  const pkg = fc.record({
    scripts: fc.record({
      test: fc.array(value, { maxLength: 4 }).map((v) => `mocha --require ${v.join(" -r ")}`),
    }),
    mocha: fc.record({ require: fc.array(value, { maxLength: 3 }), spec: value }),
    jest: fc.record({ setupFiles: fc.array(value, { maxLength: 3 }) }),
  }).map((o) => JSON.stringify(o));
  const inside = (p: string) =>
    p !== "" && !p.startsWith("/") &&
    !p.split("/").some((s) => s === ".." || s === "." || s === "");
  fc.assert(
    fc.property(pkg, fc.array(value, { maxLength: 4 }), anyPath, (pkgText, extra, probe) => {
      const set = oracleSet({
        paths: [probe, "etc/passwd", "ok.js"],
        runners: ["mocha", "jest"],
        configs: {
          "package.json": pkgText,
          ".mocharc.yml": `require:\n${extra.map((e) => `  - ${e}`).join("\n")}\n`,
          "pytest.ini": `[pytest]\naddopts = -p ${extra.join(" -p ")}\ntestpaths = ${
            extra.join(" ")
          }\n`,
        },
        command: `mocha ${extra.join(" ")}`,
      });
      for (const e of set.entries) {
        assert.ok(inside(e.path), e.path);
        for (const r of e.reasons) assert.equal(typeof r, "string");
      }
      // `../../etc/passwd`, `/etc/passwd`, `<rootDir>/../x` name nothing inside the repository.
      const loaded = set.classify("etc/passwd")?.reasons.filter((r) =>
        /support file|setupFiles|plugin/.test(r)
      );
      assert.deepEqual(loaded ?? [], []);
      assert.equal(
        set.classify("../etc/passwd")?.reasons.some((r) => /support/.test(r)) ?? false,
        false,
      );
    }),
  );
});
