import type { Sha256 } from "../../kernel/digest.ts";

/**
 * A portable SHA-256 behind the same {@linkcode Sha256} interface, backed by
 * hash-wasm (WebAssembly; no `node:crypto` needed), for embedders on runtimes
 * without `node:crypto`. One hasher is reused per call; it is synchronous once
 * created. Measured slower than `node:crypto` here (see docs/event-log.md), so
 * the log uses `nodeSha256` by default.
 *
 * @example
 * ```ts
 * import { createHashWasmSha256 } from "./hash_wasm_sha256.ts";
 * import { nodeSha256 } from "../digest/sha256.ts";
 * const wasm = await createHashWasmSha256();
 * const bytes = new TextEncoder().encode("abc");
 * if (wasm.digest(bytes).join() !== nodeSha256.digest(bytes).join()) throw new Error();
 * ```
 */
export async function createHashWasmSha256(): Promise<Sha256> {
  // Loaded on first use, not when vouch is imported (import cost).
  const { createSHA256 } = await import("hash-wasm");
  const hasher = await createSHA256();
  return {
    name: "hash-wasm",
    digest(bytes: Uint8Array): Uint8Array {
      hasher.init();
      hasher.update(bytes);
      return hasher.digest("binary");
    },
  };
}
