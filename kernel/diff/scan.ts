/**
 * The TypeScript hunk body scanner: the specification the WASM scanner must
 * match byte for byte, and the default.
 *
 * @module
 */
import type { DiffLineScanner, DiffScanSession, HunkScan } from "./types.ts";

const LF = 0x0a;
const SPACE = 0x20;
const PLUS = 0x2b;
const MINUS = 0x2d;
const BACKSLASH = 0x5c;

/** git accepts a `\` marker line only if it is at least this long (apply.c). */
const MIN_MARKER_LENGTH = 12;

/**
 * Offset of the first LF at or after `pos`, or `size`. Reads four bytes at a
 * time: in `x = word ^ 0x0a0a0a0a` an LF byte becomes zero, and
 * `(x - 0x01010101) & ~x & 0x80808080` sets the high bit of the lowest zero
 * byte (bits above it may be false positives; only the lowest is used).
 */
function findLf(bytes: Uint8Array, view: DataView | null, pos: number, size: number): number {
  let i = pos;
  while (view !== null && i + 4 <= size) {
    const x = view.getUint32(i, true) ^ 0x0a0a0a0a;
    const hit = (x - 0x01010101) & ~x & 0x80808080;
    if (hit !== 0) return i + ((31 - Math.clz32(hit & -hit)) >> 3);
    i += 4;
  }
  while (i < size && bytes[i] !== LF) i++;
  return i;
}

/** Below this size a byte loop beats creating a DataView. */
const WORD_SCAN_MIN_BYTES = 4096;

function wordView(bytes: Uint8Array): DataView | null {
  return bytes.length < WORD_SCAN_MIN_BYTES
    ? null
    : new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Scans one hunk body of `bytes` from `start` (see `DiffScanSession.scanHunk`).
 *
 * @example
 * ```ts
 * import { scanHunkBody } from "./scan.ts";
 * const bytes = new TextEncoder().encode(" a\n-b\n+c\n\\ No newline at end of file\n");
 * const scan = scanHunkBody(bytes, 0, 2, 2);
 * if (scan.status !== 0 || scan.lines !== 4 || scan.additions !== 1) throw new Error("unexpected");
 * ```
 */
export function scanHunkBody(
  bytes: Uint8Array,
  start: number,
  oldLines: number,
  newLines: number,
  view: DataView | null = wordView(bytes),
): HunkScan {
  const size = bytes.length;
  let pos = start;
  let oldLeft = oldLines;
  let newLeft = newLines;
  let lines = 0;
  let additions = 0;
  let deletions = 0;
  let previousWasLine = false;
  while (oldLeft > 0 || newLeft > 0) {
    if (pos >= size) return { status: 2, end: pos, lines, additions, deletions };
    const eol = findLf(bytes, view, pos, size);
    if (eol >= size) return { status: 2, end: pos, lines, additions, deletions };
    const first = bytes[pos]!;
    if (first === MINUS) {
      oldLeft--;
      deletions++;
    } else if (first === PLUS) {
      newLeft--;
      additions++;
    } else if (first === SPACE || first === LF) {
      oldLeft--;
      newLeft--;
    } else if (first === BACKSLASH) {
      if (!previousWasLine || eol + 1 - pos < MIN_MARKER_LENGTH || bytes[pos + 1] !== SPACE) {
        return { status: 3, end: pos, lines, additions, deletions };
      }
      previousWasLine = false;
      lines++;
      pos = eol + 1;
      continue;
    } else {
      return { status: 1, end: pos, lines, additions, deletions };
    }
    if (oldLeft < 0 || newLeft < 0) return { status: 1, end: pos, lines, additions, deletions };
    previousWasLine = true;
    lines++;
    pos = eol + 1;
  }
  // An optional trailing "\ No newline at end of file" marker (its LF may be missing at EOF).
  if (previousWasLine && pos < size && bytes[pos] === BACKSLASH) {
    let eol = bytes.indexOf(LF, pos);
    const lineEnd = eol < 0 ? size : eol + 1;
    if (lineEnd - pos < MIN_MARKER_LENGTH || bytes[pos + 1] !== SPACE) {
      return { status: 3, end: pos, lines, additions, deletions };
    }
    eol = lineEnd;
    lines++;
    pos = eol;
  }
  return { status: 0, end: pos, lines, additions, deletions };
}

/**
 * The default scanner: {@link scanHunkBody} over the bytes given to `begin`.
 *
 * @example
 * ```ts
 * import { typescriptDiffScanner } from "./scan.ts";
 * const session = typescriptDiffScanner.begin(new TextEncoder().encode("+x\n"));
 * if (session.scanHunk(0, 0, 1).additions !== 1) throw new Error("unexpected");
 * session.end();
 * ```
 */
export const typescriptDiffScanner: DiffLineScanner = {
  name: "typescript",
  begin(bytes: Uint8Array): DiffScanSession {
    const view = wordView(bytes);
    return {
      scanHunk: (start, oldLines, newLines) => scanHunkBody(bytes, start, oldLines, newLines, view),
      end: () => {},
    };
  },
};
