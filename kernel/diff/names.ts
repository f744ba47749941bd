/**
 * Name grammar of git patches: C-style quoted names, `-p1` prefix stripping,
 * and splitting the `diff --git a/<old> b/<new>` line the way git does.
 *
 * @module
 */
import { DiffParseError } from "./error.ts";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SLASH = 0x2f;
const SPACE = 0x20;
const TAB = 0x09;

/**
 * Longest name-bearing text accepted (64 KiB). Real paths are far shorter
 * (git and the confinement rules stop at 4096 bytes); the cap keeps hostile
 * header lines from forcing large allocations.
 */
export const MAX_NAME_TEXT = 1 << 16;

function checkLength(start: number, end: number, line: number): void {
  if (end - start > MAX_NAME_TEXT) {
    throw new DiffParseError("bad_name", line, `name text longer than ${MAX_NAME_TEXT} bytes`);
  }
}

/** A name read from a header line, and where the reading stopped. */
export interface NameRead {
  /** The decoded name bytes (quotes and escapes resolved). */
  readonly bytes: Uint8Array;
  /** Offset just past the name (past the closing quote for quoted names). */
  readonly end: number;
}

const SIMPLE_ESCAPES: Readonly<Record<number, number>> = {
  0x61: 0x07, // \a
  0x62: 0x08, // \b
  0x66: 0x0c, // \f
  0x6e: 0x0a, // \n
  0x72: 0x0d, // \r
  0x74: 0x09, // \t
  0x76: 0x0b, // \v
  0x5c: 0x5c, // \\
  0x22: 0x22, // \"
};

/**
 * Reads a C-quoted name starting at the opening quote `bytes[start]`, with
 * git's escapes (`\a\b\f\n\r\t\v\\\"` and `\ooo` with a first digit 0-3).
 * Throws `bad_quoted_name` on any other escape or a missing closing quote.
 *
 * @example
 * ```ts
 * import { readQuotedName } from "./names.ts";
 * const line = new Uint8Array([0x22, 0x61, 0x5c, 0x74, 0x62, 0x22]); // "a\tb"
 * const read = readQuotedName(line, 0, line.length, 1);
 * if (read.bytes[1] !== 9 || read.end !== 6) throw new Error("unexpected");
 * ```
 */
export function readQuotedName(
  bytes: Uint8Array,
  start: number,
  end: number,
  line: number,
): NameRead {
  checkLength(start, end, line);
  const out = new Uint8Array(end - start);
  let n = 0;
  let i = start + 1;
  while (i < end) {
    const b = bytes[i]!;
    if (b === QUOTE) return { bytes: out.slice(0, n), end: i + 1 };
    if (b !== BACKSLASH) {
      out[n++] = b;
      i++;
      continue;
    }
    const e = i + 1 < end ? bytes[i + 1]! : -1;
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      out[n++] = simple;
      i += 2;
      continue;
    }
    if (e >= 0x30 && e <= 0x33 && i + 3 < end) {
      const d2 = bytes[i + 2]!;
      const d3 = bytes[i + 3]!;
      if (d2 >= 0x30 && d2 <= 0x37 && d3 >= 0x30 && d3 <= 0x37) {
        out[n++] = ((e - 0x30) << 6) | ((d2 - 0x30) << 3) | (d3 - 0x30);
        i += 4;
        continue;
      }
    }
    throw new DiffParseError("bad_quoted_name", line, "invalid escape in quoted name");
  }
  throw new DiffParseError("bad_quoted_name", line, "quoted name has no closing quote");
}

/**
 * Strips the first path component (`a/`, `b/`, ...) like `git apply -p1`.
 * Returns null when there is no `/` to strip or nothing follows it.
 *
 * @example
 * ```ts
 * import { stripPrefix } from "./names.ts";
 * const name = stripPrefix(new Uint8Array([0x61, 0x2f, 0x78]));
 * if (name === null || name.length !== 1 || name[0] !== 0x78) throw new Error("unexpected");
 * ```
 */
