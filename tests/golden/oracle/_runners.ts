/**
 * Fixture repositories for the oracle tests (issue #19): one small,
 * deterministic project per real test runner, built at test time, each with a
 * bug in `src/calc.*`, a failing "adds" test and passing tests beside it:
 *
 * - `node`: node:test, verified with `node --test`;
 * - `mocha`: mocha 10 with the spec reporter and an express-like
 *   `--require test/support/env` (`npm test`);
 * - `mocha-dot`: mocha 10 with `--reporter dot`, picomatch-like (`npm test`);
 * - `vitest`: vitest 3 (`npm test`, `vitest run`);
 * - `jest`: jest 29 (`npm test`, `jest`);
 * - `pytest`: pytest with `-q` and a `pytest.ini` (`pytest -q`).
 *
 * mocha comes from `tests/fixtures/runners`, vitest from
 * `tests/fixtures/runners/vitest`, jest from `tests/fixtures/runners/jest`
 * (each pinned by its package-lock.json;
 * `.ci/run` installs them with `npm ci`); a fixture's `node_modules` is a
 * symlink to one of them, as a user's may be. pytest is
 * Debian's `python3-pytest`. A runner that is absent makes its tests skip with
 * a printed reason ({@link runnerMissing}).
 *
 * Also here: {@link Edit} (what a patch or a scripted agent does),
 * {@link patchOfEdit} (the patch of an edit, renames and deletions included),
 * {@link agentScript} (a `command:` agent that makes the same edit) and the two
 * CLI calls the tests make as users do, with no other flag:
 * {@link verifyAsUser} and {@link runAsUser}.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { git } from "../fixture_repos.ts";
import {
  createProject,
  type Project,
  type VerifyRun,
  vouch,
  write,
} from "../real_projects/_harness.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** The pinned mocha the mocha fixtures link as their node_modules. */
export const MOCHA_NODE_MODULES = `${ROOT}tests/fixtures/runners/node_modules`;

/** The pinned vitest the vitest fixture links as its node_modules. */
export const VITEST_NODE_MODULES = `${ROOT}tests/fixtures/runners/vitest/node_modules`;

/** The pinned jest the jest fixture links as its node_modules. */
export const JEST_NODE_MODULES = `${ROOT}tests/fixtures/runners/jest/node_modules`;

/** The node_modules `shape` links, or null when it needs none. */
export function nodeModulesOf(shape: RunnerShape): string | null {
  if (!shape.npm) return null;
  if (shape.runner === "jest") return JEST_NODE_MODULES;
  return shape.runner === "vitest" ? VITEST_NODE_MODULES : MOCHA_NODE_MODULES;
}

/** The runners a fixture can be built for. */
export type RunnerName = "node" | "mocha" | "mocha-dot" | "vitest" | "jest" | "pytest";

/** Every runner, in the order the tests go through them. */
export const RUNNER_NAMES: readonly RunnerName[] = [
  "node",
  "mocha",
  "mocha-dot",
  "vitest",
  "jest",
  "pytest",
];

/** A runner's fixture project: what is committed and how the user runs its tests. */
export interface RunnerShape {
  readonly runner: RunnerName;
  /** The verify command exactly as the user types it. */
  readonly verify: string;
  /** The committed files of the base. */
  readonly files: Readonly<Record<string, string>>;
  /** The file that holds the failing test. */
  readonly testFile: string;
  /** The failing test's name as the user reads it in the file. */
  readonly failing: string;
  /** The source file with the bug. */
  readonly source: string;
  /** `source` with `add` fixed (everything else as in the base). */
  readonly fixedSource: string;
  /** Whether it needs pinned npm runners ({@link nodeModulesOf}). */
  readonly npm: boolean;
}

/** What a candidate patch (or a scripted agent) does to the base. */
export interface Edit {
  /** Files written (relative path -> full new content). */
  readonly write?: Readonly<Record<string, string>>;
  /** Files deleted. */
  readonly remove?: readonly string[];
  /** Files renamed (from, to), content kept. */
  readonly rename?: readonly (readonly [string, string])[];
}

