/**
 * The strict git diff parser. One forward pass over the bytes; header lines
 * are decoded, hunk bodies are only scanned (first byte per line) and their
 * lines materialised on demand.
 *
 * @module
 */
import { base85LineLength, decodeBase85Line } from "./base85.ts";
import { DiffParseError } from "./error.ts";
import { readLineName, readMarkerName, splitGitHeaderNames } from "./names.ts";
import { finishSection, newSection, type Section } from "./_section.ts";
import { typescriptDiffScanner } from "./scan.ts";
import type {
  BinaryHunk,
  DiffFile,
  DiffHunk,
  DiffLine,
  DiffScanSession,
  GitDiff,
  ParseGitDiffOptions,
} from "./types.ts";
import { HUNK_SCAN_FAILURES } from "./types.ts";
import { asciiBytes, decodeUtf8 } from "../text/utf8.ts";

/** Default limits of {@link parseGitDiff}. */
export const DEFAULT_DIFF_LIMITS = {
  maxBytes: 256 * 1024 * 1024,
  maxLines: 16 * 1024 * 1024,
  maxFiles: 100_000,
  maxHunks: 1024 * 1024,
} as const;

const LF = 0x0a;
const SPACE = 0x20;
const PLUS = 0x2b;
const MINUS = 0x2d;
const AT = 0x40;
const BACKSLASH = 0x5c;

const P_DIFF_GIT = asciiBytes("diff --git ");
const P_DIFF_CC = asciiBytes("diff --cc ");
const P_DIFF_COMBINED = asciiBytes("diff --combined ");
const P_MINUS3 = asciiBytes("--- ");
const P_PLUS3 = asciiBytes("+++ ");
const P_HUNK = asciiBytes("@@ -");
const P_AT_AT = asciiBytes("@@");
const P_OLD_MODE = asciiBytes("old mode ");
const P_NEW_MODE = asciiBytes("new mode ");
const P_DELETED_MODE = asciiBytes("deleted file mode ");
const P_NEW_FILE_MODE = asciiBytes("new file mode ");
const P_COPY_FROM = asciiBytes("copy from ");
const P_COPY_TO = asciiBytes("copy to ");
const P_RENAME_FROM = asciiBytes("rename from ");
const P_RENAME_TO = asciiBytes("rename to ");
const P_RENAME_OLD = asciiBytes("rename old ");
const P_RENAME_NEW = asciiBytes("rename new ");
const P_SIMILARITY = asciiBytes("similarity index ");
const P_DISSIMILARITY = asciiBytes("dissimilarity index ");
const P_INDEX = asciiBytes("index ");
const P_BINARY_FILES = asciiBytes("Binary files ");
const P_GIT_BINARY = asciiBytes("GIT binary patch");
const P_LITERAL = asciiBytes("literal ");
const P_DELTA = asciiBytes("delta ");
const P_CONTEXT_STARS = asciiBytes("***************");

const VALID_MODES = new Set(["100644", "100755", "120000", "160000", "100664", "040000"]);

/**
 * Parses a git (or plain unified) diff, format-patch mail or `git log -p`
 * output. Throws {@link DiffParseError} on anything malformed or ambiguous.
 *
 * @example
 * ```ts
 * import { parseGitDiff } from "./parse.ts";
 * const patch = [
 *   "diff --git a/src/x.ts b/src/x.ts",
 *   "index 1111111..2222222 100644",
 *   "--- a/src/x.ts",
 *   "+++ b/src/x.ts",
 *   "@@ -1,2 +1,2 @@",
 *   " keep",
 *   "-old",
 *   "+new",
 *   "",
 * ].join("\n");
 * const [file] = parseGitDiff(new TextEncoder().encode(patch)).files;
 * if (file?.newPath !== "src/x.ts" || file.additions !== 1 || file.deletions !== 1) {
 *   throw new Error("unexpected");
 * }
 * ```
 */
