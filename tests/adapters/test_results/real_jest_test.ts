/**
 * jest's structured report against the REAL jest 29 (tests/fixtures/runners/jest):
 * the `--json --outputFile` vouch appends leaves the exit code and jest's
 * reporter output (stderr) as they were (one more line naming the file, stdout
 * empty either way), and the report names every test as the jest text parser
 * names the ones it shows, including the passing ones the default (non-verbose)
 * reporter hides; a test file that cannot load is an error outcome named by
 * its file. Skips with a printed reason when jest is not installed.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { reportFromOutcomes } from "../../../kernel/contract/mod.ts";
import { parseFailingTests } from "../../../adapters/test_failures/mod.ts";
import {
  parseJestJson,
  readReport,
  structuredReportPlan,
  TestResultsError,
} from "../../../adapters/test_results/mod.ts";

const JEST = join(
  dirname(fileURLToPath(import.meta.url)),
  "../../fixtures/runners/jest/node_modules",
);
const missing = existsSync(join(JEST, ".bin/jest"))
  ? null
  : "jest is not installed: npm ci --prefix tests/fixtures/runners/jest";

async function sh(cwd: string, command: string) {
  const out = await new Deno.Command("sh", {
    args: ["-c", command],
    cwd,
    env: {
      PATH: `${JEST}/.bin:${Deno.env.get("PATH")}`,
      NO_COLOR: "1",
      FORCE_COLOR: "0",
      CI: "1",
      HOME: cwd,
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const d = new TextDecoder();
  return { code: out.code, stdout: d.decode(out.stdout), stderr: d.decode(out.stderr) };
}

/** jest's output without durations, blank lines and the order it finishes files in. */
/**
 * jest's output without what varies between two runs: durations (jest names a
 * file's time only when it ran past its slow threshold, 5 s, which a busy
 * machine reaches in one run and not the other), the `Time:` line, line order.
 */
function steady(s: string): string {
  return s.replace(/ ?\(\d+(?:\.\d+)?\s*m?s\)/g, "").replace(/^Time:.*$/m, "Time: T")
    .split("\n").filter((l) => l.trim() !== "").sort().join("\n");
}

const FILES: Record<string, string> = {
  "package.json": JSON.stringify({ name: "x", version: "1.0.0", scripts: { test: "jest" } }),
  "test/calc.test.js": [
    "const add = (a, b) => a - b;",
    "describe('calc', () => {",
    "  it('adds', () => expect(add(2, 3)).toBe(5));",
    "  it('subtracts', () => expect(5 - 3).toBe(2));",
    "  it.skip('skips', () => {});",
    "});",
    "",
  ].join("\n"),
  "test/mul.test.js": "test('multiplies', () => expect(2 * 3).toBe(6));\n",
  "test/broken.test.js": "require('./no-such-module');\ntest('never', () => {});\n",
};

Deno.test({
  name:
    "jest --json --outputFile: same exit and reporter output, every test named as the text parser does",
  ignore: missing !== null,
  fn: async () => {
    const dir = await mkdtemp(join(tmpdir(), "vouch-jest-"));
    try {
      for (const [p, text] of Object.entries(FILES)) {
        await mkdir(dirname(join(dir, p)), { recursive: true });
        await writeFile(join(dir, p), text);
      }
      await symlink(JEST, join(dir, "node_modules"));
      const bare = await sh(dir, "jest");
      const reportDir = join(dir, ".vouch-report");
      await mkdir(reportDir);
      const r = structuredReportPlan({ command: "jest", format: "jest", reportDir });
      assert.ok(r.ok, r.ok ? "" : r.reason);
      assert.equal(r.plan.reader, "jest-json");
      const run = await sh(dir, r.plan.command!);
      assert.equal(run.code, bare.code, "the exit code is the same");
      assert.equal(bare.code, 1);
      assert.equal(run.stdout, bare.stdout, "stdout is the same (jest reports on stderr)");
      assert.equal(
        steady(run.stderr.replace(/^Test results written to: .*\n/m, "")),
        steady(bare.stderr),
        "jest's reporter output is the same, but for the line naming the report",
      );
      const outcomes = readReport(r.plan, await readFile(r.plan.reportPath, "utf8"), {
        root: dir,
      });
      const structured = reportFromOutcomes(outcomes);
      const text = parseFailingTests("jest", `${bare.stdout}\n${bare.stderr}`);
      assert.deepEqual([...structured.failing].sort(), ["calc › adds", "test/broken.test.js"]);
      // The text parser's failing ids (the `●` lines) are the report's ids.
      assert.ok(text.failing.includes("calc › adds"), JSON.stringify(text.failing));
      assert.deepEqual([...(structured.passing ?? [])].sort(), ["calc › subtracts", "multiplies"]);
      assert.deepEqual(structured.skipped, ["calc › skips"]);
      assert.deepEqual(
        outcomes.filter((o) => o.status === "error"),
        [{ id: "test/broken.test.js", file: "test/broken.test.js", status: "error" }],
      );
      assert.ok(outcomes.every((o) => o.file !== undefined && !o.file.startsWith("/")));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
});

Deno.test("jest plans: only a command that runs jest directly, without its own --json", () => {
  const plan = (command: string) =>
    structuredReportPlan({ command, format: "jest", reportDir: "/r d" });
  const ok = plan("npx jest --ci");
  assert.ok(ok.ok);
  assert.equal(ok.plan.command, "npx jest --ci --json --outputFile='/r d/vouch-jest.json'");
  assert.deepEqual(ok.plan.env, {});
  assert.ok(plan("node_modules/.bin/jest test/").ok);
  for (
    const refused of [
      "jest --json",
      "jest --outputFile=x.json",
      "jest && eslint .",
      "npm test",
      "jest --watch",
    ]
  ) {
    assert.equal(plan(refused).ok, false, refused);
  }
});

Deno.test("jest reports: hostile or foreign documents fail as TestResultsError, unknown statuses are errors", () => {
  for (const text of ["", "{", "[]", '{"testResults": 3}', '{"testResults": [{"name": 1}]}']) {
    assert.throws(() => parseJestJson(text), TestResultsError, text);
  }
  assert.throws(() => parseJestJson("x".repeat(20), { maxBytes: 10 }), /limit is 10/);
  const doc = (status: string) =>
    JSON.stringify({
      testResults: [{
        name: "/r/t.test.js",
        status: "passed",
        assertionResults: [{ ancestorTitles: [], title: "a", status }],
      }],
    });
  assert.deepEqual(parseJestJson(doc("whatever"), { root: "/r" }), [
    { id: "a", file: "t.test.js", status: "error" },
  ]);
  assert.deepEqual(parseJestJson(doc("constructor"), { root: "/r" })[0]!.status, "error");
  // A file outside the tree keeps no file.
  assert.deepEqual(parseJestJson(doc("passed"), { root: "/elsewhere" }), [
    { id: "a", status: "passed" },
  ]);
});
