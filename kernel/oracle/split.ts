/**
 * Splits a parsed patch into its oracle part and the rest, each as patch
 * bytes `git apply` accepts: the file sections of the input, byte for byte,
 * in input order. A file section runs from its first header line to the next
 * file's first header line (text between sections, such as a mail signature,
 * stays with the section before it; text before the first file is dropped).
 *
 * @module
 */
import type { DiffFile, GitDiff } from "../diff/types.ts";

/** A patch split in two. */
export interface PatchSplit {
  /** The oracle file sections, in input order (empty when none). */
  readonly oracle: Uint8Array;
  /** Every other file section, in input order. */
  readonly rest: Uint8Array;
  /** Indexes into `diff.files` of the oracle sections. */
  readonly oracleFiles: readonly number[];
  /** Indexes into `diff.files` of the other sections. */
  readonly restFiles: readonly number[];
}

/** Byte offset of the start of each 1-based line number in `wanted` (ascending). */
function lineOffsets(bytes: Uint8Array, wanted: readonly number[]): number[] {
  const out: number[] = [];
  let line = 1;
  let pos = 0;
  for (const target of wanted) {
    while (line < target) {
      const nl = bytes.indexOf(0x0a, pos);
      if (nl < 0) {
        pos = bytes.length;
        break;
      }
      pos = nl + 1;
      line++;
    }
    out.push(line === target ? pos : bytes.length);
  }
  return out;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * The byte range `[start, end)` of each file section of `diff`, parsed from
 * `bytes`.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { parseGitDiff } from "../diff/parse.ts";
 * import { fileSections } from "./split.ts";
 * const bytes = new TextEncoder().encode("intro\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n");
 * deepEqual(fileSections(bytes, parseGitDiff(bytes)), [[6, bytes.length]]);
 * ```
 */
export function fileSections(bytes: Uint8Array, diff: GitDiff): [number, number][] {
  const starts = lineOffsets(bytes, diff.files.map((f) => f.line));
  return starts.map((s, i) => [s, starts[i + 1] ?? bytes.length]);
}

/**
 * Splits `bytes` (which `diff` was parsed from) by `isOracle` on each file:
 * a section goes to the oracle part when `isOracle` holds for it (callers
 * test its old and new path; a rename out of a test directory is the oracle).
 * Concatenating the two parts' sections in index order gives back every
 * file section of the input, byte for byte.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { parseGitDiff } from "../diff/parse.ts";
 * import { splitPatch } from "./split.ts";
 * const text = [
 *   "diff --git a/src/a.js b/src/a.js", "--- a/src/a.js", "+++ b/src/a.js", "@@ -1 +1 @@", "-x", "+y",
 *   "diff --git a/test/a.test.js b/test/a.test.js", "--- a/test/a.test.js", "+++ b/test/a.test.js",
 *   "@@ -1 +1 @@", "-1", "+2", "",
 * ].join("\n");
 * const bytes = new TextEncoder().encode(text);
 * const split = splitPatch(bytes, parseGitDiff(bytes), (f) => (f.newPath ?? f.oldPath)!.startsWith("test/"));
 * const dec = new TextDecoder();
 * equal(dec.decode(split.oracle).split("\n")[0], "diff --git a/test/a.test.js b/test/a.test.js");
 * equal(dec.decode(split.rest) + dec.decode(split.oracle), text);
 * ```
 */
export function splitPatch(
  bytes: Uint8Array,
  diff: GitDiff,
  isOracle: (file: DiffFile, index: number) => boolean,
): PatchSplit {
  const sections = fileSections(bytes, diff);
  const oracle: Uint8Array[] = [];
  const rest: Uint8Array[] = [];
  const oracleFiles: number[] = [];
  const restFiles: number[] = [];
  diff.files.forEach((f, i) => {
    const [s, e] = sections[i]!;
    if (isOracle(f, i)) {
      oracle.push(bytes.subarray(s, e));
      oracleFiles.push(i);
    } else {
      rest.push(bytes.subarray(s, e));
      restFiles.push(i);
    }
  });
  return { oracle: concat(oracle), rest: concat(rest), oracleFiles, restFiles };
}

/**
 * The predicate {@link splitPatch} wants from a set of oracle paths: a file
 * whose old or new path is in it.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { touchesPaths } from "./split.ts";
 * const f = { oldPath: "test/a.js", newPath: "src/a.js" } as const;
 * equal(touchesPaths((p) => p.startsWith("test/"))(f as never), true);
 * ```
 */
export function touchesPaths(
  isOraclePath: (path: string) => boolean,
): (file: DiffFile) => boolean {
  return (f) =>
    (f.oldPath !== null && isOraclePath(f.oldPath)) ||
    (f.newPath !== null && isOraclePath(f.newPath));
}