export function parseGitDiff(bytes: Uint8Array, options: ParseGitDiffOptions = {}): GitDiff {
  const maxBytes = options.maxBytes ?? DEFAULT_DIFF_LIMITS.maxBytes;
  if (bytes.length > maxBytes) {
    throw new DiffParseError(
      "budget_exceeded",
      0,
      `input is ${bytes.length} bytes, the limit is ${maxBytes}`,
    );
  }
  const session = (options.scanner ?? typescriptDiffScanner).begin(bytes);
  try {
    return new Parser(bytes, session, options).run();
  } finally {
    session.end();
  }
}

/** The outcome of {@link tryParseGitDiff}. */
export type TryParseGitDiffResult =
  | { readonly ok: true; readonly diff: GitDiff }
  | { readonly ok: false; readonly error: DiffParseError };

/**
 * {@link parseGitDiff} without throwing: a typed result instead.
 *
 * @example
 * ```ts
 * import { tryParseGitDiff } from "./parse.ts";
 * const result = tryParseGitDiff(new TextEncoder().encode("@@ -1 +1 @@\n-a\n+b\n"));
 * if (result.ok || result.error.code !== "unexpected_hunk") throw new Error("unexpected");
 * ```
 */
export function tryParseGitDiff(
  bytes: Uint8Array,
  options: ParseGitDiffOptions = {},
): TryParseGitDiffResult {
  try {
    return { ok: true, diff: parseGitDiff(bytes, options) };
  } catch (error) {
    if (error instanceof DiffParseError) return { ok: false, error };
    throw error;
  }
}

/** A hunk whose lines are materialised from the input on first use. */
class LazyHunk implements DiffHunk {
  #lines: readonly DiffLine[] | null = null;
  readonly #source: Uint8Array;

  constructor(
    source: Uint8Array,
    readonly oldStart: number,
    readonly oldLines: number,
    readonly newStart: number,
    readonly newLines: number,
    readonly section: string,
    readonly additions: number,
    readonly deletions: number,
    readonly line: number,
    readonly bodyStart: number,
    readonly bodyEnd: number,
  ) {
    this.#source = source;
  }

  lines(): readonly DiffLine[] {
    if (this.#lines !== null) return this.#lines;
    const out: { kind: DiffLine["kind"]; content: Uint8Array; noNewlineAtEnd: boolean }[] = [];
    const src = this.#source;
    let pos = this.bodyStart;
    while (pos < this.bodyEnd) {
      let eol = src.indexOf(LF, pos);
      if (eol < 0 || eol > this.bodyEnd) eol = this.bodyEnd;
      const first = src[pos]!;
      if (first === BACKSLASH) {
        const last = out[out.length - 1];
        if (last !== undefined) last.noNewlineAtEnd = true;
      } else {
        const kind = first === PLUS ? "added" : first === MINUS ? "deleted" : "context";
        const content = first === LF ? new Uint8Array(0) : src.slice(pos + 1, eol);
        out.push({ kind, content, noNewlineAtEnd: false });
      }
      pos = eol + 1;
    }
    this.#lines = out;
    return out;
  }
}

class Parser {
  readonly #bytes: Uint8Array;
  readonly #size: number;
  readonly #session: DiffScanSession;
  readonly #maxLines: number;
  readonly #maxFiles: number;
  readonly #maxHunks: number;
  /** Offset of the current line. */
  #pos = 0;
  /** 1-based number of the current line. */
  #lineNo = 1;
  /** End of the current line (offset of its LF, or the input size). */
  #eol = 0;
  #hunkCount = 0;
  readonly #files: DiffFile[] = [];

  constructor(bytes: Uint8Array, session: DiffScanSession, options: ParseGitDiffOptions) {
    this.#bytes = bytes;
    this.#size = bytes.length;
    this.#session = session;
    this.#maxLines = options.maxLines ?? DEFAULT_DIFF_LIMITS.maxLines;
    this.#maxFiles = options.maxFiles ?? DEFAULT_DIFF_LIMITS.maxFiles;
    this.#maxHunks = options.maxHunks ?? DEFAULT_DIFF_LIMITS.maxHunks;
    this.#eol = this.#findEol(0);
  }

