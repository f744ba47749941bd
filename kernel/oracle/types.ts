/**
 * The oracle's model: which repository paths define the tests that judge a
 * patch, and why.
 *
 * @module
 */

/** A test runner whose conventions decide which files are tests. */
export type OracleRunner =
  | "node"
  | "mocha"
  | "jest"
  | "vitest"
  | "deno"
  | "pytest"
  | "unittest"
  | "go"
  | "cargo"
  | "tap";

/** Every runner, in a fixed order. */
export const ORACLE_RUNNERS: readonly OracleRunner[] = [
  "node",
  "mocha",
  "jest",
  "vitest",
  "deno",
  "pytest",
  "unittest",
  "go",
  "cargo",
  "tap",
];

/** A baseline test: its id, and the file it lives in when the report says. */
export interface OracleBaselineTest {
  /** The test id as the parser names it (pytest node ids carry their file). */
  readonly id: string;
  /** The repository-relative file, when a structured report gives it. */
  readonly file?: string;
}

/** What {@link oracleSet} decides from. Everything is data the caller read. */
export interface OracleInput {
  /** Repository-relative paths: the base tree's files and the paths a patch adds. */
  readonly paths: readonly string[];
  /**
   * The detected runners. Empty or absent: the conventions every runner shares
   * (test directories, `*.test.*`, `test_*.py`, `*_test.go`, ...), not the
   * loose ones of a single runner (node's `test.js`, unittest's `test*.py`).
   */
  readonly runners?: readonly OracleRunner[];
  /**
   * Contents of the configuration files that name what the runner loads,
   * keyed by repository-relative path: `package.json`, `.mocharc.*`,
   * `jest.config.*`, `vitest.config.*`, `pytest.ini`, `pytest.toml`, `pyproject.toml`,
   * `setup.cfg`, `tox.ini`, `Cargo.toml`, `deno.json`. A path may carry
   * several versions (the base's and the patched text): what any of them
   * names is the oracle. Others are ignored.
   */
  readonly configs?: Readonly<Record<string, string | readonly string[]>>;
  /** The check command (`npm test`, `pytest -q tests/`): files it names are the oracle. */
  readonly command?: string;
  /** The baseline's tests: the files they live in are the oracle. */
  readonly baselineTests?: readonly (string | OracleBaselineTest)[];
}

/**
 * How much of a path is the oracle: the whole `file`; only its
 * test-defining keys (`package.json` `scripts.test`, `pyproject.toml`
 * `[tool.pytest.*]`: see `testKeysChange`); or `tests-inside`, a source file
 * that also holds tests (doctests), which the split leaves with the code and
 * the verdict names.
 */
export type OracleScope = "file" | "test-keys" | "tests-inside";

/** One oracle path and why. */
export interface OracleEntry {
  /** The repository-relative path. */
  readonly path: string;
  /** How much of it is the oracle. */
  readonly scope: OracleScope;
  /** Short reasons, most specific first ("mocha --require support file (.mocharc.yml)"). */
  readonly reasons: readonly string[];
}

/** The oracle of a repository: every oracle path among the input's, sorted. */
export interface OracleSet {
  /** The oracle paths, sorted by code unit order, each once. */
  readonly entries: readonly OracleEntry[];
  /** The runners whose conventions applied (empty: the shared conventions only). */
  readonly runners: readonly OracleRunner[];
  /**
   * Classifies any path, also one not in the input (a file a patch adds):
   * its entry, or `null` when it is not the oracle.
   */
  classify(path: string): OracleEntry | null;
}
