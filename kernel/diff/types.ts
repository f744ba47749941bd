/**
 * The typed model produced by the git diff parser, and the scanner interface a
 * faster (WASM) implementation plugs into.
 *
 * @module
 */

/** How a file changes in a patch. */
export type DiffStatus = "added" | "deleted" | "modified" | "renamed" | "copied" | "mode-only";

/**
 * The kind of binary change: a `GIT binary patch` `literal` or `delta` block,
 * or git's content-free `Binary files a/x and b/x differ` line.
 */
export type BinaryKind = "literal" | "delta" | "differ";

/** Which header introduced a file: `diff --git` or a plain `---`/`+++` pair. */
export type DiffHeaderKind = "git" | "unified";

/** The kind of one hunk body line. */
export type DiffLineKind = "context" | "added" | "deleted";

/**
 * One materialised hunk body line.
 *
 * @example
 * ```ts
 * import type { DiffLine } from "./types.ts";
 * const line: DiffLine = { kind: "added", content: new Uint8Array([104, 105]), noNewlineAtEnd: false };
 * if (line.kind !== "added") throw new Error("unexpected");
 * ```
 */
export interface DiffLine {
  /** Context (` ` or an empty line), added (`+`) or deleted (`-`). */
  readonly kind: DiffLineKind;
  /** The raw bytes after the one-byte prefix, without the LF (a CR is kept). */
  readonly content: Uint8Array;
  /** True when followed by a `\ No newline at end of file` marker. */
  readonly noNewlineAtEnd: boolean;
}

/**
 * One `@@ -a,b +c,d @@` hunk. Counts are verified against the body while
 * parsing; the body lines are materialised only when `lines()` is called.
 *
 * @example
 * ```ts
 * import { parseGitDiff } from "./parse.ts";
 * const text = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n";
 * const hunk = parseGitDiff(new TextEncoder().encode(text)).files[0]!.hunks[0]!;
 * if (hunk.lines().length !== 2 || hunk.additions !== 1) throw new Error("unexpected");
 * ```
 */
export interface DiffHunk {
  /** Start line in the old file (`a` in `-a,b`). */
  readonly oldStart: number;
  /** Line count in the old file (`b`; 1 when omitted). */
  readonly oldLines: number;
  /** Start line in the new file (`c` in `+c,d`). */
  readonly newStart: number;
  /** Line count in the new file (`d`; 1 when omitted). */
  readonly newLines: number;
  /** The text after the closing `@@` (function context), without the leading space. */
  readonly section: string;
  /** Number of `+` lines. */
  readonly additions: number;
  /** Number of `-` lines. */
  readonly deletions: number;
  /** 1-based line number of the `@@` header in the input. */
  readonly line: number;
  /** Byte offset of the first body line in the input. */
  readonly bodyStart: number;
  /** Byte offset just past the last body line (including a trailing `\` marker line). */
  readonly bodyEnd: number;
  /** Materialises the body lines (cached after the first call). */
  lines(): readonly DiffLine[];
}

/**
 * One block of a `GIT binary patch`: `literal <size>` or `delta <size>`, with
 * the base85-decoded (still zlib-deflated) bytes.
 */
export interface BinaryHunk {
  /** `literal` (whole content) or `delta` (against the preimage). */
  readonly kind: "literal" | "delta";
  /** The inflated size git declared on the `literal`/`delta` line. */
  readonly size: number;
  /** The decoded, still deflated, bytes. */
  readonly data: Uint8Array;
}

/** The forward (and optional reverse) block of a `GIT binary patch`. */
export interface BinaryPatch {
  /** Turns the old content into the new one. */
  readonly forward: BinaryHunk;
  /** Turns the new content back into the old one (git always emits it). */
  readonly reverse: BinaryHunk | null;
}

/**
 * Everything the patch says about one file.
 *
 * Paths are the names after unquoting and stripping the `a/`/`b/` prefix,
 * decoded as UTF-8 (invalid sequences become U+FFFD: compare the `*Bytes`
 * fields when exactness matters). `null` means `/dev/null`.
 *
 * @example
 * ```ts
 * import { parseGitDiff } from "./parse.ts";
 * const text = "diff --git a/a.txt b/b.txt\nsimilarity index 100%\nrename from a.txt\nrename to b.txt\n";
 * const file = parseGitDiff(new TextEncoder().encode(text)).files[0]!;
 * if (file.status !== "renamed" || file.oldPath !== "a.txt" || file.newPath !== "b.txt") {
 *   throw new Error("unexpected");
 * }
 * ```
 */
