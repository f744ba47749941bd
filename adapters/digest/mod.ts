/**
 * Hashing for adapters: the `node:crypto` SHA-256 behind the kernel's
 * {@linkcode Sha256} interface, `sha256:<hex>` strings and streaming digests.
 * Owns no I/O; must never be imported by `kernel/`.
 *
 * @module
 */
export * from "./sha256.ts";
