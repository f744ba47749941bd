import { LOG_KINDS } from "../log/kinds.ts";
import type { LogRecord } from "../log/record.ts";
import type { VerifiedPatch } from "./verified_patch.ts";

/**
 * Records a minted patch in the log as a `verified_patch.minted` record (its
 * JSON form: digests, checks, receipts and MAC; never the diff bytes).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { importMacKey } from "../keys/mac_key.ts";
 * import { mintReceipt, receiptDigest } from "../receipts/receipt.ts";
 * import { mintVerifiedPatch } from "./verified_patch.ts";
 * const key = await importMacKey(new Uint8Array(32).fill(3), "memory");
 * const z = { digest: "sha256:" + "0".repeat(64), bytes: 0 };
 * const receipt = await mintReceipt(key, {
 *   task: "t1", tool: "check:unit", argv: ["true"], cwd: "/", sandboxProfile: "none",
 *   envNames: [], startedAt: 0, endedAt: 1, exit: { code: 0, signal: null, timedOut: false },
 *   stdout: z, stderr: z,
 * }, { anchor: { seq: 0, hash: "0".repeat(64) }, prevReceipt: "0".repeat(64) });
 * const verified = await mintVerifiedPatch(key, {
 *   patch: { kind: "unverified_patch", task: "t1", baseRevision: "abc", diff: new Uint8Array([1]), backend: "fn" },
 *   contractDigest: "sha256:" + "1".repeat(64),
 *   checks: [{ id: "unit", outcome: "pass", receipt: receiptDigest(receipt) }],
 *   receipts: [receipt], passedAt: 5, sandboxProfile: "none",
 *   logAnchor: { seq: 0, hash: "0".repeat(64) },
 * });
 * import { recordVerifiedPatch } from "./record.ts";
 * const appended: { kind: string; body: unknown }[] = [];
 * const log = { append: async (r: { kind: string; body: unknown }) => (appended.push(r), {} as never) };
 * await recordVerifiedPatch(log, verified);
 * equal(appended[0]?.kind, "verified_patch.minted");
 * equal(JSON.stringify(appended[0]?.body).includes('"diff"'), false); // never the diff bytes
 * ```
 */
export async function recordVerifiedPatch(
  log: { append(input: { task?: string | null; kind: string; body: unknown }): Promise<LogRecord> },
  patch: VerifiedPatch,
): Promise<LogRecord> {
  return await log.append({
    task: patch.task,
    kind: LOG_KINDS.verifiedPatchMinted,
    body: patch.toJSON(),
  });
}
