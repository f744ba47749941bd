/**
 * Joining byte chunks read from a stream into one array.
 *
 * @module
 */

/**
 * The chunks' bytes, in order, in one new array.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { concatBytes } from "./concat.ts";
 * deepEqual(concatBytes([new Uint8Array([1, 2]), new Uint8Array(), new Uint8Array([3])]), new Uint8Array([1, 2, 3]));
 * ```
 */
export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  let size = 0;
  for (const c of chunks) size += c.length;
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
