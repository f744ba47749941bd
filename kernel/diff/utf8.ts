/**
 * Byte helpers the parser needs without `TextEncoder`/`TextDecoder` (the
 * kernel is type-checked against plain ESNext).
 *
 * @module
 */

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
export function decodeUtf8(bytes: Uint8Array, start = 0, end = bytes.length): string {
  let out = "";
  let ascii = start;
  let i = start;
  const flush = (to: number): void => {
    if (to - ascii < 64) {
      for (let k = ascii; k < to; k++) out += String.fromCharCode(bytes[k]!);
      return;
    }
    for (let k = ascii; k < to; k += 4096) {
      const chunk = bytes.subarray(k, Math.min(to, k + 4096));
      out += String.fromCharCode.apply(null, chunk as unknown as number[]);
    }
  };
  while (i < end) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    flush(i);
    let need = 0;
    let cp = 0;
    let min = 0;
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      cp = b & 0x1f;
      min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      cp = b & 0x0f;
      min = 0x800;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      cp = b & 0x07;
      min = 0x10000;
    } else {
      out += "\ufffd";
      i++;
      ascii = i;
      continue;
    }
    let j = 1;
    for (; j <= need; j++) {
      const c = i + j < end ? bytes[i + j]! : -1;
      if ((c & 0xc0) !== 0x80 || c < 0) break;
      const next = (cp << 6) | (c & 0x3f);
      // Reject overlong and surrogate/out-of-range prefixes as early as TextDecoder does.
      if (j === 1) {
        if (need === 2 && ((b === 0xe0 && c < 0xa0) || (b === 0xed && c > 0x9f))) break;
        if (need === 3 && ((b === 0xf0 && c < 0x90) || (b === 0xf4 && c > 0x8f))) break;
      }
      cp = next;
    }
    if (j <= need || cp < min) {
      out += "\ufffd";
      i += j === 1 ? 1 : j;
    } else {
      out += String.fromCodePoint(cp);
      i += need + 1;
    }
    ascii = i;
  }
  flush(end);
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
