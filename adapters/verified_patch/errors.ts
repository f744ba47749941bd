import { VouchError } from "../../kernel/errors/mod.ts";
/** Stable codes of {@linkcode VerifiedPatchError}. */
export type VerifiedPatchErrorCode =
  /** Not a `VerifiedPatch` minted by this module (plain object, JSON, cast, prototype trick). */
  | "forged"
  /** The patch's MAC does not verify (tampered field, or another key). */
  | "bad_mac"
  /** The diff bytes do not match the patch digest. */
  | "digest_mismatch"
  /** Minting refused: a check did not pass, or there were no checks. */
  | "checks_failed"
  /** Minting refused: a check's receipt is missing or does not verify. */
  | "bad_receipt"
  /** Minting refused: the inputs are malformed. */
  | "invalid_input"
  /** A JSON form of a verified patch could not be read. */
  | "schema";

/**
 * The error of the verified-patch boundary.
 *
 * @example
 * ```ts
 * import { VerifiedPatchError } from "./errors.ts";
 * if (new VerifiedPatchError("forged", "Cannot accept patch: forged").code !== "forged") throw new Error();
 * ```
 */
export class VerifiedPatchError extends VouchError<VerifiedPatchErrorCode> {}
