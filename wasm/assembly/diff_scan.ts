// AssemblyScript twin of kernel/diff/scan.ts `scanHunkBody` (the specification).
// The host copies the whole patch to `inputPtr()` and calls `scanHunk` once per
// hunk; results land in the static block at `resultPtr()` as four i32 values:
// end offset, lines consumed, additions, deletions. No allocation happens here.

const LF: u8 = 0x0a;
const SPACE: u8 = 0x20;
const PLUS: u8 = 0x2b;
const MINUS: u8 = 0x2d;
const BACKSLASH: u8 = 0x5c;
const MIN_MARKER_LENGTH: i32 = 12;

const STATUS_OK: i32 = 0;
const STATUS_BAD_LINE: i32 = 1;
const STATUS_TRUNCATED: i32 = 2;
const STATUS_BAD_MARKER: i32 = 3;

const RESULT: usize = memory.data(16, 16);

/** Where the four result i32 values are written. */
export function resultPtr(): usize {
  return RESULT;
}

/** Where the host must copy the input (the first 16-byte aligned heap address). */
export function inputPtr(): usize {
  return (__heap_base + 15) & ~(15 as usize);
}

const ONES: u64 = 0x0101010101010101;
const HIGHS: u64 = 0x8080808080808080;
const LFS: u64 = 0x0a0a0a0a0a0a0a0a;

/** Offset of the next LF at or after `pos` (relative to `base`), or `size`. */
// @ts-ignore: decorator
@inline
function findLf(base: usize, pos: i32, size: i32): i32 {
  let i = pos;
  // Eight bytes at a time: a zero byte in (word ^ LFS) marks an LF.
  while (i + 8 <= size) {
    const x = load<u64>(base + <usize>i) ^ LFS;
    const hit = (x - ONES) & ~x & HIGHS;
    if (hit != 0) return i + <i32>(ctz(hit) >> 3);
    i += 8;
  }
  while (i < size) {
    if (load<u8>(base + <usize>i) == LF) return i;
    i++;
  }
  return size;
}

function finish(status: i32, end: i32, lines: i32, additions: i32, deletions: i32): i32 {
  store<i32>(RESULT, end);
  store<i32>(RESULT + 4, lines);
  store<i32>(RESULT + 8, additions);
  store<i32>(RESULT + 12, deletions);
  return status;
}

/**
 * Scans one hunk body of the input (`size` bytes at `inputPtr()`) from `start`,
 * expecting `oldLines` old-side and `newLines` new-side lines and an optional
 * trailing `\` marker line. Returns the status (0 = ok).
 */
export function scanHunk(size: i32, start: i32, oldLines: i32, newLines: i32): i32 {
  const base = inputPtr();
  let pos = start;
  let oldLeft = oldLines;
  let newLeft = newLines;
  let lines = 0;
  let additions = 0;
  let deletions = 0;
  let previousWasLine = false;
  while (oldLeft > 0 || newLeft > 0) {
    if (pos >= size) return finish(STATUS_TRUNCATED, pos, lines, additions, deletions);
    const eol = findLf(base, pos, size);
    if (eol >= size) return finish(STATUS_TRUNCATED, pos, lines, additions, deletions);
    const first = load<u8>(base + <usize>pos);
    if (first == MINUS) {
      oldLeft--;
      deletions++;
    } else if (first == PLUS) {
      newLeft--;
      additions++;
    } else if (first == SPACE || first == LF) {
      oldLeft--;
      newLeft--;
    } else if (first == BACKSLASH) {
      if (
        !previousWasLine || eol + 1 - pos < MIN_MARKER_LENGTH ||
        load<u8>(base + <usize>pos + 1) != SPACE
      ) {
        return finish(STATUS_BAD_MARKER, pos, lines, additions, deletions);
      }
      previousWasLine = false;
      lines++;
      pos = eol + 1;
      continue;
    } else {
      return finish(STATUS_BAD_LINE, pos, lines, additions, deletions);
    }
    if (oldLeft < 0 || newLeft < 0) {
      return finish(STATUS_BAD_LINE, pos, lines, additions, deletions);
    }
    previousWasLine = true;
    lines++;
    pos = eol + 1;
  }
  if (previousWasLine && pos < size && load<u8>(base + <usize>pos) == BACKSLASH) {
    const eol = findLf(base, pos, size);
    const lineEnd = eol >= size ? size : eol + 1;
    if (lineEnd - pos < MIN_MARKER_LENGTH || load<u8>(base + <usize>pos + 1) != SPACE) {
      return finish(STATUS_BAD_MARKER, pos, lines, additions, deletions);
    }
    lines++;
    pos = lineEnd;
  }
  return finish(STATUS_OK, pos, lines, additions, deletions);
}
