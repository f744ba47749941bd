/**
 * The structured reports vouch adds, against the REAL runners: node --test
 * (through `npm test`), pytest -q, mocha 10 (spec and dot) and vitest. For
 * each: stdout is what it is without vouch's additions (durations aside), and
 * the report's ids are the text parser's ids of the same run, including the
 * passing ids the quiet reporters hide. A runner that is absent skips with a
 * printed reason.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { reportFromOutcomes } from "../../../kernel/contract/mod.ts";
import type { TestFormat } from "../../../kernel/contract/mod.ts";
import { parseFailingTests } from "../../../adapters/test_failures/mod.ts";
import {
  readReport,
  structuredReportPlan,
  TestResultsError,
} from "../../../adapters/test_results/mod.ts";
import { denoTaskOf } from "../../../adapters/test_results/deno_task.ts";

function denoTaskOfText(configs: ReadonlyMap<string, string>, name: string): string | null {
  const t = denoTaskOf(configs, name);
  return t.ok ? t.command : null;
}

const RUNNERS = join(dirname(fileURLToPath(import.meta.url)), "../../fixtures/runners");
const BIN = join(RUNNERS, "node_modules/.bin");
const VITEST = join(RUNNERS, "vitest/node_modules");

function which(cmd: string): boolean {
  return new Deno.Command("sh", { args: ["-c", `command -v ${cmd}`], stdout: "null" })
    .outputSync().success;
}

async function sh(cwd: string, command: string, env: Record<string, string> = {}) {
  const out = await new Deno.Command("sh", {
    args: ["-c", command],
    cwd,
    env: {
      ...env,
      PATH: `${BIN}:${VITEST}/.bin:${Deno.env.get("PATH")}`,
      NO_COLOR: "1",
      FORCE_COLOR: "0",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

/** Output with durations (and other run-to-run noise) removed. */
function steady(s: string): string {
  return s
    // A runner prints a test's duration only past its "slow" mark (mocha: half of 75 ms), which
    // a loaded box crosses in one run and not the other: the duration goes, with its space.
    .replace(/ ?\(\d+(?:\.\d+)?\s*m?s\)/g, "")
    .replace(/duration_ms:? [0-9.]+/g, "duration_ms T")
    // pytest adds the h:mm:ss form past a minute ("in 155.00s (0:02:35)"), as one run of two
    // reached on a loaded box.
    .replace(/ in [0-9.]+s\b(?: \(\d+:\d\d:\d\d\))?/g, " in Ts")
    // pytest centres its summary in "=" to the terminal's width: one more digit in the time
    // ("in 9.8s" -> "in 10.2s") takes one "=" off, as a loaded box showed.
    .replace(/^=+ (.+?) =+$/gm, "= $1 =")
    .replace(/\b\d+(?:\.\d+)?ms\b/g, "Tms")
    .replace(/Start at .*|Duration .*/g, "")
    .replace(/\/tmp\/vouch-rr-[^/\s]+/g, "<dir>");
}

interface Case {
  readonly format: TestFormat;
  readonly command: string;
  readonly files: Record<string, string>;
  /** Link the fixtures' node_modules into the tree (for `import "vitest"`). */
  readonly nodeModules?: boolean;
  /** The base's `deno.json` tasks, for a `deno task` check. */
  readonly denoConfigs?: ReadonlyMap<string, string>;
}

