/**
 * Tool receipts: one HMAC-SHA-256-sealed record per command vouch runs for a
 * verdict (argv digest, cwd, sandbox profile, env names, times, exit, output
 * digests), chained to the previous receipt and anchored to the event log head.
 * Receipts never carry secret values or environment values.
 *
 * @example
 * ```ts
 * import { rejects } from "node:assert/strict";
 * import { importMacKey } from "../keys/mac_key.ts";
 * import { mintReceipt, verifyReceiptMac } from "./mod.ts";
 * const key = await importMacKey(new Uint8Array(32).fill(1), "memory");
 * const z = { digest: "sha256:" + "0".repeat(64), bytes: 0 };
 * const receipt = await mintReceipt(key, {
 *   task: "t1", tool: "check:unit", argv: ["true"], cwd: "/", sandboxProfile: "none",
 *   envNames: [], startedAt: 0, endedAt: 1, exit: { code: 0, signal: null, timedOut: false },
 *   stdout: z, stderr: z,
 * }, { anchor: { seq: 0, hash: "0".repeat(64) }, prevReceipt: "0".repeat(64) });
 * await verifyReceiptMac(receipt, key); // throws ReceiptError("bad_mac") when it does not verify
 * const other = await importMacKey(new Uint8Array(32).fill(7), "memory");
 * await rejects(verifyReceiptMac(receipt, other));
 * ```
 *
 * @module
 */
export * from "./errors.ts";
export * from "./receipt.ts";
export * from "./chain.ts";
