import { Buffer } from "node:buffer";
import { z } from "zod";
import { canonicalJson } from "../canonical_json/canonical_json.ts";
import type { PublicKey, SigningKey } from "../keys/signing_key.ts";
import { AttestError } from "./errors.ts";
import { pae } from "./pae.ts";
import { type VouchStatement, VouchStatementSchema } from "./statement.ts";

/** The in-toto DSSE payload type. */
export const IN_TOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json";

/** A DSSE envelope. */
export interface DsseEnvelope {
  /** Base64 of the serialized statement. */
  readonly payload: string;
  readonly payloadType: string;
  readonly signatures: readonly { readonly keyid: string; readonly sig: string }[];
}

const EnvelopeSchema = z.object({
  payload: z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/),
  payloadType: z.string(),
  signatures: z.array(z.object({ keyid: z.string(), sig: z.string() })).min(1),
});

/**
 * Signs a statement: payload = canonical JSON bytes, signature = Ed25519 over
 * `PAE(payloadType, payload)`.
 *
 * @example
 * ```ts
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
 * if (verified.statement.predicate.task !== "t1") throw new Error();
 * ```
 */
export async function signStatement(
  statement: VouchStatement,
  key: SigningKey,
): Promise<DsseEnvelope> {
  const payload = new TextEncoder().encode(canonicalJson(statement));
  const sig = await crypto.subtle.sign(
    "Ed25519",
    key.privateKey,
    pae(IN_TOTO_PAYLOAD_TYPE, payload),
  );
  return {
    payload: Buffer.from(payload).toString("base64"),
    payloadType: IN_TOTO_PAYLOAD_TYPE,
    signatures: [{ keyid: key.keyId, sig: Buffer.from(sig).toString("base64") }],
  };
}

/** What a verified envelope says. */
export interface VerifiedAttestation {
  readonly statement: VouchStatement;
  /** The key id whose signature verified. */
  readonly keyid: string;
}

/**
 * Verifies a DSSE envelope with only the public key: no vouch state, no log, no
 * MAC key. Checks the payload type, an Ed25519 signature over PAE by that key,
 * and that the payload is a vouch verification summary that PASSED; optionally
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
  const parsed = EnvelopeSchema.safeParse(envelope);
  if (!parsed.success) {
    throw new AttestError("schema", "Cannot verify attestation: not a DSSE envelope");
  }
  const env = parsed.data;
  if (env.payloadType !== IN_TOTO_PAYLOAD_TYPE) {
    throw new AttestError(
      "payload_type",
      `Cannot verify attestation: payloadType is "${env.payloadType}", expected ${IN_TOTO_PAYLOAD_TYPE}`,
    );
  }
  const payload = new Uint8Array(Buffer.from(env.payload, "base64"));
  const candidates = env.signatures.filter((s) => s.keyid === key.keyId || s.keyid === "");
  if (candidates.length === 0) {
    throw new AttestError(
      "no_signature",
      `Cannot verify attestation: no signature by key ${key.keyId.slice(0, 16)}`,
    );
  }
  let ok = false;
  for (const s of candidates) {
    const sig = new Uint8Array(Buffer.from(s.sig, "base64"));
    if (await crypto.subtle.verify("Ed25519", key.cryptoKey, sig, pae(env.payloadType, payload))) {
      ok = true;
      break;
    }
  }
  if (!ok) throw new AttestError("bad_signature", "Cannot verify attestation: bad signature");
  let statement: VouchStatement;
  try {
    statement = VouchStatementSchema.parse(
      JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(payload)),
    ) as VouchStatement;
  } catch (cause) {
    throw new AttestError(
      "bad_statement",
      "Cannot verify attestation: payload is not a vouch verification summary",
      { cause },
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