/** Runs `c` bare and with the plan; returns the with-plan run, its outcomes and the text report. */
async function runBoth(c: Case) {
  const dir = await mkdtemp(join(tmpdir(), "vouch-rr-"));
  try {
    for (const [p, text] of Object.entries(c.files)) {
      await mkdir(dirname(join(dir, p)), { recursive: true });
      await writeFile(join(dir, p), text);
    }
    if (c.nodeModules) await symlink(VITEST, join(dir, "node_modules"));
    const bare = await sh(dir, c.command);
    const reportDir = join(dir, ".vouch-report");
    await mkdir(reportDir);
    const configs = c.denoConfigs;
    const r = structuredReportPlan({
      command: c.command,
      format: c.format,
      reportDir,
      ...(configs !== undefined ? { denoTask: (name) => denoTaskOfText(configs, name) } : {}),
    });
    assert.ok(r.ok, r.ok ? "" : r.reason);
    for (const f of r.plan.files) await writeFile(f.path, f.content);
    const command = r.plan.command ?? c.command;
    const run = await sh(dir, command, { ...r.plan.env });
    assert.equal(run.code, bare.code, "the exit code is the same");
    if (r.plan.command === null) {
      // pytest's junitxml plugin adds one line naming the file; nothing else may differ.
      const own = steady(run.stdout).replace(/^-+ generated xml file: .* -+\n/m, "");
      assert.equal(own, steady(bare.stdout), "stdout is the same");
    }
    const text = await readFile(r.plan.reportPath, "utf8");
    const outcomes = readReport(r.plan, text, { root: dir });
    const log = `${run.stdout}\n${run.stderr}`;
    return { bare, run, log, outcomes, structured: reportFromOutcomes(outcomes) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const sorted = (xs: readonly string[] | undefined) => [...(xs ?? [])].sort();

Deno.test("node --test through npm test: NODE_OPTIONS adds a junit report, stdout unchanged, same ids", async () => {
  if (!which("node") || !which("npm")) return console.log("skipped: node/npm not on PATH");
  const res = await runBoth({
    format: "node",
    command: "npm test",
    files: {
      "package.json": JSON.stringify({
        name: "x",
        version: "1.0.0",
        scripts: { test: "node --test" },
      }),
      "test/calc.test.js": [
        'const { test, describe, it } = require("node:test");',
        'const assert = require("node:assert");',
        "test('adds', () => assert.equal(1 + 1, 3));",
        "test('subs', () => assert.equal(1 - 1, 0));",
        "test.skip('skipped one', () => {});",
        "describe('math', () => { it('muls', () => {}); describe('deep', () => { it('divs', () => assert.fail('x')); }); });",
        "",
      ].join("\n"),
      "test/other.test.js": "require('node:test')('other passes', () => {});\n",
    },
  });
  const text = parseFailingTests("node", res.log);
  assert.deepEqual(sorted(res.structured.failing), ["adds", "math > deep > divs"]);
  assert.deepEqual(sorted(res.structured.failing), sorted(text.failing));
  assert.deepEqual(sorted(res.structured.passing), ["math > muls", "other passes", "subs"]);
  assert.deepEqual(sorted(res.structured.passing), sorted(text.passing));
  assert.deepEqual(res.structured.skipped, ["skipped one"]);
});

Deno.test("pytest -q: PYTEST_ADDOPTS adds --junitxml; the report names the passing tests -q hides", async () => {
  let python: string | null = null;
  for (const p of ["python3", "/usr/bin/python3"]) {
    if (python === null && (await sh("/", `${p} -m pytest --version`)).code === 0) python = p;
  }
  if (python === null) return console.log("skipped: no python3 with pytest (apt python3-pytest)");
  const files = {
    "tests/test_calc.py": [
      "import pytest",
      "def test_add():\n    assert 1 + 1 == 3",
      "def test_sub():\n    assert 1 - 1 == 0",
      "@pytest.mark.skip(reason='no')\ndef test_skip():\n    pass",
      "@pytest.mark.parametrize('x', [1, 2])\ndef test_param(x):\n    assert x",
      "class TestCls:\n    def test_m(self):\n        assert True",
      "",
    ].join("\n"),
  };
  const quiet = await runBoth({ format: "pytest", command: `${python} -m pytest -q`, files });
  const text = parseFailingTests("pytest", quiet.log);
  assert.deepEqual(text.failing, ["tests/test_calc.py::test_add"]);
  assert.deepEqual(text.passing, [], "-q shows no passing ids");
  assert.deepEqual(quiet.structured.failing, text.failing);
  const passing = [
    "tests/test_calc.py::TestCls::test_m",
    "tests/test_calc.py::test_param[1]",
    "tests/test_calc.py::test_param[2]",
    "tests/test_calc.py::test_sub",
  ];
  assert.deepEqual(sorted(quiet.structured.passing), passing);
  assert.deepEqual(quiet.structured.skipped, ["tests/test_calc.py::test_skip"]);
  // The verbose text parser names the same passing ids.
  const verbose = await runBoth({ format: "pytest", command: `${python} -m pytest -v`, files });
  assert.deepEqual(sorted(parseFailingTests("pytest", verbose.log).passing), passing);
});

const MOCHA_FILES = {
  "test/calc.js": [
    "const assert = require('assert');",
    "describe('calc', function () {",
    "  it('adds', function () { assert.equal(1 + 1, 3); });",
    "  it('subs', function () { assert.equal(1 - 1, 0); });",
    "  it.skip('skips', function () {});",
    "  describe('deep', function () { it('muls', function () {}); });",
    "});",
    "",
  ].join("\n"),
};

for (const reporter of ["spec", "dot"]) {
  Deno.test(`mocha 10 --reporter ${reporter}: vouch's hook records every outcome, output unchanged`, async () => {
    if (!existsSync(join(BIN, "mocha"))) {
      return console.log(
        "skipped: tests/fixtures/runners not installed (npm ci --prefix tests/fixtures/runners)",
      );
    }
    const res = await runBoth({
      format: "mocha",
      command: `mocha --reporter ${reporter}`,
      files: MOCHA_FILES,
    });
    const text = parseFailingTests("mocha", res.log);
    assert.deepEqual(res.structured.failing, ["calc adds"]);
    assert.deepEqual(res.structured.failing, text.failing);
    assert.deepEqual(sorted(res.structured.passing), ["calc deep muls", "calc subs"]);
    if (reporter === "spec") assert.deepEqual(sorted(text.passing), sorted(res.structured.passing));
    else assert.deepEqual(text.passing, [], "dot hides passing ids; the hook does not");
    assert.deepEqual(res.structured.skipped, ["calc skips"]);
    assert.deepEqual(res.outcomes.map((o) => o.file), [
      "test/calc.js",
      "test/calc.js",
      "test/calc.js",
      "test/calc.js",
    ]);
  });
}

Deno.test("mocha 10 --parallel: each test once, from the main process", async () => {
  if (!existsSync(join(BIN, "mocha"))) {
    return console.log("skipped: tests/fixtures/runners not installed");
  }
  const res = await runBoth({
    format: "mocha",
    command: "mocha --parallel --reporter dot",
    files: { ...MOCHA_FILES, "test/more.js": "it('more one', function () {});\n" },
  });
  assert.deepEqual(res.outcomes.map((o) => o.id).sort(), [
    "calc adds",
    "calc deep muls",
    "calc skips",
    "calc subs",
    "more one",
  ]);
  assert.equal(res.structured.ran, 4);
});

Deno.test("mocha through npm test with a .mocharc and two runs in one command: both runs are reported", async () => {
  if (!existsSync(join(BIN, "mocha"))) {
    return console.log("skipped: tests/fixtures/runners not installed");
  }
  const res = await runBoth({
    format: "mocha",
    command: "npm test",
    files: {
      ...MOCHA_FILES,
      "package.json": JSON.stringify({
        name: "x",
        version: "1.0.0",
        scripts: { test: "mocha --reporter dot; mocha --reporter dot other" },
      }),
      ".mocharc.yml": "spec: test/*.js\n",
      "other/x.js": "it('other one', function () {});\n",
    },
  });
  // The second run has the .mocharc spec and its own: 3 + 4 tests ran, over two report lines.
  assert.ok(res.structured.passing?.includes("calc subs"));
  assert.ok(res.structured.passing?.includes("other one"));
  assert.equal(res.structured.ran, 7);
});

Deno.test("vitest run: the appended junit reporter names the tests as the text parser does", async () => {
  if (!existsSync(join(VITEST, ".bin/vitest"))) {
    return console.log("skipped: tests/fixtures/runners not installed");
  }
  const res = await runBoth({
    format: "vitest",
    command: "vitest run",
    nodeModules: true,
    files: {
      "package.json": JSON.stringify({ name: "x", version: "1.0.0", type: "module" }),
      "test/calc.test.js": [
        "import { describe, it, expect } from 'vitest';",
        "describe('calc', () => {",
        "  it('adds', () => expect(1 + 1).toBe(3));",
        "  it('subs', () => expect(1 - 1).toBe(0));",
        "  it.skip('skips', () => {});",
        "});",
        "",
      ].join("\n"),
    },
  });
  const text = parseFailingTests("vitest", res.log);
  assert.deepEqual(res.structured.failing, ["test/calc.test.js > calc > adds"]);
  assert.deepEqual(res.structured.failing, text.failing);
  assert.deepEqual(res.structured.passing, ["test/calc.test.js > calc > subs"]);
  assert.deepEqual(res.structured.skipped, ["test/calc.test.js > calc > skips"]);
  // The text parser names the passing and skipped tests it shows with their file too.
  assert.deepEqual(text.passing, res.structured.passing);
  assert.deepEqual(text.skipped, res.structured.skipped);
});

Deno.test("node 20's junit drops a failure in the body of a test with subtests: the report is refused as incomplete", async () => {
  if (!which("node")) return console.log("skipped: node not on PATH");
  const dir = await mkdtemp(join(tmpdir(), "vouch-rr-"));
  try {
    await writeFile(
      join(dir, "p.test.js"),
      "const { test } = require('node:test');\n" +
        "test('parent', async (t) => { await t.test('child ok', () => {}); throw new Error('own body'); });\n",
    );
    const r = structuredReportPlan({ command: "node --test", format: "node", reportDir: dir });
    assert.ok(r.ok);
    const run = await sh(dir, "node --test", { ...r.plan.env });
    assert.equal(run.code, 1);
    const report = await readFile(r.plan.reportPath, "utf8");
    assert.throws(
      () => readReport(r.plan, report),
      (e) => e instanceof TestResultsError && e.code === "report_incomplete",
    );
    // The text parser sees it: the fallback names the failing test.
    assert.deepEqual(parseFailingTests("node", run.stdout).failing, ["parent"]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("deno test: --junit-path names the tests (steps too) as the text parser does, stdout unchanged", async () => {
  const deno = `'${Deno.execPath()}' test --no-check`;
  const files = {
    "deno.json": '{ "lock": false }\n',
    "calc_test.ts": [
      'Deno.test("adds", () => { throw new Error("add broken"); });',
      'Deno.test("group", async (t) => {',
      '  await t.step("inner ok", () => {});',
      '  await t.step("inner bad", () => { throw new Error("x"); });',
      '  await t.step({ name: "inner off", ignore: true, fn() {} });',
      "});",
      'Deno.test({ name: "off", ignore: true, fn() {} });',
      "",
    ].join("\n"),
    "tests/mul_test.ts": 'Deno.test("muls", () => {});\nDeno.test("a > b", () => {});\n',
    // A file that exits as it loads: its test never runs, and is in no report.
    "exits_test.ts": 'Deno.exit(0);\nDeno.test("never", () => {});\n',
  };
  const res = await runBoth({ format: "deno", command: deno, files });
  assert.equal(res.run.code, 1);
  // deno colours its output here (FORCE_COLOR is set) and times tests in µs too.
  const plain = (t: string) =>
    // deno-lint-ignore no-control-regex
    t.replace(/\x1b\[[0-9;]*m/g, "").replace(/ ?\(\d+(?:\.\d+)?(?:µs|ms|s)\)/g, "");
  assert.equal(plain(res.run.stdout), plain(res.bare.stdout), "stdout is the same");
  const text = parseFailingTests("deno", res.log);
  assert.deepEqual(sorted(res.structured.failing), ["adds", "group", "group ... inner bad"]);
  assert.deepEqual(sorted(res.structured.failing), sorted([...text.failing, "group"]));
  assert.deepEqual(sorted(res.structured.passing), ["a > b", "group ... inner ok", "muls"]);
  assert.deepEqual(sorted(res.structured.passing), sorted(text.passing));
  assert.deepEqual(sorted(res.structured.skipped), ["group ... inner off", "off"]);
  assert.ok(!res.outcomes.some((o) => o.id === "never"));
  assert.deepEqual(
    [...new Set(res.outcomes.map((o) => o.file))].sort(),
    ["calc_test.ts", "tests/mul_test.ts"],
  );
});

Deno.test("deno task: --junit-path after the task's name reaches deno test; stdout unchanged, same ids", async () => {
  const config = '{ "lock": false, "tasks": { "test": { "command": "deno test --no-check" } } }\n';
  const files = {
    "deno.json": config,
    "calc_test.ts": 'Deno.test("adds", () => { throw new Error("add broken"); });\n',
    "mul_test.ts": 'Deno.test("muls", () => {});\n',
    // A file that exits as it loads: its test never runs, and is in no report.
    "exits_test.ts": 'Deno.exit(0);\nDeno.test("never", () => {});\n',
  };
  const res = await runBoth({
    format: "deno",
    command: `'${Deno.execPath()}' task test`,
    files,
    denoConfigs: new Map([["deno.json", config]]),
  });
  assert.equal(res.run.code, 1);
  // deno colours its output here (FORCE_COLOR is set) and times tests in µs too.
  const plain = (t: string) =>
    // deno-lint-ignore no-control-regex
    t.replace(/\x1b\[[0-9;]*m/g, "").replace(/ ?\(\d+(?:\.\d+)?(?:µs|ms|s)\)/g, "");
  assert.equal(plain(res.run.stdout), plain(res.bare.stdout), "stdout is the same");
  // deno task names the command it runs on stderr: the flag, appended by deno, is all that differs.
  assert.match(plain(res.run.stderr), /Task test deno test --no-check '--junit-path=[^']+'/);
  const text = parseFailingTests("deno", res.log);
  assert.deepEqual(sorted(res.structured.failing), ["adds"]);
  assert.deepEqual(sorted(res.structured.failing), sorted(text.failing));
  assert.deepEqual(sorted(res.structured.passing), ["muls"]);
  assert.deepEqual(sorted(res.structured.passing), sorted(text.passing));
  assert.ok(!res.outcomes.some((o) => o.id === "never"));
});
