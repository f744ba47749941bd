/**
 * git's base85 (the `GIT binary patch` line encoding): each line is a length
 * byte (`A`-`Z` = 1-26, `a`-`z` = 27-52) followed by 5 characters per 4 bytes.
 *
 * @module
 */

const ALPHABET =
  "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";

const VALUE = (() => {
  const table = new Int16Array(256).fill(-1);
  for (let i = 0; i < ALPHABET.length; i++) table[ALPHABET.charCodeAt(i)] = i;
  return table;
})();

/**
 * The decoded byte count a base85 line declares with its first byte, or 0 if
 * that byte is not a length character.
 *
 * @example
 * ```ts
 * import { base85LineLength } from "./base85.ts";
 * if (base85LineLength(0x41) !== 1 || base85LineLength(0x7a) !== 52) throw new Error("unexpected");
 * ```
 */
export function base85LineLength(first: number): number {
  if (first >= 0x41 && first <= 0x5a) return first - 0x41 + 1;
  if (first >= 0x61 && first <= 0x7a) return first - 0x61 + 27;
  return 0;
}

/**
 * Decodes the base85 text `bytes[start..end)` into exactly `count` bytes at
 * `out[offset..]`. Returns false on a bad character, a group that overflows
 * 32 bits, a wrong text length, or non-zero padding.
 *
 * @example
 * ```ts
 * import { decodeBase85Line } from "./base85.ts";
 * const text = Uint8Array.from("00000", (c) => c.charCodeAt(0));
 * const out = new Uint8Array(1);
 * if (!decodeBase85Line(text, 0, 5, 1, out, 0)) throw new Error("unexpected");
 * ```
 */
export function decodeBase85Line(
  bytes: Uint8Array,
  start: number,
  end: number,
  count: number,
  out: Uint8Array,
  offset: number,
): boolean {
  const groups = Math.ceil(count / 4);
  if (end - start !== groups * 5) return false;
  let left = count;
  let o = offset;
  for (let g = 0; g < groups; g++) {
    let acc = 0;
    for (let k = 0; k < 5; k++) {
      const v = VALUE[bytes[start + g * 5 + k]!]!;
      if (v < 0) return false;
      acc = acc * 85 + v;
    }
    if (acc > 0xffffffff) return false;
    const take = left < 4 ? left : 4;
    for (let k = 0; k < 4; k++) {
      const byte = Math.floor(acc / 2 ** (24 - 8 * k)) & 0xff;
      if (k < take) out[o++] = byte;
      else if (byte !== 0) return false;
    }
    left -= take;
  }
  return true;
}
