// A byte-level recogniser of RFC 8785 canonical JSON values, for the line
// verifier's fast path (internal to the log). It is sound, not complete: when
// it accepts `bytes[pos, stop)` that range is valid UTF-8, its decoding parses
// with `JSON.parse`, and `canonicalize` of that value gives back exactly that
// text. Anything it is unsure of (a key with an escape or a non-ASCII byte, a
// `\u` escape other than a control character's, deep nesting) it rejects, and
// the caller decides with `JSON.parse` + `canonicalize` instead. Nothing is
// parsed into values and nothing is allocated, except for numbers that are not
// short integers (checked through `Number` and `String`).

/** Deeper nesting is left to the general path (which decides it with canonicalize). */
const MAX_DEPTH = 64;

/** 1 for the bytes of lower-case hex digits. */
const LOWER_HEX = new Uint8Array(256);
for (const c of "0123456789abcdef") LOWER_HEX[c.charCodeAt(0)] = 1;

/**
 * Where the canonical JSON value starting at `pos` ends (the index after it),
 * or -1 if `bytes[pos, stop)` does not start with a value this recogniser
 * accepts. A caller checks what follows the value itself.
 */
export function canonicalValueEnd(bytes: Uint8Array, pos: number, stop: number): number {
  return value(bytes, pos, stop, 0);
}

function value(b: Uint8Array, i: number, stop: number, depth: number): number {
  if (i >= stop) return -1;
  const c = b[i]!;
  if (c === 0x22) return string(b, i + 1, stop, false);
  if (c === 0x7b) return depth < MAX_DEPTH ? object(b, i + 1, stop, depth + 1) : -1;
  if (c === 0x5b) return depth < MAX_DEPTH ? array(b, i + 1, stop, depth + 1) : -1;
  if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return number(b, i, stop);
  if (c === 0x74) { // true
    return i + 4 <= stop && b[i + 1] === 0x72 && b[i + 2] === 0x75 && b[i + 3] === 0x65
      ? i + 4
      : -1;
  }
  if (c === 0x66) { // false
    return i + 5 <= stop && b[i + 1] === 0x61 && b[i + 2] === 0x6c && b[i + 3] === 0x73 &&
        b[i + 4] === 0x65
      ? i + 5
      : -1;
  }
  if (c === 0x6e) { // null
    return i + 4 <= stop && b[i + 1] === 0x75 && b[i + 2] === 0x6c && b[i + 3] === 0x6c
      ? i + 4
      : -1;
  }
  return -1;
}

/** `i` is after `[`. */
function array(b: Uint8Array, i: number, stop: number, depth: number): number {
  if (i < stop && b[i] === 0x5d) return i + 1;
  for (;;) {
    i = value(b, i, stop, depth);
    if (i < 0 || i >= stop) return -1;
    const c = b[i++];
    if (c === 0x5d) return i;
    if (c !== 0x2c) return -1;
  }
}

/**
 * `i` is after `{`. Keys must be plain ASCII without escapes (so byte order is
 * UTF-16 order, the order `canonicalize` sorts by) and strictly increasing
 * (which also rules out duplicates).
 */
function object(b: Uint8Array, i: number, stop: number, depth: number): number {
  if (i < stop && b[i] === 0x7d) return i + 1;
  let prevStart = -1;
  let prevEnd = -1;
  for (;;) {
    if (i >= stop || b[i] !== 0x22) return -1;
    const keyStart = i + 1;
    const afterKey = string(b, keyStart, stop, true);
    if (afterKey < 0) return -1;
    const keyEnd = afterKey - 1; // the closing quote
    if (prevStart >= 0 && !ascending(b, prevStart, prevEnd, keyStart, keyEnd)) return -1;
    prevStart = keyStart;
    prevEnd = keyEnd;
    if (afterKey >= stop || b[afterKey] !== 0x3a) return -1;
    i = value(b, afterKey + 1, stop, depth);
    if (i < 0 || i >= stop) return -1;
    const c = b[i++];
    if (c === 0x7d) return i;
    if (c !== 0x2c) return -1;
  }
}

/** Whether key `[a, aEnd)` sorts strictly before key `[k, kEnd)` (ASCII bytes). */
function ascending(b: Uint8Array, a: number, aEnd: number, k: number, kEnd: number): boolean {
  for (; a < aEnd && k < kEnd; a++, k++) {
    const x = b[a]!, y = b[k]!;
    if (x !== y) return x < y;
  }
  return a === aEnd && k < kEnd;
}

