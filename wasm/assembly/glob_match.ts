// AssemblyScript twin of kernel/glob/match.ts (the specification). It runs the
// same compiled program (layout: kernel/glob/program.ts GLOB_PROGRAM) as a
// bit-parallel NFA over UTF-8 path bytes.
//
// Protocol: the host calls `reserve(programInts, inputBytes, resultInts)`,
// which lays out [program | input | results | scratch] from the heap base and
// grows memory when needed; then copies the program, followed by the shortcut
// table (kernel/glob/shortcut.ts, encoded by wasm/glob_matcher.ts), to
// `programPtr()` and calls `loadProgram(tableOffset)`. Per query it copies path bytes to `inputPtr()` and calls
// `lastMatch(length)`, or copies NUL-separated paths and calls
// `matchBatch(totalLength)`, which writes one i32 per path to `resultPtr()`.
// No allocation happens here.

const HEADER: i32 = 4;
const FLAG_DIR_ONLY: i32 = 2;
const KIND_LIT: i32 = 1;
const KIND_ANY: i32 = 2;
const KIND_CLASS: i32 = 3;
const KIND_NEGATED_CLASS: i32 = 4;
const SLASH: i32 = 0x2f;

let programBase: usize = 0;
let inputBase: usize = 0;
let resultBase: usize = 0;
let scratchBase: usize = 0;
let scratchWords: i32 = 0;
let table: i32 = 0;

// Shortcut kinds (see wasm/glob_matcher.ts `encodeShortcuts`).
const SC_AUTOMATON: i32 = 0;
const SC_EXACT: i32 = 1;
const SC_NAME: i32 = 2;
const SC_SUFFIX: i32 = 3;
const SC_NAME_PREFIX: i32 = 4;
const SC_PREFIX: i32 = 5;
const SC_SEGMENT: i32 = 6;
// Ints per table entry: kind, dirOnly, litOff, litLen, prefOff, prefLen, infOff, infLen.
const SC_ENTRY: i32 = 8;

// @ts-ignore: decorator
@inline
function align16(p: usize): usize {
  return (p + 15) & ~(15 as usize);
}

// @ts-ignore: decorator
@inline
function P(i: i32): i32 {
  return load<i32>(programBase + (<usize>i << 2));
}

/** Lays out the buffers and grows memory; returns 1 on success, 0 if memory cannot grow. */
export function reserve(programInts: i32, inputBytes: i32, resultInts: i32): i32 {
  programBase = align16(__heap_base);
  inputBase = align16(programBase + (<usize>programInts << 2));
  resultBase = align16(inputBase + <usize>inputBytes + 4);
  scratchBase = align16(resultBase + (<usize>resultInts << 2));
  // Scratch: 4 masks of up to `programInts` words is always enough.
  const end = scratchBase + (<usize>programInts << 4) + 64;
  const have = <usize>memory.size() << 16;
  if (end > have) {
    const pages = <i32>((end - have + 0xffff) >> 16);
    if (memory.grow(pages) < 0) return 0;
  }
  return 1;
}

/** Where the host copies the program. */
export function programPtr(): usize {
  return programBase;
}

/** Where the host copies path bytes. */
export function inputPtr(): usize {
  return inputBase;
}

/** Where `matchBatch` writes its results. */
export function resultPtr(): usize {
  return resultBase;
}

/** Call after copying the program and table: records the table and the widest pattern. */
export function loadProgram(tableOffset: i32): void {
  table = tableOffset;
  const count = P(0);
  let widest = 1;
  for (let i = 0; i < count; i++) {
    const w = P(P(1 + i) + 2);
    if (w > widest) widest = w;
  }
  scratchWords = widest;
}

/** Forward mask of every token on a non-ASCII code point, into `out` (`words` i32). */
function nonAsciiForward(p: i32, c: i32, out: usize, words: i32): void {
  for (let k = 0; k < words; k++) store<i32>(out + (<usize>k << 2), 0);
  const n = P(p + 1);
  const tokens = P(p + 3);
  for (let i = 0; i < n; i++) {
    const tk = tokens + 3 * i;
    const kind = P(tk);
    let hit = false;
    if (kind == KIND_LIT) {
      hit = P(tk + 1) == c;
    } else if (kind == KIND_ANY) {
      hit = true;
    } else if (kind == KIND_CLASS || kind == KIND_NEGATED_CLASS) {
      const ranges = P(tk + 1);
      const count = P(tk + 2);
      for (let r = 0; r < count; r++) {
        if (c >= P(ranges + 2 * r) && c <= P(ranges + 2 * r + 1)) {
          hit = true;
          break;
        }
      }
      if (kind == KIND_NEGATED_CLASS) hit = !hit;
    }
    if (hit) {
      const at = out + (<usize>(i >>> 5) << 2);
      store<i32>(at, load<i32>(at) | (1 << (i & 31)));
    }
  }
}

