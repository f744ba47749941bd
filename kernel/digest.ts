/**
 * The digest capability the kernel needs from outside. The kernel never hashes
 * on its own: an adapter passes an implementation in.
 *
 * @module
 */

/**
 * A synchronous SHA-256 implementation supplied by the host.
 *
 * @example Using a host-supplied digest
 * ```ts
 * import type { Sha256 } from "./digest.ts";
 * const fake: Sha256 = { name: "fake", digest: (bytes) => new Uint8Array(32).fill(bytes.length) };
 * if (fake.digest(new Uint8Array(3))[0] !== 3) throw new Error("unexpected");
 * ```
 */
export interface Sha256 {
  /** A short name of the implementation, for reports (`node:crypto`, `hash-wasm`, ...). */
  readonly name: string;
  /** Returns the 32-byte SHA-256 of `bytes`. */
  digest(bytes: Uint8Array): Uint8Array;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/**
 * Lower-case hex of a byte array.
 *
 * @example
 * ```ts
 * import { toHex } from "./digest.ts";
 * if (toHex(new Uint8Array([0, 255])) !== "00ff") throw new Error("unexpected");
 * ```
 */
export function toHex(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i]!];
  return out;
}
