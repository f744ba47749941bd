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
 * ```ts ignore
 * const envelope = await attestVerifiedPatch(verified, macKey, signingKey);
 * await Deno.writeTextFile(".vouch/runs/t1/attestation.json", JSON.stringify(envelope, null, 2));
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
