/**
 * Byte-exact string keys for comparing text with raw patch bytes without a
 * `TextDecoder` (the kernel is type-checked against ESNext only).
 *
 * @module
 */

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
  let out = "";
  for (let i = 0; i < bytes.length; i += 8192) {
    out += String.fromCharCode(...bytes.subarray(i, i + 8192));
  }
  return out;
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
