/**
 * UTF-8 and byte-string helpers for the kernel, which is type-checked against
 * plain ESNext and so has no `TextEncoder`/`TextDecoder`: a lossy decoder that
 * matches `new TextDecoder()`, a strict decoder for names that must be valid,
 * and byte-exact string keys for comparing text with raw patch bytes.
 *
 * @module
 */

const CHUNK = 4096;
/** Reused exact-length code unit arrays for `String.fromCharCode.apply` (no per-call garbage). */
const byLength: number[][] = [];

/** The string with one code unit per byte of `bytes[start..end)` (Latin-1). */
function latin1Run(bytes: Uint8Array, start: number, end: number): string {
  const n = end - start;
  if (n <= 0) return "";
  if (n <= 256) {
    let codes = byLength[n];
    if (codes === undefined) {
      codes = new Array<number>(n).fill(0);
      byLength[n] = codes;
    }
    for (let j = 0; j < n; j++) codes[j] = bytes[start + j]!;
    return String.fromCharCode.apply(null, codes);
  }
  let out = "";
  for (let k = start; k < end; k += CHUNK) {
    const chunk = bytes.subarray(k, Math.min(end, k + CHUNK));
    out += String.fromCharCode.apply(null, chunk as unknown as number[]);
  }
  return out;
}

/**
 * Decodes UTF-8, replacing each invalid sequence (overlong, surrogate, out of
 * range, truncated) with U+FFFD, like `new TextDecoder()` does.
 *
 * @example
 * ```ts
 * import { decodeUtf8 } from "./utf8.ts";
 * if (decodeUtf8(new Uint8Array([0x63, 0x61, 0x66, 0xc3, 0xa9])) !== "café") throw new Error("unexpected");
 * if (decodeUtf8(new Uint8Array([0xff])) !== "\ufffd") throw new Error("unexpected");
 * ```
 */
export function decodeUtf8(bytes: Uint8Array, start = 0, end: number = bytes.length): string {
  let i = start;
  while (i < end && bytes[i]! < 0x80) i++;
  if (i === end) return latin1Run(bytes, start, end);
  let out = latin1Run(bytes, start, i);
  while (i < end) {
    const b = bytes[i]!;
    if (b < 0x80) {
      const runStart = i;
      while (i < end && bytes[i]! < 0x80) i++;
      out += latin1Run(bytes, runStart, i);
      continue;
    }
    let need = 0;
    let cp = 0;
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      cp = b & 0x1f;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      cp = b & 0x0f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      cp = b & 0x07;
    } else {
      out += "\ufffd";
      i++;
      continue;
    }
    let j = 1;
    for (; j <= need; j++) {
      const c = i + j < end ? bytes[i + j]! : -1;
      if (c < 0 || (c & 0xc0) !== 0x80) break;
      // Reject overlong and surrogate/out-of-range prefixes as early as TextDecoder does.
      if (j === 1) {
        if (need === 2 && ((b === 0xe0 && c < 0xa0) || (b === 0xed && c > 0x9f))) break;
        if (need === 3 && ((b === 0xf0 && c < 0x90) || (b === 0xf4 && c > 0x8f))) break;
      }
      cp = (cp << 6) | (c & 0x3f);
    }
    if (j <= need) {
      out += "\ufffd";
      i += j === 1 ? 1 : j;
    } else {
      out += String.fromCodePoint(cp);
      i += need + 1;
    }
  }
  return out;
}

/**
 * The bytes of an ASCII string (for constant prefixes).
 *
 * @example
 * ```ts
 * import { asciiBytes } from "./utf8.ts";
 * if (asciiBytes("@@")[0] !== 0x40) throw new Error("unexpected");
 * ```
 */
export function asciiBytes(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i) & 0xff;
  return out;
}

/**
 * Decodes `bytes` as strict UTF-8: rejects overlong forms, surrogates, code
 * points above U+10FFFF and truncated sequences. Returns `null` on any of them.
 *
 * @example
 * ```ts
 * import { decodeUtf8Strict } from "./utf8.ts";
 * if (decodeUtf8Strict(new Uint8Array([0x63, 0x61, 0x66, 0xc3, 0xa9])) !== "café") throw new Error();
 * if (decodeUtf8Strict(new Uint8Array([0xc0, 0xaf])) !== null) throw new Error("overlong");
 * ```
 */