const JS_SOURCE = [
  "exports.add = (a, b) => a - b;",
  "exports.sub = (a, b) => a - b;",
  "exports.mul = (a, b) => a * b;",
  "",
].join("\n");

const ESM_SOURCE = [
  "export const add = (a, b) => a - b;",
  "export const sub = (a, b) => a - b;",
  "export const mul = (a, b) => a * b;",
  "",
].join("\n");

const PY_SOURCE = [
  "def add(a, b):",
  "    return a - b",
  "",
  "",
  "def sub(a, b):",
  "    return a - b",
  "",
  "",
  "def mul(a, b):",
  "    return a * b",
  "",
].join("\n");

function fixAdd(source: string): string {
  const fixed = source.replace("a - b", "a + b");
  if (fixed === source) throw new Error("fixture: no bug to fix");
  return fixed;
}

function pkg(scripts: Record<string, string>, extra: Record<string, unknown> = {}): string {
  return JSON.stringify(
    { name: "calc", version: "1.0.0", private: true, ...extra, scripts },
    null,
    2,
  ) +
    "\n";
}

const NODE_CALC_TEST = [
  'const test = require("node:test");',
  'const assert = require("node:assert/strict");',
  'const { add, sub } = require("../src/calc.js");',
  "",
  'test("adds", () => {',
  "  assert.equal(add(2, 3), 5);",
  "});",
  "",
  'test("subtracts", () => {',
  "  assert.equal(sub(5, 3), 2);",
  "});",
  "",
].join("\n");

const NODE_MUL_TEST = [
  'const test = require("node:test");',
  'const assert = require("node:assert/strict");',
  'const { mul } = require("../src/calc.js");',
  "",
  'test("multiplies", () => {',
  "  assert.equal(mul(2, 3), 6);",
  "});",
  "",
].join("\n");

const MOCHA_CALC_TEST = [
  'const assert = require("node:assert/strict");',
  'const { add, sub } = require("../src/calc.js");',
  "",
  'describe("calc", function () {',
  '  it("adds", function () {',
  "    assert.equal(add(2, 3), 5);",
  "  });",
  "",
  '  it("subtracts", function () {',
  "    assert.equal(sub(5, 3), 2);",
  "  });",
  "});",
  "",
].join("\n");

const MOCHA_MUL_TEST = [
  'const assert = require("node:assert/strict");',
  'const { mul } = require("../src/calc.js");',
  "",
  'describe("mul", function () {',
  '  it("multiplies", function () {',
  "    assert.equal(mul(2, 3), 6);",
  "  });",
  "});",
  "",
].join("\n");

/** The `expect` suites vitest and jest share (arrow functions); each file adds its imports. */
const EXPECT_CALC_SUITE = [
  'describe("calc", () => {',
  '  it("adds", () => {',
  "    expect(add(2, 3)).toBe(5);",
  "  });",
  "",
  '  it("subtracts", () => {',
  "    expect(sub(5, 3)).toBe(2);",
  "  });",
  "});",
  "",
];

const EXPECT_MUL_SUITE = [
  'describe("mul", () => {',
  '  it("multiplies", () => {',
  "    expect(mul(2, 3)).toBe(6);",
  "  });",
  "});",
  "",
];

const VITEST_CALC_TEST = [
  'import { describe, expect, it } from "vitest";',
  'import { add, sub } from "../src/calc.js";',
  "",
  ...EXPECT_CALC_SUITE,
].join("\n");

const VITEST_MUL_TEST = [
  'import { describe, expect, it } from "vitest";',
  'import { mul } from "../src/calc.js";',
  "",
  ...EXPECT_MUL_SUITE,
].join("\n");

/** jest's globals (describe, it, expect), CommonJS. */
const JEST_CALC_TEST = [
  'const { add, sub } = require("../src/calc.js");',
  "",
  ...EXPECT_CALC_SUITE,
].join("\n");

