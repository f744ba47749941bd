/**
 * Attestations: a verified patch exported as an in-toto Statement v1 whose
 * predicate is a vouch verification summary (modelled on SLSA's VSA), in a DSSE
 * envelope signed with Ed25519 (WebCrypto). Verification needs only the
 * envelope and the public key, never vouch's state. This module must never
 * attest a patch that is not a MAC-checked `VerifiedPatch`.
 *
 * @example
 * ```ts
 * import { pae } from "./mod.ts";
 * const bytes = pae("http://example.com/HelloWorld", new TextEncoder().encode("hello world"));
 * if (new TextDecoder().decode(bytes) !== "DSSEv1 29 http://example.com/HelloWorld 11 hello world") {
 *   throw new Error();
 * }
 * ```
 *
 * @module
 */
export * from "./errors.ts";
export * from "./pae.ts";
export * from "./statement.ts";
export * from "./predicates.ts";
export * from "./dsse.ts";
export * from "./envelope.ts";
export * from "./pins.ts";
export * from "./attest.ts";
export * from "./export.ts";