// Decoded code point and its length, set by `decode`.
let cpValue: i32 = 0;
let cpLength: i32 = 1;

/** Decodes the UTF-8 sequence at `at` (lead byte >= 0x80); invalid bytes read as U+FFFD. */
function decode(at: usize, end: usize): void {
  const b0 = <i32>load<u8>(at);
  let need = 0;
  let cp = 0;
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    need = 1;
    cp = b0 & 0x1f;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    need = 2;
    cp = b0 & 0x0f;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    need = 3;
    cp = b0 & 0x07;
  } else {
    cpValue = 0xfffd;
    cpLength = 1;
    return;
  }
  if (at + <usize>need >= end + 1) {
    cpValue = 0xfffd;
    cpLength = 1;
    return;
  }
  for (let k = 1; k <= need; k++) {
    const b = <i32>load<u8>(at + <usize>k);
    if ((b & 0xc0) != 0x80) {
      cpValue = 0xfffd;
      cpLength = 1;
      return;
    }
    cp = (cp << 6) | (b & 0x3f);
  }
  cpValue = cp;
  cpLength = need + 1;
}

function runOneWord(p: i32, start: usize, end: usize): bool {
  const dirOnly = (P(p) & FLAG_DIR_ONLY) != 0;
  const m = p + HEADER;
  let d = P(m);
  const accept = P(m + 1);
  const eps = P(m + 2);
  const refresh = P(m + 3);
  const loopNa = P(m + 4);
  const forward = m + 5;
  const loop = forward + 128;
  let i = start;
  while (i < end) {
    const c = <i32>load<u8>(i);
    let t: i32;
    let l: i32;
    if (c < 0x80) {
      if (c == SLASH && (d & accept) != 0) return true;
      t = P(forward + c);
      l = P(loop + c);
      i++;
    } else {
      decode(i, end);
      i += <usize>cpLength;
      nonAsciiForward(p, cpValue, scratchBase, 1);
      t = load<i32>(scratchBase);
      l = loopNa;
    }
    const stay = d & l;
    let x = ((d & t) << 1) | (stay & refresh);
    if ((x & eps) != 0) {
      while (true) {
        const y = x | ((x & eps) << 1);
        if (y == x) break;
        x = y;
      }
    }
    d = stay | x;
    if (d == 0) return false;
  }
  return !dirOnly && (d & accept) != 0;
}

// @ts-ignore: decorator
@inline
function W(base: usize, k: i32): i32 {
  return load<i32>(base + (<usize>k << 2));
}

// @ts-ignore: decorator
@inline
function setW(base: usize, k: i32, v: i32): void {
  store<i32>(base + (<usize>k << 2), v);
}

function runWords(p: i32, start: usize, end: usize): bool {
  const dirOnly = (P(p) & FLAG_DIR_ONLY) != 0;
  const w = P(p + 2);
  const m = p + HEADER;
  const accept = m + w;
  const eps = m + 2 * w;
  const refresh = m + 3 * w;
  const loopNa = m + 4 * w;
  const forward = m + 5 * w;
  const loop = forward + 128 * w;
  const d = scratchBase;
  const x = d + (<usize>w << 2);
  const stay = x + (<usize>w << 2);
  const t = stay + (<usize>w << 2);
  for (let k = 0; k < w; k++) setW(d, k, P(m + k));
  let i = start;
  while (i < end) {
    const c = <i32>load<u8>(i);
    let lAt: i32;
    if (c < 0x80) {
      if (c == SLASH) {
        for (let k = 0; k < w; k++) if ((W(d, k) & P(accept + k)) != 0) return true;
      }
      for (let k = 0; k < w; k++) setW(t, k, P(forward + c * w + k));
      lAt = loop + c * w;
      i++;
    } else {
      decode(i, end);
      i += <usize>cpLength;
      nonAsciiForward(p, cpValue, t, w);
      lAt = loopNa;
    }
    let carry = 0;
    for (let k = 0; k < w; k++) {
      const dk = W(d, k);
      const s = dk & P(lAt + k);
      setW(stay, k, s);
      const f = dk & W(t, k);
      setW(x, k, (f << 1) | carry | (s & P(refresh + k)));
      carry = f >>> 31;
    }
    while (true) {
      let changed = false;
      let c2 = 0;
      for (let k = 0; k < w; k++) {
        const xk = W(x, k);
        const e = xk & P(eps + k);
        const y = xk | (e << 1) | c2;
        c2 = e >>> 31;
        if (y != xk) {
          setW(x, k, y);
          changed = true;
        }
      }
      if (!changed) break;
    }
    let alive = 0;
    for (let k = 0; k < w; k++) {
      const v = W(stay, k) | W(x, k);
      setW(d, k, v);
      alive |= v;
    }
    if (alive == 0) return false;
  }
  if (dirOnly) return false;
  for (let k = 0; k < w; k++) if ((W(d, k) & P(accept + k)) != 0) return true;
  return false;
}