export function stripPrefix(name: Uint8Array): Uint8Array | null {
  const slash = name.indexOf(SLASH);
  if (slash <= 0 || slash + 1 >= name.length) return null;
  return name.subarray(slash + 1);
}

/** Reused KMP failure table (the parser is synchronous and not re-entrant). */
let scratch = new Int32Array(256);
/** Reused next-slash table, same reason. */
let scratchSlash = new Int32Array(256);

/** Index of `byte` in `bytes[start..end)`, or -1 (never looks past `end`). */
function indexWithin(bytes: Uint8Array, byte: number, start: number, end: number): number {
  for (let i = start; i < end; i++) if (bytes[i] === byte) return i;
  return -1;
}

/** Byte-wise equality. */
export function bytesEqual(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Rejects names git would never print unquoted or that cannot be a path:
 * empty, containing NUL, or (when `quoted` is false) containing control bytes.
 */
export function checkName(name: Uint8Array, quoted: boolean, line: number): void {
  if (name.length === 0) throw new DiffParseError("bad_name", line, "empty name");
  for (let i = 0; i < name.length; i++) {
    const b = name[i]!;
    if (b === 0) throw new DiffParseError("bad_name", line, "name contains NUL");
    if (!quoted && (b < 0x20 || b === 0x7f)) {
      throw new DiffParseError("bad_name", line, "unquoted name contains a control byte");
    }
  }
}

/**
 * The checked name of a quoted name at `start` that ends the line (or, with
 * `tabMayFollow`, is followed by a TAB: a `---`/`+++` line's trailer), or null
 * when the text at `start` is not quoted. Checks the text's length first.
 */
function readWholeQuotedName(
  bytes: Uint8Array,
  start: number,
  end: number,
  line: number,
  tabMayFollow: boolean,
): Uint8Array | null {
  checkLength(start, end, line);
  if (start >= end || bytes[start] !== QUOTE) return null;
  const read = readQuotedName(bytes, start, end, line);
  if (read.end !== end && !(tabMayFollow && bytes[read.end] === TAB)) {
    throw new DiffParseError("bad_quoted_name", line, "text after a quoted name");
  }
  checkName(read.bytes, true, line);
  return read.bytes;
}

/**
 * Reads one name (quoted or not) from `bytes[start..end)`, as in `rename from`
 * lines: an unquoted name runs to the end of the line.
 */
export function readLineName(
  bytes: Uint8Array,
  start: number,
  end: number,
  line: number,
): Uint8Array {
  const quoted = readWholeQuotedName(bytes, start, end, line, false);
  if (quoted !== null) return quoted;
  const name = bytes.subarray(start, end);
  checkName(name, false, line);
  return name;
}

/** A `---`/`+++` name: `/dev/null`, or the name with its first component stripped (`-p1`). */
export interface MarkerName {
  /** True for `/dev/null`. */
  readonly devNull: boolean;
  /** The name after its first path component, or null when it has none to strip. */
  readonly stripped: Uint8Array | null;
  /** The whole name, present only when `stripped` is null and the name is not `/dev/null`. */
  readonly full: Uint8Array | null;
}

/**
 * Reads the name of a `---`/`+++` line: quoted, or unquoted up to the first
 * TAB (git appends a TAB after names with spaces; GNU diff puts a timestamp
 * there). Unquoted names become views into `bytes` (one view, already stripped).
 *
 * @example
 * ```ts
 * import { readMarkerName } from "./names.ts";
 * const line = Uint8Array.from("a/x.txt\t2020", (c) => c.charCodeAt(0));
 * const name = readMarkerName(line, 0, line.length, 1);
 * if (name.stripped?.length !== 5) throw new Error("unexpected");
 * ```
 */
export function readMarkerName(
  bytes: Uint8Array,
  start: number,
  end: number,
  line: number,
): MarkerName {
  const quoted = readWholeQuotedName(bytes, start, end, line, true);
  if (quoted !== null) {
    const stripped = stripPrefix(quoted);
    return { devNull: false, stripped, full: stripped === null ? quoted : null };
  }
  let stop = start;
  while (stop < end && bytes[stop] !== TAB) stop++;
  if (isDevNullAt(bytes, start, stop)) return { devNull: true, stripped: null, full: null };
  if (stop === start) throw new DiffParseError("bad_name", line, "empty name");
  let slash = -1;
  for (let i = start; i < stop; i++) {
    const b = bytes[i]!;
    if (b < 0x20 || b === 0x7f) {
      throw new DiffParseError(
        "bad_name",
        line,
        b === 0 ? "name contains NUL" : "unquoted name contains a control byte",
      );
    }
    if (b === SLASH && slash < 0) slash = i;
  }
  if (slash > start && slash + 1 < stop) {
    return { devNull: false, stripped: bytes.subarray(slash + 1, stop), full: null };
  }
  return { devNull: false, stripped: null, full: bytes.subarray(start, stop) };
}

const DEV_NULL = [0x2f, 0x64, 0x65, 0x76, 0x2f, 0x6e, 0x75, 0x6c, 0x6c];

function isDevNullAt(bytes: Uint8Array, start: number, stop: number): boolean {
  if (stop - start !== DEV_NULL.length) return false;
  for (let i = 0; i < DEV_NULL.length; i++) if (bytes[start + i] !== DEV_NULL[i]) return false;
  return true;
}

/** The two names of a `diff --git` line, each null when git could not tell. */
export interface GitHeaderNames {
  /** The old name with its prefix stripped, or null if ambiguous. */
  readonly oldName: Uint8Array | null;
  /** The new name with its prefix stripped, or null if ambiguous. */
  readonly newName: Uint8Array | null;
}

/**
 * Splits the names after `diff --git ` (`bytes[start..end)`), following git's
 * `git_header_name()`: quoted names are exact; for two unquoted names the split
 * is accepted only where both halves name the same path ("a/x y b/x y"), and
 * otherwise left null for the rename/copy or `---`/`+++` lines to settle.
 *
 * @example
 * ```ts
 * import { splitGitHeaderNames } from "./names.ts";
 * const text = "a/x y b/x y";
 * const bytes = Uint8Array.from(text, (c) => c.charCodeAt(0));
 * const names = splitGitHeaderNames(bytes, 0, bytes.length, 1);
 * if (names.oldName?.length !== 3) throw new Error("unexpected");
 * ```
 */
export function splitGitHeaderNames(
  bytes: Uint8Array,
  start: number,
  end: number,
  line: number,
): GitHeaderNames {
  if (start >= end) throw new DiffParseError("bad_diff_header", line, "no names");
  checkLength(start, end, line);
  if (bytes[start] === QUOTE) {
    const first = readQuotedName(bytes, start, end, line);
    checkName(first.bytes, true, line);
    if (first.end >= end || bytes[first.end] !== SPACE) {
      throw new DiffParseError("bad_diff_header", line, "expected a second name");
    }
    const second = readLineName(bytes, first.end + 1, end, line);
    const a = stripPrefix(first.bytes);
    const b = stripPrefix(second);
    if (a === null || b === null) {
      throw new DiffParseError("missing_name", line, "name has no prefix component");
    }
    return { oldName: a, newName: b };
  }
  // Unquoted first name.
  for (let i = start; i < end; i++) {
    const b = bytes[i]!;
    if (b < 0x20 || b === 0x7f) {
      if (b === TAB) continue;
      throw new DiffParseError("bad_name", line, "unquoted name contains a control byte");
    }
  }
  // Second name quoted: the first runs up to the space before the quote.
  const quoteAt = indexWithin(bytes, QUOTE, start, end);
  if (quoteAt > start && bytes[quoteAt - 1] === SPACE) {
    const second = readQuotedName(bytes, quoteAt, end, line);
    if (second.end === end) {
      const first = bytes.subarray(start, quoteAt - 1);
      checkName(first, false, line);
      checkName(second.bytes, true, line);
      const a = stripPrefix(first);
      const b2 = stripPrefix(second.bytes);
      if (a === null || b2 === null) {
        throw new DiffParseError("missing_name", line, "name has no prefix component");
      }
      return { oldName: a, newName: b2 };
    }
  }
  // Both unquoted: git's equal-halves rule. git tries every separator from the
  // left; the halves are equal exactly when the name is a border (prefix equal
  // to suffix) of the text after the first prefix, so the KMP failure function
  // enumerates every candidate in linear time (no quadratic rescans).
  const firstSlash = indexWithin(bytes, SLASH, start, end);
  if (firstSlash <= start) return { oldName: null, newName: null };
  const nameStart = firstSlash + 1;
  const total = end - nameStart;
  if (total < 3) return { oldName: null, newName: null };
  if (scratch.length < total + 1) scratch = new Int32Array(Math.max(total + 1, scratch.length * 2));
  const failure = scratch;
  failure[0] = -1;
  for (let i = 1, k = -1; i <= total; i++) {
    while (k >= 0 && bytes[nameStart + k] !== bytes[nameStart + i - 1]) k = failure[k]!;
    k++;
    failure[i] = k;
  }
  // nextSlash[i]: offset (relative to nameStart) of the first '/' at or after i, or total.
  // nextSlash[i]: offset of the first '/' at or after i (relative to nameStart), or total.
  if (scratchSlash.length < total + 1) {
    scratchSlash = new Int32Array(Math.max(total + 1, scratchSlash.length * 2));
  }
  const nextSlash = scratchSlash;
  nextSlash[total] = total;
  for (let i = total - 1; i >= 0; i--) {
    nextSlash[i] = bytes[nameStart + i] === SLASH ? i : nextSlash[i + 1]!;
  }
  let best = -1;
  for (let len = failure[total]!; len > 0; len = failure[len]!) {
    const sep = bytes[nameStart + len];
    if (sep !== SPACE && sep !== TAB) continue;
    // Between the separator and the second name: one non-empty component ending in '/'.
    const secondStart = total - len;
    if (secondStart - 1 <= len + 1 || bytes[nameStart + secondStart - 1] !== SLASH) continue;
    if (nextSlash[len + 1] !== secondStart - 1) continue;
    best = len; // borders come largest first; git picks the leftmost separator
  }
  if (best > 0) {
    const name = bytes.subarray(nameStart, nameStart + best);
    checkName(name, false, line);
    return { oldName: name, newName: name };
  }
  return { oldName: null, newName: null };
}

/**
 * True when `bytes[start..end)` is exactly `<p>/<oldName> <q>/<newName>` for
 * some one-component prefixes (used to cross-check an ambiguous header).
 */
export function headerMatchesNames(
  bytes: Uint8Array,
  start: number,
  end: number,
  oldName: Uint8Array,
  newName: Uint8Array,
): boolean {
  let p = start;
  while (p < end && bytes[p] !== SLASH && bytes[p] !== SPACE) p++;
  if (p >= end || bytes[p] !== SLASH) return false;
  p++;
  if (end - p < oldName.length) return false;
  for (let k = 0; k < oldName.length; k++) if (bytes[p + k] !== oldName[k]) return false;
  p += oldName.length;
  if (p >= end || bytes[p] !== SPACE) return false;
  p++;
  while (p < end && bytes[p] !== SLASH && bytes[p] !== SPACE) p++;
  if (p >= end || bytes[p] !== SLASH) return false;
  p++;
  if (end - p !== newName.length) return false;
  for (let k = 0; k < newName.length; k++) if (bytes[p + k] !== newName[k]) return false;
  return true;
}