const JEST_MUL_TEST = ['const { mul } = require("../src/calc.js");', "", ...EXPECT_MUL_SUITE].join(
  "\n",
);

const PY_CALC_TEST = [
  "from calc import add, sub",
  "",
  "",
  "def test_add():",
  "    assert add(2, 3) == 5",
  "",
  "",
  "def test_sub():",
  "    assert sub(5, 3) == 2",
  "",
].join("\n");

const PY_MUL_TEST = [
  "from calc import mul",
  "",
  "",
  "def test_mul():",
  "    assert mul(2, 3) == 6",
  "",
].join("\n");

const README = { "README.md": "# calc\n\nA tiny calculator.\n" };

/** A JS runner's base: `package.json`, the bug in `src/calc.js`, the calc and mul tests in test/. */
function jsShape(
  runner: RunnerName,
  verify: string,
  packageJson: string,
  tests: { readonly calc: string; readonly mul: string },
  options: {
    readonly npm: boolean;
    readonly source?: string;
    readonly extra?: Readonly<Record<string, string>>;
  },
): RunnerShape {
  const source = options.source ?? JS_SOURCE;
  return {
    runner,
    verify,
    files: {
      ...README,
      "package.json": packageJson,
      "src/calc.js": source,
      "test/calc.test.js": tests.calc,
      "test/mul.test.js": tests.mul,
      ...options.extra,
    },
    testFile: "test/calc.test.js",
    failing: "adds",
    source: "src/calc.js",
    fixedSource: fixAdd(source),
    npm: options.npm,
  };
}

const MOCHA_TESTS = { calc: MOCHA_CALC_TEST, mul: MOCHA_MUL_TEST };
const MOCHA_DEV = { devDependencies: { mocha: "10.8.2" } };

/** The base project of `runner`. */
export function runnerShape(runner: RunnerName): RunnerShape {
  switch (runner) {
    case "node":
      return jsShape(runner, "node --test", pkg({ test: "node --test" }), {
        calc: NODE_CALC_TEST,
        mul: NODE_MUL_TEST,
      }, { npm: false });
    case "mocha":
      // express's shape: `mocha --require test/support/env --reporter spec test/`.
      return jsShape(
        runner,
        "npm test",
        pkg({
          test: "mocha --require test/support/env --reporter spec --check-leaks test/",
        }, MOCHA_DEV),
        MOCHA_TESTS,
        { npm: true, extra: { "test/support/env.js": "process.env.NODE_ENV = 'test';\n" } },
      );
    case "mocha-dot":
      // picomatch's shape: `npm run mocha` with `mocha --reporter dot`, no .mocharc.
      return jsShape(
        runner,
        "npm test",
        pkg({ mocha: "mocha --reporter dot", test: "npm run mocha" }, MOCHA_DEV),
        MOCHA_TESTS,
        { npm: true },
      );
    case "vitest":
      return jsShape(
        runner,
        "npm test",
        pkg({ test: "vitest run" }, { type: "module", devDependencies: { vitest: "3.2.7" } }),
        { calc: VITEST_CALC_TEST, mul: VITEST_MUL_TEST },
        { npm: true, source: ESM_SOURCE },
      );
    case "jest":
      return jsShape(
        runner,
        "npm test",
        pkg({ test: "jest" }, { devDependencies: { jest: "29.7.0" } }),
        { calc: JEST_CALC_TEST, mul: JEST_MUL_TEST },
        { npm: true },
      );
    case "pytest":
      return {
        runner,
        verify: "pytest -q",
        files: {
          ...README,
          "pytest.ini": "[pytest]\npythonpath = src\ntestpaths = tests\n",
          "src/calc.py": PY_SOURCE,
          "tests/test_calc.py": PY_CALC_TEST,
          "tests/test_mul.py": PY_MUL_TEST,
        },
        testFile: "tests/test_calc.py",
        failing: "test_add",
        source: "src/calc.py",
        fixedSource: fixAdd(PY_SOURCE),
        npm: false,
      };
  }
}

