import { VouchError } from "../../kernel/errors/mod.ts";
/** Stable codes of {@linkcode AttestError}. */
export type AttestErrorCode =
  /** The envelope or statement does not have the expected shape. */
  | "schema"
  /** The envelope's payloadType is not `application/vnd.in-toto+json`. */
  | "payload_type"
  /** No signature was made by the given key. */
  | "no_signature"
  /** A signature by the key id exists but does not verify. */
  | "bad_signature"
  /** The statement is not a vouch verification summary that passed. */
  | "bad_statement"
  /** The subject does not match the patch the caller holds. */
  | "subject_mismatch"
  /** A pinned field (contract, base, policy, sandbox) differs from what was asked, or is absent. */
  | "pin_mismatch";

/**
 * The error of the attestation boundary.
 *
 * @example
 * ```ts
 * import { AttestError } from "./errors.ts";
 * if (new AttestError("schema", "Cannot read envelope: schema").code !== "schema") throw new Error();
 * ```
 */
export class AttestError extends VouchError<AttestErrorCode> {}
