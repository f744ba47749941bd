import { canonicalJson } from "../canonical_json/canonical_json.ts";
import { checkStatementPins, type StatementPins } from "./pins.ts";
import type { PublicKey, SigningKey } from "../keys/signing_key.ts";
import { AttestError } from "./errors.ts";
import { type DsseEnvelope, openDsse, signDsse } from "./dsse.ts";
import { type AttestationStatement, parseAttestationStatement } from "./predicates.ts";

/** The in-toto DSSE payload type. */
export const IN_TOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json";

/**
 * Signs a statement: payload = canonical JSON bytes, signature = Ed25519 over
 * `PAE(payloadType, payload)`.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { generateSigningKey, importPublicKey } from "../keys/signing_key.ts";
 * import { signStatement, verifyEnvelope } from "./envelope.ts";
 * import { buildVerificationStatement } from "./statement.ts";
 * const key = await generateSigningKey();
 * const statement = buildVerificationStatement({
 *   v: 1, task: "t1", baseRevision: "main", patchDigest: "sha256:" + "a".repeat(64),
 *   contractDigest: "sha256:" + "b".repeat(64), checks: [], receipts: [], passedAt: 0,
 *   backend: "fn", sandboxProfile: "none", logAnchor: { seq: 1, hash: "c".repeat(64) },
 *   keyId: "hmac-sha256:x", mac: "d".repeat(64),
 * });
 * const envelope = await signStatement(statement, key);
 * const verified = await verifyEnvelope(envelope, await importPublicKey(key.publicKeyPem));
 * equal(verified.statement.predicateType, "https://vouch.dev/verification-summary/v1");
 * ```
 */
export async function signStatement(
  statement: AttestationStatement,
  key: SigningKey,
): Promise<DsseEnvelope> {
  return await signDsse(
    IN_TOTO_PAYLOAD_TYPE,
    new TextEncoder().encode(canonicalJson(statement)),
    key,
  );
}

/** What a verified envelope says. */
export interface VerifiedAttestation {
  readonly statement: AttestationStatement;
  /** The key id whose signature verified. */
  readonly keyid: string;
}

/**
 * Verifies a DSSE envelope with only the public key: no vouch state, no log, no
 * MAC key. Checks the payload type and that at least one of the signatures is a
 * valid Ed25519 signature over PAE by that key (as the DSSE spec says: `keyid`
 * is only a hint, every signature is tried, payload and signatures may use the
 * standard or the URL-safe base64 alphabet),
 * and that the payload is a statement vouch exports (predicate vouch, SLSA VSA
 * v1 or in-toto test-result v0.1) that PASSED; optionally
 * that a subject carries `expectPatchSha256`. Throws `AttestError`.
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
export async function verifyEnvelope(
  envelope: unknown,
  key: PublicKey,
  options: { readonly expectPatchSha256?: string; readonly pins?: StatementPins } = {},
): Promise<VerifiedAttestation> {
  const opened = await openDsse(envelope, key);
  if (opened.payloadType !== IN_TOTO_PAYLOAD_TYPE) {
    throw new AttestError(
      "payload_type",
      `Cannot verify attestation: payloadType is "${opened.payloadType}", expected ${IN_TOTO_PAYLOAD_TYPE}`,
    );
  }
  const payload = opened.payload;
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(payload));
  } catch (cause) {
    throw new AttestError("bad_statement", "Cannot verify attestation: payload is not JSON", {
      cause,
    });
  }
  const statement = parseAttestationStatement(json);
  if (statement === undefined) {
    throw new AttestError(
      "bad_statement",
      "Cannot verify attestation: payload is not a passed vouch statement (predicate vouch, SLSA VSA v1 or in-toto test-result v0.1)",
    );
  }
  if (options.expectPatchSha256 !== undefined) {
    const want = options.expectPatchSha256.replace(/^sha256:/, "");
    if (!statement.subject.some((s) => s.digest["sha256"] === want)) {
      throw new AttestError(
        "subject_mismatch",
        "Cannot verify attestation: the patch is not a subject of this statement",
      );
    }
  }
  if (options.pins !== undefined) checkStatementPins(statement, options.pins);
  return { statement, keyid: key.keyId };
}