  run(): GitDiff {
    let sawContent = false;
    let deferred: DiffParseError | null = null;
    while (this.#pos < this.#size) {
      if (this.#startsWith(P_DIFF_GIT)) {
        this.#parseGitFile();
        continue;
      }
      if (this.#startsWith(P_MINUS3) && this.#nextStartsWith(P_PLUS3)) {
        // Like git (apply.c find_header), a ---/+++ pair starts a file only when a
        // hunk header follows; otherwise it is text (say, in a commit message).
        const third = this.#lineAfterNext();
        if (third >= 0 && this.#startsWithAt(third, this.#findEol(third), P_HUNK)) {
          this.#parseUnifiedFile();
          continue;
        }
        if (third >= 0 && this.#isEdCommand(third, this.#findEol(third))) {
          throw new DiffParseError(
            "ed_script",
            this.#lineNo + 2,
            "ed-script body where a unified hunk belongs",
          );
        }
      }
      if (this.#startsWith(P_DIFF_CC) || this.#startsWith(P_DIFF_COMBINED)) {
        this.#fail("combined_diff", "combined (merge) diffs are not supported");
      }
      // git refuses a hunk header outside a file ("patch fragment without header").
      if (this.#startsWith(P_HUNK)) {
        this.#fail("unexpected_hunk", "hunk header outside a file section");
      }
      // git skips these as text; they only decide the error when nothing else is found.
      if (deferred === null && this.#lineIs(P_CONTEXT_STARS)) {
        deferred = new DiffParseError(
          "context_diff",
          this.#lineNo,
          "context diffs are not supported",
        );
      }
      if (deferred === null && this.#startsWith(P_GIT_BINARY)) {
        deferred = new DiffParseError(
          "unexpected_line",
          this.#lineNo,
          "binary patch outside a file section",
        );
      }
      if (!sawContent && this.#files.length === 0 && this.#isEdCommand(this.#pos, this.#eol)) {
        this.#fail("ed_script", "ed-script diffs are not supported");
      }
      if (this.#eol > this.#pos) sawContent = true;
      this.#advance();
    }
    if (this.#files.length === 0 && sawContent) {
      throw deferred ?? new DiffParseError("no_diff", 0, "input contains no file diff");
    }
    return { files: this.#files };
  }

  // ---- cursor -------------------------------------------------------------

  #findEol(from: number): number {
    const at = this.#bytes.indexOf(LF, from);
    return at < 0 ? this.#size : at;
  }

  #advance(): void {
    this.#pos = this.#eol + 1;
    if (this.#pos > this.#size) this.#pos = this.#size;
    this.#lineNo++;
    if (this.#lineNo > this.#maxLines) {
      throw new DiffParseError(
        "budget_exceeded",
        this.#lineNo,
        `more than ${this.#maxLines} lines`,
      );
    }
    this.#eol = this.#findEol(this.#pos);
  }

  #jumpTo(pos: number, lines: number): void {
    this.#pos = pos;
    this.#lineNo += lines;
    if (this.#lineNo > this.#maxLines) {
      throw new DiffParseError(
        "budget_exceeded",
        this.#lineNo,
        `more than ${this.#maxLines} lines`,
      );
    }
    this.#eol = this.#findEol(pos);
  }

  #atEnd(): boolean {
    return this.#pos >= this.#size;
  }