/** Whether the literal (ints at `lit`, `len` bytes) occurs at `at` in [start, end). */
function litAt(lit: i32, len: i32, at: usize, end: usize): bool {
  if (at + <usize>len > end) return false;
  for (let k = 0; k < len; k++) {
    if (<i32>load<u8>(at + <usize>k) != P(lit + k)) return false;
  }
  return true;
}

const ONES: u64 = 0x0101010101010101;
const HIGHS: u64 = 0x8080808080808080;

/** First address in [from, end) holding `byte`, or `end`; eight bytes at a time. */
function findByte(from: usize, end: usize, byte: i32): usize {
  let i = from;
  const pattern = ONES * <u64>(byte & 0xff);
  while (i + 8 <= end) {
    const x = load<u64>(i) ^ pattern;
    const hit = (x - ONES) & ~x & HIGHS;
    if (hit != 0) return i + <usize>(ctz(hit) >> 3);
    i += 8;
  }
  while (i < end) {
    if (<i32>load<u8>(i) == byte) return i;
    i++;
  }
  return end;
}

/** First address >= `from` where the literal occurs, or -1. */
function litFind(lit: i32, len: i32, from: usize, end: usize): isize {
  if (len == 0) return <isize>from;
  const first = P(lit);
  let i = from;
  while (i + <usize>len <= end) {
    i = findByte(i, end, first);
    if (i + <usize>len > end) return -1;
    if (litAt(lit, len, i, end)) return <isize>i;
    i++;
  }
  return -1;
}

// @ts-ignore: decorator
@inline
function slashAt(at: usize): bool {
  return load<u8>(at) == 0x2f;
}

/** 1 match, 0 no match, -1 undecided (run the automaton). */
function decide(i: i32, start: usize, end: usize): i32 {
  const e = table + i * SC_ENTRY;
  const kind = P(e);
  const dirOnly = P(e + 1) != 0;
  const lit = P(e + 2);
  const len = P(e + 3);
  if (kind == SC_EXACT) {
    if (!litAt(lit, len, start, end)) return 0;
    const after = start + <usize>len;
    if (after == end) return dirOnly ? 0 : 1;
    return slashAt(after) ? 1 : 0;
  }
  if (kind == SC_NAME) {
    let from = start;
    while (true) {
      const at = litFind(lit, len, from, end);
      if (at < 0) return 0;
      const a = <usize>at;
      const after = a + <usize>len;
      if (a == start || slashAt(a - 1)) {
        if (after < end && slashAt(after)) return 1;
        if (after == end && !dirOnly) return 1;
      }
      from = a + 1;
    }
  }
  if (kind == SC_SUFFIX) {
    if (!dirOnly && end - start >= <usize>len && litAt(lit, len, end - <usize>len, end)) return 1;
    // lit followed by '/'
    let from = start;
    while (true) {
      const at = litFind(lit, len, from, end);
      if (at < 0) return 0;
      const after = <usize>at + <usize>len;
      if (after < end && slashAt(after)) return 1;
      from = <usize>at + 1;
    }
  }
  if (kind == SC_NAME_PREFIX || kind == SC_SEGMENT) {
    // lit at the start, or right after a '/'
    let from = start;
    while (true) {
      const at = litFind(lit, len, from, end);
      if (at < 0) return 0;
      const a = <usize>at;
      if (a == start || slashAt(a - 1)) return 1;
      from = a + 1;
    }
  }
  if (kind == SC_PREFIX) return litAt(lit, len, start, end) ? 1 : 0;
  // SC_AUTOMATON: necessary literal conditions first.
  if (!litAt(P(e + 4), P(e + 5), start, end)) return 0;
  if (P(e + 7) > 0 && litFind(P(e + 6), P(e + 7), start, end) < 0) return 0;
  return -1;
}

function lastMatchRange(start: usize, end: usize): i32 {
  const count = P(0);
  for (let i = count - 1; i >= 0; i--) {
    const d = decide(i, start, end);
    if (d == 1) return i;
    if (d == 0) continue;
    const p = P(1 + i);
    const hit = P(p + 2) == 1 ? runOneWord(p, start, end) : runWords(p, start, end);
    if (hit) return i;
  }
  return -1;
}

/** Index of the last pattern matching the `length` path bytes at `inputPtr()`, or -1. */
export function lastMatch(length: i32): i32 {
  return lastMatchRange(inputBase, inputBase + <usize>length);
}

/**
 * Matches NUL-separated paths in the first `total` bytes at `inputPtr()`;
 * writes one result (as `lastMatch`) per path to `resultPtr()`; returns the count.
 */
export function matchBatch(total: i32): i32 {
  const end = inputBase + <usize>total;
  let start = inputBase;
  let n = 0;
  while (true) {
    const stop = findByte(start, end, 0);
    store<i32>(resultBase + (<usize>n << 2), lastMatchRange(start, stop));
    n++;
    if (stop >= end) break;
    start = stop + 1;
  }
  return n;
}
