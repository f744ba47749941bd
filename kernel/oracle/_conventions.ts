/**
 * Path conventions: which names are tests, runner configuration, CI or hook
 * configuration, by each runner's own rules. Every rule looks at one path only,
 * so a classification never depends on the other paths of the list.
 *
 * @module
 */
import type { OracleRunner, OracleScope } from "./types.ts";
import { PY_STDLIB_MODULES } from "./_py_stdlib.ts";

/** One thing a rule found. */
export interface Finding {
  readonly scope: OracleScope;
  readonly reason: string;
}

/** The runner's name as people say it. */
export const RUNNER_NAMES: Readonly<Record<OracleRunner, string>> = {
  node: "node:test",
  mocha: "mocha",
  jest: "jest",
  vitest: "vitest",
  deno: "deno test",
  pytest: "pytest",
  unittest: "unittest",
  go: "go test",
  cargo: "cargo test",
  tap: "tap",
};

const JS_RUNNERS: readonly OracleRunner[] = ["node", "mocha", "jest", "vitest", "tap"];
const PY_RUNNERS: readonly OracleRunner[] = ["pytest", "unittest"];

const CI_DIRS = new Set([
  ".github",
  ".circleci",
  ".gitlab",
  ".buildkite",
  ".woodpecker",
  ".azure-pipelines",
]);
const CI_FILES = new Set([
  ".gitlab-ci.yml",
  ".travis.yml",
  "appveyor.yml",
  ".appveyor.yml",
  "azure-pipelines.yml",
  "Jenkinsfile",
  "bitbucket-pipelines.yml",
  ".drone.yml",
  ".woodpecker.yml",
  ".cirrus.yml",
]);
const HOOK_DIRS = new Set([".husky", ".githooks"]);
const HOOK_FILES = new Set([
  ".pre-commit-config.yaml",
  "lefthook.yml",
  "lefthook.yaml",
  ".lefthook.yml",
  ".lefthook.yaml",
  "lefthook-local.yml",
  ".simple-git-hooks.json",
  ".simple-git-hooks.js",
  ".simple-git-hooks.cjs",
]);

/**
 * Globs of the CI and git-hook configuration a patch may not touch by default
 * (`DEFAULT_FORBID`): the same directories and file names the oracle set
 * classifies as CI config and hooks, so the two lists cannot drift apart.
 */
export const AUTOMATION_CONFIG_GLOBS: readonly string[] = [
  ...[...CI_DIRS, ...HOOK_DIRS].map((d) => `${d}/**`),
  ...[...CI_FILES, ...HOOK_FILES].map((f) => `**/${f}`),
];

/** Directory names whose whole content is test code or test data, at any depth. */
const TEST_DIRS: Readonly<Record<string, string>> = {
  test: "under a test directory (test/)",
  tests: "under a test directory (tests/)",
  __tests__: "under a test directory (__tests__/)",
  spec: "under a test directory (spec/)",
  __mocks__: "test mocks (__mocks__/)",
  __snapshots__: "test snapshots (__snapshots__/)",
  __fixtures__: "test fixtures directory (__fixtures__/)",
  fixtures: "test fixtures directory (fixtures/)",
  testdata: "test data directory (testdata/)",
};

/**
 * Python modules and packages the runner imports at startup: a top-level file
 * or directory of that name shadows the installed one (`python3 -m pytest`
 * and `-m unittest` put the working directory first on `sys.path`), so it is
 * the runner, not code under test. Top level only: a repository's own
 * `src/_pytest/` (pytest's) is the code under test.
 */
const PY_SHADOW_MODULES: Readonly<Record<string, readonly OracleRunner[]>> = {
  pytest: ["pytest"],
  _pytest: ["pytest"],
  pluggy: ["pytest"],
  iniconfig: ["pytest"],
  unittest: ["pytest", "unittest"],
};
/**
 * The top-level name a Python file at `segments` would be imported as when the
 * working directory is first on `sys.path` (`argparse.py`, `json/decoder.py`),
 * when it names a standard-library module ({@linkcode PY_STDLIB_MODULES}):
 * pytest and unittest import many (argparse, inspect, difflib, ...) after
 * startup, so such a file shadows them like `pytest.py` shadows pytest. Python
 * files only (`.py`); top level only (a nested `pkg/json.py` is the
 * repository's own module). A repository whose own top-level module has a
 * standard-library name is graded twice (it already shadows it).
 */
