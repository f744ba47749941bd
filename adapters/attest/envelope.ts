import { canonicalJson } from "../canonical_json/canonical_json.ts";
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
 * ```ts ignore
 * const { statement } = await verifyEnvelope(JSON.parse(text), publicKey);
 * ```
 */
export async function verifyEnvelope(
  envelope: unknown,
  key: PublicKey,
  options: { readonly expectPatchSha256?: string } = {},
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
  return { statement, keyid: key.keyId };
}
