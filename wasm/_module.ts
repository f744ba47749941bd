/**
 * Compiling a module that `wasm/_gen` keeps as base64 text (both WASM
 * helpers, the diff scanner and the glob matcher, are shipped that way).
 *
 * @module
 */

/**
 * Compiles a WebAssembly module from its base64 text.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { moduleOfBase64 } from "./_module.ts";
 * // The smallest module: the magic number and version 1, no sections.
 * const module = moduleOfBase64("AGFzbQEAAAA=");
 * equal(WebAssembly.Module.exports(module).length, 0);
 * ```
 */
export function moduleOfBase64(text: string): WebAssembly.Module {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new WebAssembly.Module(bytes);
}