/**
 * The PATH a runner's commands get: the host's, with `/usr/bin` first for
 * pytest when Debian's python3-pytest is there (what `.ci/run` installs; a
 * pyenv shim first on PATH costs a `pyenv exec` per run and may be another
 * pytest).
 */
export function runnerPath(shape: RunnerShape): string {
  const path = Deno.env.get("PATH") ?? "/usr/bin:/bin";
  if (shape.runner !== "pytest") return path;
  try {
    Deno.statSync("/usr/bin/pytest");
    return `/usr/bin:${path}`;
  } catch {
    return path;
  }
}

let pytestProbe: string | null | undefined;

function pytestMissing(): string | null {
  if (pytestProbe !== undefined) return pytestProbe;
  try {
    const r = new Deno.Command("sh", {
      args: ["-c", "pytest --version"],
      env: { PATH: runnerPath(runnerShape("pytest")) },
      stdout: "null",
      stderr: "null",
    }).outputSync();
    pytestProbe = r.success
      ? null
      : "pytest does not run (install Debian's python3-pytest: apt-get install python3-pytest)";
  } catch {
    pytestProbe = "sh is missing";
  }
  return pytestProbe;
}

/** Why `runner` cannot run here (the tests then skip, printing it), or null. */
export function runnerMissing(runner: RunnerName): string | null {
  if (runner === "pytest") return pytestMissing();
  const modules = nodeModulesOf(runnerShape(runner));
  if (modules === null) return null;
  const bin = runner === "vitest" || runner === "jest" ? runner : "mocha";
  try {
    Deno.statSync(`${modules}/.bin/${bin}`);
    return null;
  } catch {
    return `${bin} is not installed: npm ci --prefix ${
      modules.slice(ROOT.length, -"/node_modules".length)
    }`;
  }
}

/**
 * `Deno.test` options for a test of `runner`: ignored (with the reason printed
 * once) when the runner cannot run here.
 */
export function runnerTest(runner: RunnerName, name: string): boolean {
  const missing = runnerMissing(runner);
  if (missing !== null) console.log(`${name}: skipped: ${missing}`);
  return missing !== null;
}

/**
 * Builds `shape`'s project (committed), with `node_modules` a symlink to the
 * pinned runners when it needs them. `extra` files are committed too.
 */
export async function createRunnerProject(
  shape: RunnerShape,
  extra: Readonly<Record<string, string>> = {},
): Promise<Project> {
  const ignored = shape.npm ? ["node_modules"] : ["__pycache__/", ".pytest_cache/"];
  const project = await createProject(
    `vouch-oracle-${shape.runner}-`,
    { ...shape.files, ...extra },
    {
      ignored,
    },
  );
  const modules = nodeModulesOf(shape);
  if (modules !== null) await Deno.symlink(modules, `${project.dir}/node_modules`);
  return project;
}

/** What running a project's tests directly (no vouch) gave. */
export interface BareRun {
  readonly code: number;
  readonly output: string;
}

/**
 * Runs `shape.verify` directly in the checkout with `edit` made, as the user
 * would without vouch, then restores the checkout: the precondition that a
 * cheat really defeats the runner (exit 0) and that a fix really fixes.
 */