export interface DiffFile {
  /** The old name, or null when the file is created. */
  readonly oldPath: string | null;
  /** The new name, or null when the file is deleted. */
  readonly newPath: string | null;
  /** The raw decoded bytes of the old name (after unquoting), or null. */
  readonly oldPathBytes: Uint8Array | null;
  /** The raw decoded bytes of the new name (after unquoting), or null. */
  readonly newPathBytes: Uint8Array | null;
  /** How the file changes. */
  readonly status: DiffStatus;
  /** The old mode (`100644`, `100755`, `120000`, `160000`), or null if not stated. */
  readonly oldMode: string | null;
  /** The new mode, or null if not stated. */
  readonly newMode: string | null;
  /** `similarity index` percentage for renames and copies, else null. */
  readonly similarity: number | null;
  /** `dissimilarity index` percentage, else null. */
  readonly dissimilarity: number | null;
  /** The abbreviated or full old blob id from the `index` line, or null. */
  readonly oldHash: string | null;
  /** The new blob id from the `index` line, or null. */
  readonly newHash: string | null;
  /** True for any binary change. */
  readonly binary: boolean;
  /** Which binary form, or null for text changes. */
  readonly binaryKind: BinaryKind | null;
  /** The decoded `GIT binary patch` blocks, or null. */
  readonly binaryPatch: BinaryPatch | null;
  /** True when either side has mode 120000 (a symbolic link). */
  readonly isSymlink: boolean;
  /** True when either side has mode 160000 (a submodule commit). */
  readonly isGitlink: boolean;
  /** Total `+` lines over all hunks. */
  readonly additions: number;
  /** Total `-` lines over all hunks. */
  readonly deletions: number;
  /** The text hunks, in order. */
  readonly hunks: readonly DiffHunk[];
  /** Which header introduced this file. */
  readonly headerKind: DiffHeaderKind;
  /** 1-based line number of the file's first header line. */
  readonly line: number;
}

/**
 * A parsed patch: the files it touches, in input order.
 *
 * @example
 * ```ts
 * import { parseGitDiff } from "./parse.ts";
 * const diff = parseGitDiff(new Uint8Array(0));
 * if (diff.files.length !== 0) throw new Error("unexpected");
 * ```
 */
export interface GitDiff {
  /** Every file section, in input order. */
  readonly files: readonly DiffFile[];
}

/** Result of scanning one hunk body (see {@link DiffLineScanner}). */
export interface HunkScan {
  /** 0 on success, else a {@link HUNK_SCAN_FAILURES} value. */
  readonly status: number;
  /** Byte offset just past the body (or of the offending line on failure). */
  readonly end: number;
  /** Number of lines consumed (including `\` marker lines). */
  readonly lines: number;
  /** `+` lines. */
  readonly additions: number;
  /** `-` lines. */
  readonly deletions: number;
}

/** Stable failure values of {@link HunkScan.status}. */
export const HUNK_SCAN_FAILURES = {
  /** A body line that is not ` `, `+`, `-`, `\ ` or empty, or counts went negative. */
  badLine: 1,
  /** The input ended (or a line lacked its LF) before the counts were met. */
  truncated: 2,
  /** A `\` line shorter than git accepts (12 bytes) or not starting with `\ `. */
  badMarker: 3,
} as const;

/**
 * The hot loop of the parser: walks one hunk body over raw bytes, classifying
 * lines by their first byte and counting until the header's counts are met.
 * `kernel/diff/scan.ts` has the TypeScript implementation (the spec); a WASM
 * one may be injected through `ParseGitDiffOptions.scanner`.
 *
 * @example
 * ```ts
 * import { typescriptDiffScanner } from "./scan.ts";
 * const bytes = new TextEncoder().encode("-a\n+b\n");
 * const session = typescriptDiffScanner.begin(bytes);
 * const scan = session.scanHunk(0, 1, 1);
 * session.end();
 * if (scan.status !== 0 || scan.end !== bytes.length) throw new Error("unexpected");
 * ```
 */
export interface DiffLineScanner {
  /** A short name for reports (`typescript`, `wasm`). */
  readonly name: string;
  /** Starts scanning `bytes` (the whole patch); call `end()` when done. */
  begin(bytes: Uint8Array): DiffScanSession;
}

/** A scanner bound to one input. */
export interface DiffScanSession {
  /**
   * Scans a hunk body starting at byte `start` that must contain `oldLines`
   * old-side and `newLines` new-side lines, plus an optional trailing
   * `\ No newline at end of file` marker.
   */
  scanHunk(start: number, oldLines: number, newLines: number): HunkScan;
  /** Releases the input. */
  end(): void;
}

/**
 * Limits and plumbing for `parseGitDiff`. Every limit is checked before the
 * work it bounds, so hostile input fails with `budget_exceeded` in linear time.
 *
 * @example
 * ```ts
 * import type { ParseGitDiffOptions } from "./types.ts";
 * const options: ParseGitDiffOptions = { maxBytes: 1 << 20, maxFiles: 100 };
 * if (options.maxFiles !== 100) throw new Error("unexpected");
 * ```
 */
export interface ParseGitDiffOptions {
  /** Largest accepted input in bytes (default 256 MiB). */
  readonly maxBytes?: number;
  /** Largest accepted number of input lines (default 16 Mi). */
  readonly maxLines?: number;
  /** Largest accepted number of file sections (default 100 000). */
  readonly maxFiles?: number;
  /** Largest accepted number of hunks over all files (default 1 Mi). */
  readonly maxHunks?: number;
  /** The hunk body scanner (default: the TypeScript one in `scan.ts`). */
  readonly scanner?: DiffLineScanner;
}
