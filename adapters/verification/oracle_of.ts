/**
 * The oracle of a verification, from the kernel's pure `oracleSet` /
 * `patchOracle` / `splitPatch`: which paths are the oracle (the detected
 * runners' conventions, the configs they read at the base, the check
 * commands, the baseline's test files, CI config), which of a patch's file
 * sections touch it (each with a sentence), and the patch's non-oracle part.
 * The I/O is reading the base's config files with git and the patched tree's.
 *
 * @module
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { OutcomeContract } from "../../kernel/contract/types.ts";
import { changedPaths } from "../../kernel/diff/changed_paths.ts";
import type { GitDiff } from "../../kernel/diff/types.ts";
import { oracleSet } from "../../kernel/oracle/oracle_set.ts";
import { type KeyTexts, patchOracle } from "../../kernel/oracle/patch.ts";
import { splitPatch } from "../../kernel/oracle/split.ts";
import type { OracleRunner, OracleSet } from "../../kernel/oracle/types.ts";
import { runGit } from "../git/hardened_git.ts";
import { guessTestFormat } from "../verify_command/detect.ts";
import type { OracleTouch } from "./verifier.ts";

/** Config files a runner reads its options (and test files) from. */
const CONFIG_FILES: readonly string[] = [
  "package.json",
  ".mocharc.js",
  ".mocharc.cjs",
  ".mocharc.json",
  ".mocharc.jsonc",
  ".mocharc.yml",
  ".mocharc.yaml",
  "jest.config.js",
  "jest.config.ts",
  "jest.config.cjs",
  "jest.config.mjs",
  "vitest.config.ts",
  "vitest.config.js",
  "vitest.config.mts",
  "vitest.config.mjs",
  "pytest.ini",
  ".pytest.ini",
  "pytest.toml",
  ".pytest.toml",
  "pyproject.toml",
  "setup.cfg",
  "tox.ini",
  "Cargo.toml",
  "deno.json",
  "deno.jsonc",
];

const RUNNER_OF: Readonly<Record<string, OracleRunner>> = {
  node: "node",
  mocha: "mocha",
  jest: "jest",
  vitest: "vitest",
  deno: "deno",
  pytest: "pytest",
  cargo: "cargo",
  go: "go",
  "go-json": "go",
  tap: "tap",
};

/** The gating checks' commands as one string (`npm test && npm run lint`): files it names are the oracle. */
function checkCommand(contract: OutcomeContract): string {
  return contract.checks.filter((c) => !c.baseline).map((c) =>
    "shell" in c.run ? c.run.shell : c.run.argv.join(" ")
  ).join(" && ");
}

/** The runners the contract's commands (or declared parsers) name. */
export function runnersOf(contract: OutcomeContract): OracleRunner[] {
  const out = new Set<OracleRunner>();
  for (const c of contract.checks) {
    const format = c.tests ??
      guessTestFormat("shell" in c.run ? c.run.shell : c.run.argv.join(" "));
    const runner = format === null ? undefined : RUNNER_OF[format];
    if (runner !== undefined) out.add(runner);
  }
  return [...out];
}

/** The base's config files (those that exist), by path, read with git. */
export async function baseConfigs(repo: string, base: string): Promise<Map<string, string>> {
  const listed = await runGit(["ls-tree", "--name-only", "-z", base, "--", ...CONFIG_FILES], {
    cwd: repo,
  });
  const out = new Map<string, string>();
  if (listed.exitCode !== 0) return out;
  for (const path of listed.stdout.head.split("\0").filter((p) => p !== "")) {
    const shown = await runGit(["show", `${base}:${path}`], { cwd: repo });
    if (shown.exitCode === 0 && !shown.stdout.truncated) out.set(path, shown.stdout.head);
  }
  return out;
}

/** The oracle set of one verification. */
export function oracleFor(
  contract: OutcomeContract,
  configs: ReadonlyMap<string, string>,
  baselineTests: readonly string[],
): OracleSet {
  return oracleSet({
    paths: [],
    runners: runnersOf(contract),
    configs: Object.fromEntries(configs),
    command: checkCommand(contract),
    baselineTests,
  });
}

/**
 * Whether a patch (its parsed `diff`; null: it did not parse, so assume it does) may change
 * the oracle: judged without the base's configs, so a path that may be the oracle counts
 * (the patch is then graded twice, and its tree needs a mark for the second reset).
 */
export function mayTouchOracle(contract: OutcomeContract, diff: GitDiff | null): boolean {
  if (diff === null) return true;
  const oracle = oracleFor(contract, new Map(), []);
  return changedPaths(diff).some((e) => oracle.classify(e.path) !== null);
}

/** What a patch does to the oracle: the sections that touch it, in words, and the rest. */
export interface PatchOracleView {
  /** The oracle sections it changes (empty: it touches no oracle file). */
  readonly touched: readonly OracleTouch[];
  /** Its non-oracle part (patch bytes `git apply` accepts; empty when it is all oracle). */
  readonly rest: Uint8Array;
}

/**
 * Classifies `patch` (its parsed `diff`, null when it did not parse) against `set`; the test keys of partly-oracle files
 * (`package.json`, ...) are compared between the base's text and the patched
 * tree's, with what `contract`'s check commands name. Null when the patch does
 * not parse (it is refused elsewhere).
 */
export async function patchOracleView(
  patch: Uint8Array,
  diff: GitDiff | null,
  set: OracleSet,
  configs: ReadonlyMap<string, string>,
  patchedTree: string,
  contract: OutcomeContract,
): Promise<PatchOracleView | null> {
  if (diff === null) return null;
  const texts = new Map<string, KeyTexts>();
  for (const f of diff.files) {
    for (const p of [f.oldPath, f.newPath]) {
      if (p === null || set.classify(p)?.scope !== "test-keys" || texts.has(p)) continue;
      const after = await readFile(join(patchedTree, p), "utf8").catch(() => null);
      texts.set(p, { before: configs.get(p) ?? null, after });
    }
  }
  const po = patchOracle(set, diff, texts, checkCommand(contract));
  const touched = po.touches.map((t) => ({
    path: t.path,
    scope: t.entry.scope,
    reasons: [t.message, ...t.entry.reasons],
  }));
  const rest = touched.length === 0
    ? patch
    : splitPatch(patch, diff, (f, i) => po.isOracle(f, i)).rest;
  return { touched, rest };
}