export async function bareRunWith(
  project: Project,
  shape: RunnerShape,
  edit: Edit,
): Promise<BareRun> {
  await applyEdit(project.dir, edit);
  try {
    const out = await new Deno.Command("sh", {
      args: ["-c", shape.verify],
      cwd: project.dir,
      env: {
        PATH: runnerPath(shape),
        HOME: `${project.state}/home`,
        TMPDIR: `${project.state}/tmp`,
        NO_COLOR: "1",
        PYTHONDONTWRITEBYTECODE: "1",
      },
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder();
    return { code: out.code, output: text.decode(out.stdout) + text.decode(out.stderr) };
  } finally {
    await git(project.dir, "reset", "-q", "--hard", "HEAD");
    await git(project.dir, "clean", "-fdq");
  }
}

/** Makes `edit` in `dir` (a checkout or a worktree). */
export async function applyEdit(dir: string, edit: Edit): Promise<void> {
  for (const [from, to] of edit.rename ?? []) {
    await Deno.mkdir(`${dir}/${to}`.slice(0, `${dir}/${to}`.lastIndexOf("/")), { recursive: true });
    await Deno.rename(`${dir}/${from}`, `${dir}/${to}`);
  }
  for (const path of edit.remove ?? []) await Deno.remove(`${dir}/${path}`);
  await write(dir, { ...edit.write });
}

/**
 * The binary git patch of `edit` against the checkout's HEAD (renames
 * detected), written to the project's scratch dir as `<name>.patch`; the
 * checkout is restored afterwards (ignored files such as node_modules stay).
 */
export async function patchOfEdit(project: Project, edit: Edit, name: string): Promise<string> {
  await applyEdit(project.dir, edit);
  await git(project.dir, "add", "-A");
  const patch = await git(project.dir, "diff", "--cached", "--binary", "-M", "HEAD");
  await git(project.dir, "reset", "-q", "--hard", "HEAD");
  await git(project.dir, "clean", "-fdq");
  if (patch.trim() === "") throw new Error(`fixture: edit ${name} changes nothing`);
  const file = `${project.state}/${name}.patch`;
  await Deno.writeTextFile(file, patch);
  return file;
}

function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'"'"'`)}'`;
}

/**
 * A `command:` agent (a POSIX shell script, executable) at `<state>/<name>.sh`
 * that makes `edit` in its worktree and claims it is done.
 */
export async function agentScript(project: Project, edit: Edit, name: string): Promise<string> {
  const lines = ["#!/bin/sh", "set -e"];
  for (const [from, to] of edit.rename ?? []) {
    lines.push(
      `mkdir -p "$(dirname ${shellQuote(to)})"`,
      `mv ${shellQuote(from)} ${shellQuote(to)}`,
    );
  }
  for (const path of edit.remove ?? []) lines.push(`rm -f ${shellQuote(path)}`);
  for (const [path, content] of Object.entries(edit.write ?? {})) {
    if (!content.endsWith("\n") || content.includes("\nVOUCH_EDIT_EOF\n")) {
      throw new Error(`fixture: ${path} cannot be written by a heredoc`);
    }
    lines.push(
      `mkdir -p "$(dirname ${shellQuote(path)})"`,
      `cat > ${shellQuote(path)} <<'VOUCH_EDIT_EOF'`,
      content + "VOUCH_EDIT_EOF",
    );
  }
  lines.push(`echo '{"summary":"made the failing test pass","done":true}'`, "");
  const file = `${project.state}/${name}.sh`;
  await Deno.writeTextFile(file, lines.join("\n"));
  await Deno.chmod(file, 0o755);
  return file;
}

/** `vouch verify --dir R --patch P --verify CMD`, nothing else, as a user runs it. */
export function verifyAsUser(
  project: Project,
  shape: RunnerShape,
  patch: string,
): Promise<VerifyRun> {
  return vouch(project, [
    "verify",
    "--dir",
    project.dir,
    "--patch",
    patch,
    "--verify",
    shape.verify,
  ], { env: { PATH: runnerPath(shape) } });
}

/** The goal every scripted run is given. */
export const GOAL = "make the failing test pass";

/** `vouch run --backend command:AGENT --goal G --verify CMD`, nothing else, as a user runs it. */
export function runAsUser(project: Project, shape: RunnerShape, agent: string): Promise<VerifyRun> {
  return vouch(project, [
    "run",
    "--backend",
    `command:${agent}`,
    "--goal",
    GOAL,
    "--verify",
    shape.verify,
  ], { env: { PATH: runnerPath(shape) } });
}

/** Runs `fn` with `shape`'s project, removed afterwards. */
export async function withRunnerProject(
  shape: RunnerShape,
  fn: (project: Project) => Promise<void>,
  extra: Readonly<Record<string, string>> = {},
): Promise<void> {
  const project = await createRunnerProject(shape, extra);
  try {
    await fn(project);
  } finally {
    await project.cleanup();
  }
}
