/**
 * Which repository paths are the oracle (the tests and what defines them):
 * the classifier the clean verifier asks about each path a patch changes.
 *
 * STOPGAP: the conventions every runner shares, the runners' config files and
 * CI configuration, until the kernel's `oracleSet` (kernel/oracle, with
 * per-runner conventions, config-named support files and baseline ids) is on
 * main; then `oracleClassifier` returns `oracleSet(...)` and this list goes.
 *
 * @module
 */

/** How much of a path is the oracle (see the kernel's `OracleScope`). */
export type OraclePathScope = "file" | "test-keys" | "tests-inside";

/** One oracle path and why. */
export interface OraclePath {
  readonly path: string;
  readonly scope: OraclePathScope;
  readonly reasons: readonly string[];
}

/** Classifies a path: its entry, or null when it is not the oracle. */
export interface OracleClassifier {
  classify(path: string): OraclePath | null;
}

const CI_FILES = new Set([
  ".gitlab-ci.yml",
  ".travis.yml",
  "appveyor.yml",
  ".appveyor.yml",
  "azure-pipelines.yml",
  "Jenkinsfile",
  ".pre-commit-config.yaml",
]);
const CI_DIRS = [".github/", ".circleci/", ".husky/", ".githooks/"];
const TEST_DIRS = new Set(["test", "tests", "__tests__", "spec", "specs", "testing"]);
const CONFIG =
  /^(?:\.mocharc(?:\.[a-z]+)?|jest\.config\.[a-z]+|vitest\.config\.[a-z.]+|vitest\.workspace\.[a-z]+|pytest\.ini|tox\.ini|conftest\.py|\.nycrc(?:\.[a-z]+)?|karma\.conf\.[a-z]+|\.taprc)$/;
const TEST_FILE =
  /(?:\.(?:test|spec)\.[cm]?[jt]sx?|_test\.(?:py|go|ts|js|rs)|^test_[^/]*\.py|_spec\.rb)$/;
const TEST_KEYS = new Set([
  "package.json",
  "pyproject.toml",
  "setup.cfg",
  "Cargo.toml",
  "deno.json",
  "deno.jsonc",
]);

/**
 * The oracle classifier of a repository.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { oracleClassifier } from "./oracle_paths.ts";
 * const o = oracleClassifier();
 * equal(o.classify("test/calc.test.js")?.scope, "file");
 * equal(o.classify(".travis.yml")?.scope, "file");
 * equal(o.classify("src/calc.js"), null);
 * ```
 */
export function oracleClassifier(): OracleClassifier {
  return {
    classify(path) {
      const parts = path.split("/");
      const name = parts.at(-1)!;
      const reasons: string[] = [];
      if (CI_FILES.has(path) || CI_DIRS.some((d) => path.startsWith(d))) {
        reasons.push("CI or hook configuration");
      }
      if (CONFIG.test(name)) reasons.push("test runner configuration");
      if (TEST_FILE.test(name)) reasons.push("test file by name");
      if (parts.slice(0, -1).some((p) => TEST_DIRS.has(p))) reasons.push("in a test directory");
      if (reasons.length > 0) return { path, scope: "file", reasons };
      if (TEST_KEYS.has(path)) {
        return { path, scope: "test-keys", reasons: ["test configuration keys"] };
      }
      return null;
    },
  };
}
