/**
 * Which file sections of a patch touch the oracle, each with a sentence for
 * the screen ("test/calc.test.js changed (node:test file by convention)",
 * "package.json: scripts.test changed").
 *
 * @module
 */
import type { DiffFile, GitDiff } from "../diff/types.ts";
import { testKeysChange } from "./test_keys.ts";
import type { OracleEntry, OracleSet } from "./types.ts";

/** One file section that touches the oracle (or holds tests inside source). */
export interface OracleTouch {
  /** Index into `diff.files`. */
  readonly index: number;
  /** The path the entry is about (the old path of a rename out of the oracle). */
  readonly path: string;
  /** The oracle entry of that path. */
  readonly entry: OracleEntry;
  /** One sentence. */
  readonly message: string;
}

/** What a patch does to the oracle. */
export interface PatchOracle {
  /** Sections that change the oracle: they go to the oracle part of the split. */
  readonly touches: readonly OracleTouch[];
  /** Sections of source files that also hold tests (doctests): left with the code, named. */
  readonly testsInside: readonly OracleTouch[];
  /** Whether section `index` is the oracle (for `splitPatch`). */
  isOracle(file: DiffFile, index: number): boolean;
}

/** The before and after text of a partly-oracle file (`null`: absent on that side). */
export interface KeyTexts {
  /** The text before the patch. */
  readonly before: string | null;
  /** The text after the patch. */
  readonly after: string | null;
}

function verb(f: DiffFile): string {
  switch (f.status) {
    case "added":
      return "added";
    case "deleted":
      return "deleted";
    case "renamed":
      return `renamed (${f.oldPath} -> ${f.newPath})`;
    case "copied":
      return `copied from ${f.oldPath}`;
    case "mode-only":
      return "mode changed";
    default:
      return "changed";
  }
}

/**
 * Classifies each file section of `diff` against `set`: a section whose old or
 * new path is a whole-file oracle entry touches the oracle; a partly-oracle
 * file (`package.json`, `pyproject.toml`, ...) only when its test keys
 * changed, judged from `texts` (a path missing from `texts` counts as
 * changed: fail closed); a `tests-inside` source file is listed apart.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { parseGitDiff } from "../diff/parse.ts";
 * import { oracleSet } from "./oracle_set.ts";
 * import { patchOracle } from "./patch.ts";
 * const diff = parseGitDiff(new TextEncoder().encode([
 *   "diff --git a/src/calc.js b/src/calc.js", "--- a/src/calc.js", "+++ b/src/calc.js", "@@ -1 +1 @@", "-a", "+b",
 *   "diff --git a/test/calc.test.js b/test/calc.test.js", "--- a/test/calc.test.js", "+++ b/test/calc.test.js", "@@ -1 +1 @@", "-a", "+b",
 *   "diff --git a/package.json b/package.json", "--- a/package.json", "+++ b/package.json", "@@ -1 +1 @@", "-a", "+b", "",
 * ].join("\n")));
 * const set = oracleSet({ paths: ["src/calc.js", "test/calc.test.js", "package.json"], runners: ["node"] });
 * const p = patchOracle(set, diff, new Map([["package.json", {
 *   before: '{"scripts":{"test":"node --test"}}', after: '{"scripts":{"test":"node --test || true"}}',
 * }]]));
 * deepEqual(p.touches.map((t) => t.message), [
 *   "test/calc.test.js changed (node:test file by convention)",
 *   "package.json: scripts.test changed",
 * ]);
 * ```
 */
export function patchOracle(
  set: OracleSet,
  diff: GitDiff,
  texts: ReadonlyMap<string, KeyTexts> = new Map(),
  command?: string,
): PatchOracle {
  const touches: OracleTouch[] = [];
  const testsInside: OracleTouch[] = [];
  const oracle = new Set<number>();
  diff.files.forEach((f, index) => {
    const paths = [f.oldPath, f.newPath].filter((p): p is string => p !== null);
    const entries = [...new Set(paths)].map((p) => set.classify(p)).filter((e) => e !== null);
    const whole = entries.find((e) => e.scope === "file");
    if (whole !== undefined) {
      oracle.add(index);
      touches.push({
        index,
        path: whole.path,
        entry: whole,
        message: `${whole.path} ${verb(f)} (${whole.reasons[0]})`,
      });
      return;
    }
    const keys = entries.find((e) => e.scope === "test-keys");
    if (keys !== undefined) {
      const t = texts.get(keys.path);
      const change = t === undefined
        ? { changed: true, message: `${keys.path} ${verb(f)} (its test keys were not compared)` }
        : testKeysChange(keys.path, t.before, t.after, command);
      if (change.changed) {
        oracle.add(index);
        touches.push({ index, path: keys.path, entry: keys, message: change.message });
      }
      return;
    }
    const inside = entries.find((e) => e.scope === "tests-inside");
    if (inside !== undefined) {
      testsInside.push({
        index,
        path: inside.path,
        entry: inside,
        message: `${inside.path} ${verb(f)} (${
          inside.reasons[0]
        }; its tests are graded with the code)`,
      });
    }
  });
  return { touches, testsInside, isOracle: (_f, i) => oracle.has(i) };
}
