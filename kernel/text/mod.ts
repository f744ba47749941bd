/**
 * Text for the kernel: UTF-8 decoding (lossy and strict), JSONC to JSON and
 * byte-exact string keys, without `TextDecoder`. Pure; never touches I/O.
 *
 * @module
 */
export * from "./utf8.ts";
export * from "./jsonc.ts";