/**
 * `i` is after the opening quote; returns the index after the closing one.
 * Canonical strings (as `JSON.stringify` writes them): no raw control
 * characters; escapes only `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t` and
 * `\u00xx` (lower-case hex) for the other characters below U+0020; everything
 * else raw, as well-formed UTF-8 (no surrogates, no overlong forms). A key
 * (`key`) must be ASCII without escapes.
 */
function string(b: Uint8Array, i: number, stop: number, key: boolean): number {
  while (i < stop) {
    const c = b[i]!;
    if (c === 0x22) return i + 1;
    if (c < 0x20) return -1;
    if (c < 0x80 && c !== 0x5c) {
      i++;
      continue;
    }
    if (key) return -1;
    if (c === 0x5c) {
      if (i + 1 >= stop) return -1;
      const e = b[i + 1]!;
      if (
        e === 0x22 || e === 0x5c || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 ||
        e === 0x74
      ) {
        i += 2;
        continue;
      }
      // \u00xx for a control character that has no short escape
      if (
        e !== 0x75 || i + 6 > stop || b[i + 2] !== 0x30 || b[i + 3] !== 0x30 ||
        LOWER_HEX[b[i + 4]!] !== 1 || LOWER_HEX[b[i + 5]!] !== 1
      ) return -1;
      const hi = b[i + 4]!, lo = b[i + 5]!;
      if (hi !== 0x30 && hi !== 0x31) return -1; // not below U+0020
      const code = (hi - 0x30) * 16 + (lo <= 0x39 ? lo - 0x30 : lo - 0x57);
      if (code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d) {
        return -1; // these have short escapes
      }
      i += 6;
      continue;
    }
    i = utf8(b, i, stop);
    if (i < 0) return -1;
  }
  return -1;
}

function cont(b: Uint8Array, i: number, stop: number): boolean {
  return i < stop && (b[i]! & 0xc0) === 0x80;
}

/** A well-formed multi-byte UTF-8 sequence at `i` (lead byte >= 0x80): the index after it, or -1. */
function utf8(b: Uint8Array, i: number, stop: number): number {
  const c = b[i]!;
  if (c >= 0xc2 && c <= 0xdf) return cont(b, i + 1, stop) ? i + 2 : -1;
  if (c >= 0xe0 && c <= 0xef) {
    if (i + 2 >= stop) return -1;
    const d = b[i + 1]!;
    const lo = c === 0xe0 ? 0xa0 : 0x80;
    const hi = c === 0xed ? 0x9f : 0xbf; // ED A0..BF would be a surrogate
    return d >= lo && d <= hi && cont(b, i + 2, stop) ? i + 3 : -1;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    if (i + 3 >= stop) return -1;
    const d = b[i + 1]!;
    const lo = c === 0xf0 ? 0x90 : 0x80;
    const hi = c === 0xf4 ? 0x8f : 0xbf; // above U+10FFFF otherwise
    return d >= lo && d <= hi && cont(b, i + 2, stop) && cont(b, i + 3, stop) ? i + 4 : -1;
  }
  return -1;
}

/**
 * A JSON number token at `i`. Integers of up to 15 digits (exact doubles,
 * printed back as themselves) other than `-0` are accepted as they stand; any
 * other token must equal `String(Number(token))`, which is how
 * `JSON.stringify` (and so `canonicalize`) prints the value `JSON.parse` reads.
 */
function number(b: Uint8Array, i: number, stop: number): number {
  const start = i;
  if (b[i] === 0x2d) i++;
  if (i >= stop) return -1;
  const first = b[i]!;
  if (first === 0x30) i++;
  else if (first >= 0x31 && first <= 0x39) {
    for (i++; i < stop && isDigit(b[i]!); i++);
  } else return -1;
  let plain = true;
  if (i < stop && b[i] === 0x2e) {
    plain = false;
    const f = ++i;
    while (i < stop && isDigit(b[i]!)) i++;
    if (i === f) return -1;
  }
  if (i < stop && (b[i] === 0x65 || b[i] === 0x45)) {
    plain = false;
    i++;
    if (i < stop && (b[i] === 0x2b || b[i] === 0x2d)) i++;
    const f = i;
    while (i < stop && isDigit(b[i]!)) i++;
    if (i === f) return -1;
  }
  const digits = i - start - (b[start] === 0x2d ? 1 : 0);
  if (plain && digits <= 15) {
    return b[start] === 0x2d && first === 0x30 ? -1 : i; // -0 prints as 0
  }
  let token = "";
  for (let k = start; k < i; k++) token += String.fromCharCode(b[k]!);
  return String(Number(token)) === token ? i : -1;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}
