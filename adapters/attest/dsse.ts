import { Buffer } from "node:buffer";
import { z } from "zod";
import type { PublicKey, SigningKey } from "../keys/signing_key.ts";
import { decodeBase64Either } from "./_base64.ts";
import { AttestError } from "./errors.ts";
import { pae } from "./pae.ts";

/** One DSSE signature. `keyid` is an unauthenticated hint and may be absent. */
export interface DsseSignature {
  /** Hint naming the key; never trusted, never required. */
  readonly keyid?: string;
  /** Base64 (standard or URL-safe) of the signature over PAE. */
  readonly sig: string;
}

/** A DSSE envelope. */
export interface DsseEnvelope {
  /** Base64 of the serialized body (vouch writes standard, padded base64). */
  readonly payload: string;
  /** The payload type, e.g. `application/vnd.in-toto+json`. */
  readonly payloadType: string;
  /** One or more signatures over `PAE(payloadType, payload)`. */
  readonly signatures: readonly DsseSignature[];
}

// The envelope spec's fields. Unknown extra fields are ignored, keyid is optional.
const EnvelopeSchema = z.lazy(() =>
  z.object({
    payload: z.string(),
    payloadType: z.string(),
    signatures: z.array(z.object({ keyid: z.string().optional(), sig: z.string() })).min(1),
  })
);

/**
 * Signs `payload` as DSSE: one Ed25519 signature over
 * `PAE(payloadType, payload)`, `keyid` = the key's id (a hint for verifiers).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { generateSigningKey, importPublicKey } from "../keys/signing_key.ts";
 * import { openDsse, signDsse } from "./dsse.ts";
 * const key = await generateSigningKey();
 * const env = await signDsse("text/plain", new TextEncoder().encode("hi"), key);
 * const opened = await openDsse(env, await importPublicKey(key.publicKeyPem));
 * equal(new TextDecoder().decode(opened.payload), "hi");
 * ```
 */
export async function signDsse(
  payloadType: string,
  payload: Uint8Array,
  key: SigningKey,
): Promise<DsseEnvelope> {
  const sig = await crypto.subtle.sign("Ed25519", key.privateKey, pae(payloadType, payload));
  return {
    payload: Buffer.from(payload).toString("base64"),
    payloadType,
    signatures: [{ keyid: key.keyId, sig: Buffer.from(sig).toString("base64") }],
  };
}

/** What a DSSE envelope says once a signature by the given key verified. */
export interface OpenedDsse {
  /** The authenticated payload type. */
  readonly payloadType: string;
  /** The authenticated payload bytes. */
  readonly payload: Uint8Array;
  /** Index (in `signatures`) of the signature that verified. */
  readonly signatureIndex: number;
}

/**
 * Verifies a DSSE envelope against one Ed25519 public key the way the DSSE
 * protocol says: `keyid` is only a hint, so EVERY signature is tried against
 * the key (a signature without `keyid`, or whose `keyid` follows another
 * convention, counts when it verifies); payload and signatures may use the
 * standard or the URL-safe base64 alphabet, padded or not. Throws
 * `AttestError` (`schema`, `no_signature`, `bad_signature`).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { Buffer } from "node:buffer";
 * import { generateSigningKey, importPublicKey } from "../keys/signing_key.ts";
 * import { openDsse, signDsse } from "./dsse.ts";
 * const key = await generateSigningKey();
 * const env = await signDsse("text/plain", new TextEncoder().encode("hi"), key);
 * const sig = Buffer.from(env.signatures[0]!.sig, "base64").toString("base64url");
 * const opened = await openDsse({ ...env, signatures: [{ sig }] }, await importPublicKey(key.publicKeyPem));
 * equal(opened.signatureIndex, 0);
 * ```
 */
export async function openDsse(envelope: unknown, key: PublicKey): Promise<OpenedDsse> {
  const parsed = EnvelopeSchema.safeParse(envelope);
  if (!parsed.success) {
    throw new AttestError("schema", "Cannot verify attestation: not a DSSE envelope");
  }
  const env = parsed.data;
  const payload = decodeBase64Either(env.payload);
  if (payload === undefined) {
    throw new AttestError("schema", "Cannot verify attestation: payload is not base64");
  }
  const message = pae(env.payloadType, payload);
  for (const [i, s] of env.signatures.entries()) {
    const sig = decodeBase64Either(s.sig);
    if (sig === undefined || sig.length !== 64) continue;
    if (await crypto.subtle.verify("Ed25519", key.cryptoKey, new Uint8Array(sig), message)) {
      return { payloadType: env.payloadType, payload, signatureIndex: i };
    }
  }
  const id = key.keyId.slice(0, 16);
  if (env.signatures.some((s) => s.keyid === key.keyId)) {
    throw new AttestError(
      "bad_signature",
      `Cannot verify attestation: bad signature (the signature naming key ${id} does not verify)`,
    );
  }
  throw new AttestError(
    "no_signature",
    `Cannot verify attestation: none of the ${env.signatures.length} signature(s) verifies with key ${id}`,
  );
}