  #startsWithAt(pos: number, eol: number, prefix: Uint8Array): boolean {
    if (eol - pos < prefix.length) return false;
    const b = this.#bytes;
    for (let i = 0; i < prefix.length; i++) if (b[pos + i] !== prefix[i]) return false;
    return true;
  }

  #startsWith(prefix: Uint8Array): boolean {
    return this.#pos < this.#size && this.#startsWithAt(this.#pos, this.#eol, prefix);
  }

  #lineIs(text: Uint8Array): boolean {
    return this.#eol - this.#pos === text.length && this.#startsWith(text);
  }

  #nextStartsWith(prefix: Uint8Array): boolean {
    if (this.#eol >= this.#size) return false;
    const next = this.#eol + 1;
    return this.#startsWithAt(next, this.#findEol(next), prefix);
  }

  /** Offset of the line after the next one, or -1. */
  #lineAfterNext(): number {
    if (this.#eol >= this.#size) return -1;
    const next = this.#findEol(this.#eol + 1);
    return next >= this.#size ? -1 : next + 1;
  }

  #fail(code: DiffParseError["code"], detail: string): never {
    throw new DiffParseError(code, this.#lineNo, detail);
  }

  #text(start: number, end: number): string {
    return decodeUtf8(this.#bytes, start, end);
  }

  /** `12a`, `3,5c`, `7d` or a lone `.`: the shape of an ed-script command. */
  #isEdCommand(pos: number, eol: number): boolean {
    const b = this.#bytes;
    let i = pos;
    const digits = (): number => {
      const s = i;
      while (i < eol && b[i]! >= 0x30 && b[i]! <= 0x39) i++;
      return i - s;
    };
    if (digits() === 0) return false;
    if (i < eol && b[i] === 0x2c) {
      i++;
      if (digits() === 0) return false;
    }
    return i === eol - 1 && (b[i] === 0x61 || b[i] === 0x63 || b[i] === 0x64);
  }

  // ---- file sections ------------------------------------------------------

  #parseGitFile(): void {
    const file = newSection("git", this.#lineNo);
    const start = this.#pos + P_DIFF_GIT.length;
    const end = this.#eol;
    const names = splitGitHeaderNames(this.#bytes, start, end, this.#lineNo);
    file.gitOld = names.oldName;
    file.gitNew = names.newName;
    file.headerStart = start;
    file.headerEnd = end;
    file.headerAmbiguous = names.oldName === null;
    this.#advance();
    this.#parseExtendedHeaders(file);
    if (this.#startsWith(P_MINUS3)) {
      this.#parseMarkers(file);
      this.#parseHunks(file);
    } else if (this.#startsWith(P_GIT_BINARY)) {
      this.#parseBinary(file);
    } else if (this.#startsWith(P_HUNK) || this.#startsWith(P_AT_AT)) {
      this.#fail("missing_header", "hunk without ---/+++ lines");
    } else if (this.#startsWith(P_PLUS3)) {
      this.#fail("missing_header", "+++ line without a --- line");
    }
    this.#expectSectionEnd();
    this.#finish(file);
  }

  #parseUnifiedFile(): void {
    const file = newSection("unified", this.#lineNo);
    this.#parseMarkers(file);
    this.#parseHunks(file);
    this.#expectSectionEnd();
    this.#finish(file);
  }

  /** After a file section only a new header, a separator or unrelated text may follow. */
  #expectSectionEnd(): void {
    if (this.#atEnd()) return;
    const first = this.#bytes[this.#pos]!;
    if (first === PLUS || first === SPACE || first === BACKSLASH) {
      this.#fail("hunk_count_mismatch", "body line after the hunk counts were met");
    }
    if (first === MINUS) {
      const len = this.#eol - this.#pos;
      const signature = len === 3 && this.#bytes[this.#pos + 1] === MINUS &&
        this.#bytes[this.#pos + 2] === SPACE;
      const nextHeader = this.#startsWith(P_MINUS3) && this.#nextStartsWith(P_PLUS3);
      // format-patch's `---` between the message and the diffstat: git (apply and am)
      // ends a diff pasted into the commit message there.
      const mailSeparator = len === 3 && this.#bytes[this.#pos + 1] === MINUS &&
        this.#bytes[this.#pos + 2] === MINUS && this.#diffstatFollows();
      if (!signature && !nextHeader && !mailSeparator) {
        this.#fail("hunk_count_mismatch", "body line after the hunk counts were met");
      }
    }
  }

  /** Whether the line after the current one ends the input, is empty, or is a diffstat line. */
  #diffstatFollows(): boolean {
    if (this.#eol >= this.#size - 1) return true;
    const next = this.#eol + 1;
    const end = this.#findEol(next);
    if (end === next) return true;
    if (this.#bytes[next] !== SPACE) return false;
    const line = this.#text(next, end);
    return / \| /.test(line) || /^ \d+ files? changed/.test(line);
  }

  #parseExtendedHeaders(file: Section): void {
    const b = this.#bytes;
    for (;;) {
      if (this.#atEnd()) return;
      const pos = this.#pos;
      const eol = this.#eol;
      const line = this.#lineNo;
      const first = b[pos]!;
      // Fast exit for the lines that end the header block.
      if (first === MINUS || first === AT || first === PLUS || first === LF) return;
      if (this.#startsWith(P_INDEX)) {
        if (file.oldHash !== null) this.#fail("bad_extended_header", "repeated index line");
        this.#parseIndexLine(file, pos + P_INDEX.length, eol);
      } else if (this.#startsWith(P_OLD_MODE)) {
        file.oldMode = this.#once(file.oldMode, this.#mode(pos + P_OLD_MODE.length, eol));
      } else if (this.#startsWith(P_NEW_MODE)) {
        file.newMode = this.#once(file.newMode, this.#mode(pos + P_NEW_MODE.length, eol));
      } else if (this.#startsWith(P_DELETED_MODE)) {
        file.deletedFileMode = this.#once(
          file.deletedFileMode,
          this.#mode(pos + P_DELETED_MODE.length, eol),
        );
      } else if (this.#startsWith(P_NEW_FILE_MODE)) {
        file.newFileMode = this.#once(
          file.newFileMode,
          this.#mode(pos + P_NEW_FILE_MODE.length, eol),
        );
      } else if (this.#startsWith(P_RENAME_FROM) || this.#startsWith(P_RENAME_OLD)) {
        const name = readLineName(b, pos + P_RENAME_FROM.length, eol, line);
        file.renameFrom = this.#once(file.renameFrom, name);
      } else if (this.#startsWith(P_RENAME_TO)) {
        file.renameTo = this.#once(
          file.renameTo,
          readLineName(b, pos + P_RENAME_TO.length, eol, line),
        );
      } else if (this.#startsWith(P_RENAME_NEW)) {
        file.renameTo = this.#once(
          file.renameTo,
          readLineName(b, pos + P_RENAME_NEW.length, eol, line),
        );
      } else if (this.#startsWith(P_COPY_FROM)) {
        file.copyFrom = this.#once(
          file.copyFrom,
          readLineName(b, pos + P_COPY_FROM.length, eol, line),
        );
      } else if (this.#startsWith(P_COPY_TO)) {
        file.copyTo = this.#once(file.copyTo, readLineName(b, pos + P_COPY_TO.length, eol, line));
      } else if (this.#startsWith(P_SIMILARITY)) {
        file.similarity = this.#once(
          file.similarity,
          this.#percent(pos + P_SIMILARITY.length, eol),
        );
      } else if (this.#startsWith(P_DISSIMILARITY)) {
        file.dissimilarity = this.#once(
          file.dissimilarity,
          this.#percent(pos + P_DISSIMILARITY.length, eol),
        );
      } else if (this.#startsWith(P_BINARY_FILES)) {
        if (!this.#endsWith(pos, eol, " differ")) {
          this.#fail("bad_extended_header", "malformed 'Binary files ... differ' line");
        }
        if (file.binaryKind !== null) this.#fail("bad_extended_header", "repeated binary line");
        file.binaryKind = "differ";
      } else {
        return;
      }
      this.#advance();
    }
  }

  #endsWith(pos: number, eol: number, suffix: string): boolean {
    if (eol - pos < suffix.length) return false;
    for (let i = 0; i < suffix.length; i++) {
      if (this.#bytes[eol - suffix.length + i] !== suffix.charCodeAt(i)) return false;
    }
    return true;
  }

  #once<T>(previous: T | null, value: T): T {
    if (previous !== null) this.#fail("bad_extended_header", "repeated extended header");
    return value;
  }

  #mode(start: number, end: number): string {
    const mode = this.#text(start, end);
    if (!VALID_MODES.has(mode)) this.#fail("bad_mode", `unknown mode ${JSON.stringify(mode)}`);
    return mode === "100664" ? "100644" : mode;
  }

  #percent(start: number, end: number): number {
    const b = this.#bytes;
    let value = 0;
    let i = start;
    while (i < end && b[i]! >= 0x30 && b[i]! <= 0x39 && i - start < 3) {
      value = value * 10 + (b[i]! - 0x30);
      i++;
    }
    if (i === start || i !== end - 1 || b[i] !== 0x25 || value > 100) {
      this.#fail("bad_extended_header", "malformed similarity percentage");
    }
    return value;
  }

  #parseIndexLine(file: Section, start: number, end: number): void {
    const b = this.#bytes;
    const hex = (from: number): number => {
      let i = from;
      while (i < end && ((b[i]! >= 0x30 && b[i]! <= 0x39) || (b[i]! >= 0x61 && b[i]! <= 0x66))) {
        i++;
      }
      return i;
    };
    const oldEnd = hex(start);
    // git accepts abbreviated object names of any length (`index 1..2 100644`).
    if (oldEnd - start < 1 || oldEnd - start > 64 || b[oldEnd] !== 0x2e || b[oldEnd + 1] !== 0x2e) {
      this.#fail("bad_extended_header", "malformed index line");
    }
    const newStart = oldEnd + 2;
    const newEnd = hex(newStart);
    if (newEnd - newStart < 1 || newEnd - newStart > 64) {
      this.#fail("bad_extended_header", "malformed index line");
    }
    file.oldHash = this.#text(start, oldEnd);
    file.newHash = this.#text(newStart, newEnd);
    if (newEnd < end) {
      if (b[newEnd] !== SPACE) this.#fail("bad_extended_header", "malformed index line");
      file.indexMode = this.#mode(newEnd + 1, end);
    }
  }

  #parseMarkers(file: Section): void {
    const b = this.#bytes;
    const minusLine = this.#lineNo;
    const minus = readMarkerName(b, this.#pos + 4, this.#eol, minusLine);
    file.minusEpoch = hasEpochTimestamp(b, this.#pos, this.#eol);
    this.#advance();
    if (!this.#startsWith(P_PLUS3)) this.#fail("missing_header", "--- line without a +++ line");
    const plus = readMarkerName(b, this.#pos + 4, this.#eol, this.#lineNo);
    file.plusEpoch = hasEpochTimestamp(b, this.#pos, this.#eol);
    if (file.headerKind === "git") {
      if (
        (!minus.devNull && minus.stripped === null) || (!plus.devNull && plus.stripped === null)
      ) {
        this.#fail("missing_name", "---/+++ name has no prefix component");
      }
      file.minus = minus.stripped;
      file.plus = plus.stripped;
    } else {
      // Plain diffs: -p1 when there is a component to strip, else the name as is.
      file.minus = minus.stripped ?? minus.full;
      file.plus = plus.stripped ?? plus.full;
      if (file.minus === null && file.plus === null) {
        this.#fail("missing_name", "both sides are /dev/null");
      }
    }
    file.hasMarkers = true;
    this.#advance();
    if (!this.#startsWith(P_HUNK)) {
      if (this.#isEdCommand(this.#pos, this.#eol)) {
        this.#fail("ed_script", "ed-script body where a unified hunk belongs");
      }
      if (this.#atEnd()) this.#fail("truncated", "input ends after the +++ line");
      this.#fail("bad_hunk_header", "expected a @@ hunk header after +++");
    }
  }

  #parseHunks(file: Section): void {
    while (!this.#atEnd() && this.#startsWith(P_HUNK)) {
      this.#hunkCount++;
      if (this.#hunkCount > this.#maxHunks) {
        this.#fail("budget_exceeded", `more than ${this.#maxHunks} hunks`);
      }
      const headerLine = this.#lineNo;
      const header = this.#parseHunkHeader();
      const bodyStart = this.#eol + 1 > this.#size ? this.#size : this.#eol + 1;
      if (this.#eol >= this.#size) this.#fail("truncated", "input ends after a hunk header");
      const scan = this.#session.scanHunk(bodyStart, header.oldLines, header.newLines);
      if (scan.status !== 0) {
        const line = headerLine + 1 + scan.lines;
        if (scan.status === HUNK_SCAN_FAILURES.truncated) {
          throw new DiffParseError("truncated", line, "input ends inside a hunk");
        }
        if (scan.status === HUNK_SCAN_FAILURES.badMarker) {
          throw new DiffParseError("hunk_count_mismatch", line, "misplaced or malformed '\\' line");
        }
        throw new DiffParseError(
          "hunk_count_mismatch",
          line,
          "hunk body does not match its header counts",
        );
      }
      if (scan.additions + scan.deletions === 0) {
        throw new DiffParseError("hunk_without_changes", headerLine, "hunk changes nothing");
      }
      file.hunks.push(
        new LazyHunk(
          this.#bytes,
          header.oldStart,
          header.oldLines,
          header.newStart,
          header.newLines,
          header.section,
          scan.additions,
          scan.deletions,
          headerLine,
          bodyStart,
          scan.end,
        ),
      );
      file.additions += scan.additions;
      file.deletions += scan.deletions;
      this.#jumpTo(scan.end, 1 + scan.lines);
    }
    if (!this.#atEnd() && this.#bytes[this.#pos] === AT) {
      this.#fail("bad_hunk_header", "malformed hunk header");
    }
  }

  #parseHunkHeader(): {
    oldStart: number;
    oldLines: number;
    newStart: number;
    newLines: number;
    section: string;
  } {
    const b = this.#bytes;
    const end = this.#eol;
    let i = this.#pos + P_HUNK.length;
    const number = (): number => {
      const s = i;
      let v = 0;
      while (i < end && b[i]! >= 0x30 && b[i]! <= 0x39) {
        v = v * 10 + (b[i]! - 0x30);
        i++;
        if (i - s > 10) break;
      }
      if (i === s || v > 0x7fffffff) this.#fail("bad_hunk_header", "hunk range out of bounds");
      return v;
    };
    const range = (): [number, number] => {
      const startLine = number();
      let count = 1;
      if (i < end && b[i] === 0x2c) {
        i++;
        count = number();
      }
      return [startLine, count];
    };
    const [oldStart, oldLines] = range();
    if (i + 1 >= end || b[i] !== SPACE || b[i + 1] !== PLUS) {
      this.#fail("bad_hunk_header", "expected ' +' in hunk header");
    }
    i += 2;
    const [newStart, newLines] = range();
    if (end - i < 3 || b[i] !== SPACE || b[i + 1] !== AT || b[i + 2] !== AT) {
      this.#fail("bad_hunk_header", "expected ' @@' in hunk header");
    }
    i += 3;
    if (i < end && b[i] === SPACE) i++;
    const section = i < end ? this.#text(i, end) : "";
    if (oldLines + newLines === 0) this.#fail("bad_hunk_header", "empty hunk");
    return { oldStart, oldLines, newStart, newLines, section };
  }

  #parseBinary(file: Section): void {
    if (file.binaryKind !== null) this.#fail("bad_binary", "two binary descriptions");
    if (
      file.oldHash === null || file.newHash === null ||
      !isFullHash(file.oldHash) || !isFullHash(file.newHash)
    ) {
      this.#fail("bad_binary", "binary patch without a full index line");
    }
    this.#advance();
    const forward = this.#parseBinaryHunk(true);
    let reverse: BinaryHunk | null = null;
    if (this.#startsWith(P_LITERAL) || this.#startsWith(P_DELTA)) {
      reverse = this.#parseBinaryHunk(false);
    }
    file.binaryKind = forward.kind;
    file.binaryPatch = { forward, reverse };
  }

  #parseBinaryHunk(required: boolean): BinaryHunk {
    const b = this.#bytes;
    let kind: "literal" | "delta";
    let at: number;
    if (this.#startsWith(P_LITERAL)) {
      kind = "literal";
      at = this.#pos + P_LITERAL.length;
    } else if (this.#startsWith(P_DELTA)) {
      kind = "delta";
      at = this.#pos + P_DELTA.length;
    } else {
      if (this.#atEnd()) this.#fail("truncated", "input ends inside a binary patch");
      this.#fail("bad_binary", required ? "expected 'literal' or 'delta'" : "bad binary block");
    }
    let size = 0;
    const digitsStart = at;
    while (at < this.#eol && b[at]! >= 0x30 && b[at]! <= 0x39 && at - digitsStart < 11) {
      size = size * 10 + (b[at]! - 0x30);
      at++;
    }
    if (at === digitsStart || at !== this.#eol || size > 0xffffffff) {
      this.#fail("bad_binary", "malformed binary size");
    }
    this.#advance();
    // First pass: validate line shapes and count bytes.
    const firstPos = this.#pos;
    const firstLine = this.#lineNo;
    let total = 0;
    let lines = 0;
    for (;;) {
      if (this.#atEnd()) this.#fail("truncated", "input ends inside a binary patch");
      if (this.#eol === this.#pos) break; // the blank line ending the block
      const count = base85LineLength(b[this.#pos]!);
      const textLen = this.#eol - this.#pos - 1;
      if (count === 0 || textLen !== Math.ceil(count / 4) * 5) {
        this.#fail("bad_binary", "base85 line length disagrees with its length byte");
      }
      total += count;
      lines++;
      this.#advance();
    }
    if (this.#eol >= this.#size) this.#fail("truncated", "binary block lacks its blank line");
    if (lines === 0) this.#fail("bad_binary", "binary block without data");
    const data = new Uint8Array(total);
    let pos = firstPos;
    let offset = 0;
    for (let k = 0; k < lines; k++) {
      const eol = b.indexOf(LF, pos);
      const count = base85LineLength(b[pos]!);
      if (!decodeBase85Line(b, pos + 1, eol, count, data, offset)) {
        throw new DiffParseError("bad_binary", firstLine + k, "invalid base85 data");
      }
      offset += count;
      pos = eol + 1;
    }
    this.#advance(); // the blank line
    return { kind, size, data };
  }

  // ---- validation ---------------------------------------------------------

  #finish(f: Section): void {
    if (this.#files.length >= this.#maxFiles) {
      throw new DiffParseError("budget_exceeded", f.line, `more than ${this.#maxFiles} files`);
    }
    this.#files.push(finishSection(f, this.#bytes));
  }
}

/**
 * git's `has_epoch_timestamp()`: the text after the last TAB of a `---`/`+++`
 * line is the Unix epoch in some time zone (`1970-01-01 00:00:00 +0000`,
 * `1969-12-31 19:00:00.000000000 -0500`, ...), which GNU `diff -N` writes for
 * a side that does not exist.
 */
function hasEpochTimestamp(bytes: Uint8Array, start: number, end: number): boolean {
  let tab = -1;
  for (let i = start; i < end; i++) if (bytes[i] === 0x09) tab = i;
  if (tab < 0) return false;
  let i = tab + 1;
  const text = (s: string): boolean => {
    if (end - i < s.length) return false;
    for (let k = 0; k < s.length; k++) if (bytes[i + k] !== s.charCodeAt(k)) return false;
    i += s.length;
    return true;
  };
  const digit = (): number => {
    const d = i < end ? bytes[i]! - 0x30 : -1;
    if (d < 0 || d > 9) return -1;
    i++;
    return d;
  };
  const two = (): number => {
    const a = digit();
    const b = digit();
    return a < 0 || b < 0 ? -1 : a * 10 + b;
  };
  let epochHour: number;
  if (text("1969-12-31 ")) epochHour = 24;
  else if (text("1970-01-01 ")) epochHour = 0;
  else return false;
  const hour = two();
  if (hour < 0 || hour > 29 || !text(":")) return false;
  const minute = two();
  if (minute < 0 || minute > 59 || !text(":00")) return false;
  if (text(".")) {
    const fraction = i;
    while (i < end && bytes[i] === 0x30) i++;
    if (i === fraction) return false;
  }
  if (!text(" ")) return false;
  const sign = i < end ? bytes[i] : -1;
  if (sign !== 0x2b && sign !== 0x2d) return false;
  i++;
  const zh = two();
  if (zh < 0 || zh > 29) return false;
  text(":");
  const zm = two();
  if (zm < 0 || zm > 59 || i !== end) return false;
  const offset = (sign === 0x2d ? -1 : 1) * (zh * 60 + zm);
  return hour * 60 + minute - offset === epochHour * 60;
}

function isFullHash(hash: string): boolean {
  return hash.length === 40 || hash.length === 64;
}