function stdlibShadow(base: string, segments: readonly string[]): string | null {
  if (!base.endsWith(".py")) return null;
  const top = segments.length === 1 ? base.slice(0, -3) : segments[0]!;
  return PY_STDLIB_MODULES.has(top) ? top : null;
}
/** A directory of installed-package metadata (its `entry_points.txt` autoloads pytest plugins). */
const PY_DIST_INFO = /^[^/]+\.(?:dist|egg)-info$/;

/** Every base name a rule below can match also matches this (a prefilter, never a rule). */
const MAYBE =
  /test|spec|conf|setup|rc|babel|vite|jest|mocha|snap|customize|jenkins|ya?ml$|package\.json|deno\.jsonc?|pyproject|tox\.ini|cargo|nextest|vouch|pnpm|hooks|pluggy|^iniconfig\.py$|\.pth$/i;
/** Directory names some rule looks at. */
const DIR_WORDS = new Set<string>();

for (const d of [...CI_DIRS, ...HOOK_DIRS, ...Object.keys(TEST_DIRS), ".cargo"]) DIR_WORDS.add(d);

const JS_EXT = /\.(?:[cm]?js|jsx|[cm]?ts|tsx)$/;
const PLAIN_JS_EXT = /\.[cm]?js$/;

function runnerConfigs(base: string, segments: readonly string[]): [OracleRunner[], string][] {
  const out: [OracleRunner[], string][] = [];
  const add = (runners: OracleRunner[], what: string) => out.push([runners, what]);
  if (/^\.mocharc(?:\.(?:[cm]?js|jsonc?|ya?ml))?$/.test(base)) add(["mocha"], "mocha config");
  if (/^jest\.config\.[a-z]+$/.test(base)) add(["jest"], "jest config");
  if (/^(?:jest[.-]setup|setupTests)\.[a-z]+$/.test(base)) {
    add(["jest", "vitest"], "test setup file by convention");
  }
  if (/^(?:babel\.config\.[a-z]+|\.babelrc(?:\.[a-z]+)?)$/.test(base)) {
    add(["jest"], "babel config (jest transforms tests with it)");
  }
  if (/^(?:vitest\.(?:config|workspace|setup)|vite\.config)\.[a-z]+$/.test(base)) {
    add(["vitest"], "vitest config");
  }
  if (base === ".taprc") add(["tap"], "tap config");
  if (/^\.(?:nycrc|c8rc)(?:\.[a-z]+)?$/.test(base)) {
    add([...JS_RUNNERS], "coverage config (can fail or pass the run)");
  }
  if ([".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs"].includes(base)) {
    add([...JS_RUNNERS], "package manager config (node-options, script-shell)");
  }
  if (/^\.?pytest\.(?:ini|toml)$/.test(base)) add(["pytest"], "pytest config");
  if (base === "conftest.py") add(["pytest"], "conftest.py (pytest loads it)");
  if (base === "sitecustomize.py" || base === "usercustomize.py") {
    add([...PY_RUNNERS], "python startup hook");
  }
  if (base.endsWith(".pth")) add([...PY_RUNNERS], "python .pth file (site runs its import lines)");
  const top = segments.length === 1 ? base.replace(/\.py$/, "") : segments[0]!;
  if ((segments.length > 1 || base.endsWith(".py")) && Object.hasOwn(PY_SHADOW_MODULES, top)) {
    add(
      [...PY_SHADOW_MODULES[top]!],
      `shadows the runner's module ${top} (cwd is first on sys.path)`,
    );
  } else {
    const std = stdlibShadow(base, segments);
    if (std !== null) {
      add([...PY_RUNNERS], `shadows the standard library module ${std} (cwd is first on sys.path)`);
    }
  }
  if (segments.slice(0, -1).some((d) => PY_DIST_INFO.test(d))) {
    add(["pytest"], "python package metadata (its entry points load pytest plugins)");
  }
  if (
    segments.length >= 2 && segments.at(-2) === ".cargo" && /^config(?:\.toml)?$/.test(base)
  ) add(["cargo"], "cargo config (runner, rustflags)");
  if (base === "nextest.toml") add(["cargo"], "cargo nextest config");
  if (segments.length > 1 && segments[0] === "vendor") {
    // go test builds against a committed vendor/ (with its modules.txt), deno with
    // `"vendor": true` imports its remote modules from it (unchecked against deno.lock): a fake
    // assertion library there would judge the patch.
    add(["go", "deno"], "vendored dependency (go test and deno's vendor: true load it)");
  }
  if (base === "vouch.contract.json") {
    add([...JS_RUNNERS, "deno", ...PY_RUNNERS, "go", "cargo"], "vouch contract");
  }
  return out;
}

