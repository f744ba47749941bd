/**
 * Byte helpers the parser needs without `TextEncoder`/`TextDecoder` (the
 * kernel is type-checked against plain ESNext).
 *
 * @module
 */

const CHUNK = 4096;
/** Reused exact-length code unit arrays for `String.fromCharCode.apply` (no per-call garbage). */
const byLength: number[][] = [];

/** Latin-1/ASCII string of `bytes[start..end)` (every byte below 0x80 in practice). */
function asciiRun(bytes: Uint8Array, start: number, end: number): string {
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
  if (i === end) return asciiRun(bytes, start, end);
  let out = asciiRun(bytes, start, i);
  while (i < end) {
    const b = bytes[i]!;
    if (b < 0x80) {
      const runStart = i;
      while (i < end && bytes[i]! < 0x80) i++;
      out += asciiRun(bytes, runStart, i);
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
