import type { MacKey } from "../keys/mac_key.ts";
import type { SigningKey } from "../keys/signing_key.ts";
import { assertVerifiedPatch, type VerifiedPatch } from "../verified_patch/verified_patch.ts";
import type { DsseEnvelope } from "./dsse.ts";
import { signStatement } from "./envelope.ts";
import { buildVerificationStatement } from "./statement.ts";

/**
 * Exports a verified patch as a signed in-toto attestation: re-checks the patch
 * (brand and MAC) and signs its verification summary with the Ed25519 key.
 *
 * @example
 * ```ts
 * import { equal, rejects } from "node:assert/strict";
 * import { importMacKey } from "../keys/mac_key.ts";
 * import { mintReceipt, receiptDigest } from "../receipts/receipt.ts";
 * import { mintVerifiedPatch } from "../verified_patch/verified_patch.ts";
 * const macKey = await importMacKey(new Uint8Array(32).fill(3), "memory");
 * const z = { digest: "sha256:" + "0".repeat(64), bytes: 0 };
 * const receipt = await mintReceipt(macKey, {
 *   task: "t1", tool: "check:unit", argv: ["true"], cwd: "/", sandboxProfile: "none",
 *   envNames: [], startedAt: 0, endedAt: 1, exit: { code: 0, signal: null, timedOut: false },
 *   stdout: z, stderr: z,
 * }, { anchor: { seq: 0, hash: "0".repeat(64) }, prevReceipt: "0".repeat(64) });
 * const verified = await mintVerifiedPatch(macKey, {
 *   patch: { kind: "unverified_patch", task: "t1", baseRevision: "abc", diff: new Uint8Array([1]), backend: "fn" },
 *   contractDigest: "sha256:" + "1".repeat(64),
 *   checks: [{ id: "unit", outcome: "pass", receipt: receiptDigest(receipt) }],
 *   receipts: [receipt], passedAt: 5, sandboxProfile: "none",
 *   logAnchor: { seq: 0, hash: "0".repeat(64) },
 * });
 * import { generateSigningKey, importPublicKey } from "../keys/signing_key.ts";
 * import { attestVerifiedPatch } from "./attest.ts";
 * import { verifyEnvelope } from "./envelope.ts";
 * const signingKey = await generateSigningKey();
 * const envelope = await attestVerifiedPatch(verified, macKey, signingKey);
 * const publicKey = await importPublicKey(signingKey.publicKeyPem);
 * // Anyone with only the public key can check it: no vouch state, no MAC key.
 * const { statement, keyid } = await verifyEnvelope(envelope, publicKey);
 * equal(keyid, signingKey.keyId);
 * equal(statement.predicateType, "https://vouch.dev/verification-summary/v1");
 * const stranger = await importPublicKey((await generateSigningKey()).publicKeyPem);
 * await rejects(verifyEnvelope(envelope, stranger), { code: "no_signature" });
 * ```
 */
export async function attestVerifiedPatch(
  patch: VerifiedPatch,
  macKey: MacKey,
  signingKey: SigningKey,
  options: { readonly verifierId?: string; readonly version?: string } = {},
): Promise<DsseEnvelope> {
  await assertVerifiedPatch(patch, macKey);
  return await signStatement(buildVerificationStatement(patch.toJSON(), options), signingKey);
}