function testKeyFiles(base: string): [OracleRunner[], string] | null {
  if (base === "package.json") return [[...JS_RUNNERS], "test keys of package.json"];
  if (base === "deno.json" || base === "deno.jsonc") return [["deno"], `test keys of ${base}`];
  if (base === "pyproject.toml" || base === "setup.cfg" || base === "tox.ini") {
    return [[...PY_RUNNERS], `test sections of ${base}`];
  }
  if (base === "Cargo.toml") return [["cargo"], "test targets of Cargo.toml"];
  return null;
}

/** Test-file naming rules: [runners (empty: also shared), predicate on the base name]. */
const NAMING: readonly [readonly OracleRunner[] | "shared", (base: string) => boolean][] = [
  // Shared by (almost) every runner of the language.
  ["shared", (b) => JS_EXT.test(b) && /[.](?:test|spec)\.[a-z]+$/.test(b)],
  ["shared", (b) => /^test_.+\.py$/.test(b) || /.+_test\.py$/.test(b)],
  ["shared", (b) => /.+_test\.go$/.test(b)],
  ["shared", (b) => JS_EXT.test(b) && /.+_test\.[a-z]+$/.test(b)],
  // One runner's own wider rules.
  [["node"], (b) => PLAIN_JS_EXT.test(b) && /(?:^test\.|-test\.|_test\.|^test-)/.test(b)],
  [["deno"], (b) => /^test\.(?:[cm]?[jt]s|[jt]sx)$/.test(b)],
  [["unittest"], (b) => /^test.*\.py$/.test(b)],
  [["jest"], (b) => b.endsWith(".snap")],
];

const SHARED_OWNERS: Readonly<Record<number, readonly OracleRunner[]>> = {
  0: ["node", "mocha", "jest", "vitest", "deno", "tap"],
  1: ["pytest", "unittest"],
  2: ["go"],
  3: ["node", "deno"],
};

/**
 * What the conventions say of `path` for `runners` (empty: the shared
 * conventions only), in a fixed order.
 */
export function conventionFindings(path: string, runners: readonly OracleRunner[]): Finding[] {
  const segments = path.split("/");
  const base = segments.at(-1)!;
  const dirs = segments.slice(0, -1);
  // Fast path (most paths are plain source): no rule below can match such a path.
  if (
    !MAYBE.test(base) && !dirs.some((d) => DIR_WORDS.has(d) || PY_DIST_INFO.test(d)) &&
    !(dirs.length > 0 && (Object.hasOwn(PY_SHADOW_MODULES, dirs[0]!) || dirs[0] === "vendor")) &&
    stdlibShadow(base, segments) === null
  ) return [];
  const out: Finding[] = [];
  const file = (reason: string) => out.push({ scope: "file", reason });
  const any = runners.length === 0;
  const applies = (owners: readonly OracleRunner[]) =>
    any || owners.some((r) => runners.includes(r));
  if (CI_DIRS.has(segments[0]!) && segments.length > 1) file(`CI config (${segments[0]}/)`);
  if (CI_FILES.has(base)) file("CI config");
  if (HOOK_DIRS.has(segments[0]!) && segments.length > 1) file(`git hooks (${segments[0]}/)`);
  if (HOOK_FILES.has(base)) file("git hooks config");
  for (const [owners, what] of runnerConfigs(base, segments)) {
    if (applies(owners)) file(what);
  }
  NAMING.forEach(([owners, test], i) => {
    if (!test(base)) return;
    const who = owners === "shared" ? SHARED_OWNERS[i]! : owners;
    if (any) {
      if (owners === "shared") file("test file by convention");
      return;
    }
    const hit = who.filter((r) => runners.includes(r));
    if (hit.length > 0) {
      const name = RUNNER_NAMES[hit[0]!];
      const noun = name.endsWith(" test") || name.endsWith(":test") ? "file" : "test file";
      file(`${name} ${noun} by convention`);
    }
  });
  if (
    runners.includes("mocha") && dirs.length === 1 && dirs[0] === "test" && PLAIN_JS_EXT.test(base)
  ) {
    file("mocha spec file by default (./test/*.js)");
  }
  for (const d of dirs) {
    const reason = Object.hasOwn(TEST_DIRS, d) ? TEST_DIRS[d] : undefined;
    if (reason !== undefined) {
      file(reason);
      break;
    }
  }
  const keys = testKeyFiles(base);
  if (keys !== null && applies(keys[0])) out.push({ scope: "test-keys", reason: keys[1] });
  return out;
}
