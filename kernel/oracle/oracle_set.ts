/**
 * `oracleSet`: which repository paths are the oracle (the tests, the runner's
 * configuration, what it loads around the tests, CI and hook configuration),
 * each with its reasons. A pure function of the file list, the runners, the
 * config texts, the check command and the baseline's test ids.
 *
 * @module
 */
import { compileGlobs, type GlobSet } from "../glob/mod.ts";
import { conventionFindings, type Finding } from "./_conventions.ts";
export { AUTOMATION_CONFIG_GLOBS } from "./_conventions.ts";
import { namedByConfigs } from "./_configs.ts";
import type {
  OracleBaselineTest,
  OracleEntry,
  OracleInput,
  OracleRunner,
  OracleScope,
  OracleSet,
} from "./types.ts";
import { ORACLE_RUNNERS } from "./types.ts";

/** The file a baseline test id names (pytest node ids, vitest `file > test` ids), or `null`. */
function fileOfId(id: string): { file: string; doctest: boolean } | null {
  const py = /^([^\s:]+\.py)::(.+)$/.exec(id);
  if (py) return { file: py[1]!, doctest: !py[2]!.includes("::") && py[2]!.includes(".") };
  const vi = /^([^\s>]+\.(?:[cm]?[jt]sx?)) > /.exec(id);
  if (vi) return { file: vi[1]!, doctest: false };
  return null;
}

function normalise(path: string): string {
  return path.replace(/^\.\//, "");
}

interface Rules {
  readonly runners: readonly OracleRunner[];
  readonly exact: ReadonlyMap<string, readonly string[]>;
  readonly dirs: ReadonlyMap<string, readonly string[]>;
  readonly globs: GlobSet | null;
  readonly globReasons: readonly string[];
  readonly baseline: ReadonlyMap<string, "file" | "tests-inside">;
}

function rulesOf(input: OracleInput): Rules {
  const runners = ORACLE_RUNNERS.filter((r) => (input.runners ?? []).includes(r));
  const named = namedByConfigs(input.configs ?? {}, input.command);
  const usable: { pattern: string; reason: string }[] = [];
  for (const g of named.globs) {
    try {
      compileGlobs([g.pattern]);
      usable.push(g);
    } catch {
      // A pattern the glob syntax cannot express names nothing.
    }
  }
  const baseline = new Map<string, "file" | "tests-inside">();
  for (const t of input.baselineTests ?? []) {
    const test: OracleBaselineTest = typeof t === "string" ? { id: t } : t;
    const fromId = fileOfId(test.id);
    const raw = test.file ?? fromId?.file;
    if (raw === undefined) continue;
    const file = normalise(raw);
    if (file === "" || file.startsWith("/")) continue;
    const scope = test.file === undefined && fromId?.doctest === true ? "tests-inside" : "file";
    if (baseline.get(file) !== "file") baseline.set(file, scope);
  }
  return {
    runners,
    exact: named.exact,
    dirs: named.dirs,
    globs: usable.length > 0 ? compileGlobs(usable.map((g) => g.pattern)) : null,
    globReasons: usable.map((g) => g.reason),
    baseline,
  };
}

const SCOPE_RANK: Readonly<Record<OracleScope, number>> = {
  "file": 0,
  "test-keys": 1,
  "tests-inside": 2,
};

function classifyWith(rules: Rules, rawPath: string): OracleEntry | null {
  const path = normalise(rawPath);
  // What the configuration names first (most specific), then the conventions.
  const findings: Finding[] = [];
  for (const reason of rules.exact.get(path) ?? []) findings.push({ scope: "file", reason });
  for (const [dir, reasons] of rules.dirs) {
    if (path.startsWith(dir + "/")) {
      for (const reason of reasons) findings.push({ scope: "file", reason });
    }
  }
  if (rules.globs !== null) {
    const i = rules.globs.lastMatch(path);
    if (i >= 0) findings.push({ scope: "file", reason: rules.globReasons[i]! });
  }
  const b = rules.baseline.get(path);
  if (b !== undefined) {
    findings.push({
      scope: b,
      reason: b === "file" ? "holds baseline tests" : "holds baseline tests (doctests) in source",
    });
  }
  findings.push(...conventionFindings(path, rules.runners));
  if (findings.length === 0) return null;
  // A config file is the oracle only in its test keys unless something names it whole.
  const scope = findings.reduce<OracleScope>(
    (best, f) => SCOPE_RANK[f.scope] < SCOPE_RANK[best] ? f.scope : best,
    "tests-inside",
  );
  const reasons: string[] = [];
  for (const f of findings) if (!reasons.includes(f.reason)) reasons.push(f.reason);
  return { path, scope, reasons };
}

/**
 * The oracle of a repository: every path of `input.paths` that is a test by
 * the runners' conventions or by where the baseline's tests live, runner
 * configuration, a support file the runner loads (named by `--require`,
 * `setupFiles`, `-p`, spec globs in the configs or the command), or CI and
 * hook configuration. Each path is classified on its own, so the result is
 * monotone in the list and independent of its order; `classify` answers for
 * paths outside the list too (the files a patch adds).
 *
 * @example
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * import { oracleSet } from "./oracle_set.ts";
 * const set = oracleSet({
 *   paths: ["src/calc.js", "test/calc.test.js", ".travis.yml", "package.json", "lib/env.js"],
 *   runners: ["mocha"],
 *   configs: { ".mocharc.yml": "require: ./lib/env.js\n" },
 * });
 * deepEqual(set.entries.map((e) => [e.path, e.scope]), [
 *   [".travis.yml", "file"],
 *   ["lib/env.js", "file"],
 *   ["package.json", "test-keys"],
 *   ["test/calc.test.js", "file"],
 * ]);
 * equal(set.classify("lib/env.js")?.reasons[0], "mocha --require support file (.mocharc.yml)");
 * equal(set.classify(".mocharc.js")?.reasons[0], "mocha config");
 * equal(set.classify("src/calc.js"), null);
 * ```
 */
export function oracleSet(input: OracleInput): OracleSet {
  const rules = rulesOf(input);
  const seen = new Set<string>();
  const entries: OracleEntry[] = [];
  for (const p of input.paths) {
    const e = classifyWith(rules, p);
    if (e === null || seen.has(e.path)) continue;
    seen.add(e.path);
    entries.push(e);
  }
  entries.sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  return {
    entries,
    runners: rules.runners,
    classify: (path: string) => classifyWith(rules, path),
  };
}