export function decodeUtf8Strict(bytes: Uint8Array): string | null {
  const n = bytes.length;
  let ascii = 0;
  while (ascii < n && bytes[ascii]! < 0x80) ascii++;
  if (ascii === n) return latin1Run(bytes, 0, n);
  let out = "";
  let i = 0;
  let runStart = 0;
  while (i < n) {
    const b0 = bytes[i]!;
    if (b0 < 0x80) {
      i++;
      continue;
    }
    if (i > runStart) out += latin1Run(bytes, runStart, i);
    let cp: number;
    if (b0 >= 0xc2 && b0 <= 0xdf) {
      if (i + 1 >= n) return null;
      const b1 = bytes[i + 1]!;
      if ((b1 & 0xc0) !== 0x80) return null;
      cp = ((b0 & 0x1f) << 6) | (b1 & 0x3f);
      i += 2;
    } else if (b0 >= 0xe0 && b0 <= 0xef) {
      if (i + 2 >= n) return null;
      const b1 = bytes[i + 1]!;
      const b2 = bytes[i + 2]!;
      if ((b1 & 0xc0) !== 0x80 || (b2 & 0xc0) !== 0x80) return null;
      cp = ((b0 & 0x0f) << 12) | ((b1 & 0x3f) << 6) | (b2 & 0x3f);
      if (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff)) return null;
      i += 3;
    } else if (b0 >= 0xf0 && b0 <= 0xf4) {
      if (i + 3 >= n) return null;
      const b1 = bytes[i + 1]!;
      const b2 = bytes[i + 2]!;
      const b3 = bytes[i + 3]!;
      if ((b1 & 0xc0) !== 0x80 || (b2 & 0xc0) !== 0x80 || (b3 & 0xc0) !== 0x80) return null;
      cp = ((b0 & 0x07) << 18) | ((b1 & 0x3f) << 12) | ((b2 & 0x3f) << 6) | (b3 & 0x3f);
      if (cp < 0x10000 || cp > 0x10ffff) return null;
      i += 4;
    } else {
      return null;
    }
    out += String.fromCodePoint(cp);
    runStart = i;
  }
  if (runStart === 0) return latin1Run(bytes, 0, n);
  if (n > runStart) out += latin1Run(bytes, runStart, n);
  return out;
}

/**
 * A string holding one char per byte (`\x00`-`\xff`): a byte-exact key.
 *
 * @example
 * ```ts
 * import { latin1OfBytes } from "./utf8.ts";
 * if (latin1OfBytes(new Uint8Array([104, 105])) !== "hi") throw new Error("unexpected");
 * ```
 */
export function latin1OfBytes(bytes: Uint8Array): string {
  return latin1Run(bytes, 0, bytes.length);
}

/**
 * The {@linkcode latin1OfBytes} key of a string's UTF-8 encoding (lone
 * surrogates become U+FFFD, as `TextEncoder` does).
 *
 * @example
 * ```ts
 * import { latin1OfBytes, latin1OfUtf8 } from "./utf8.ts";
 * if (latin1OfUtf8("é") !== latin1OfBytes(new Uint8Array([0xc3, 0xa9]))) throw new Error("unexpected");
 * ```
 */
export function latin1OfUtf8(text: string): string {
  let out = "";
  for (const ch of text) {
    let cp = ch.codePointAt(0)!;
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
    if (cp < 0x80) {
      out += String.fromCharCode(cp);
    } else if (cp < 0x800) {
      out += String.fromCharCode(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      out += String.fromCharCode(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
    } else {
      out += String.fromCharCode(
        0xf0 | (cp >> 18),
        0x80 | ((cp >> 12) & 0x3f),
        0x80 | ((cp >> 6) & 0x3f),
        0x80 | (cp & 0x3f),
      );
    }
  }
  return out;
}
