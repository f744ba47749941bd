import { VouchError } from "../../kernel/errors/mod.ts";
/** Stable codes of {@linkcode ReceiptError}. */
export type ReceiptErrorCode =
  /** The receipt does not match the receipt schema. */
  | "schema"
  /** The MAC does not verify under the key. */
  | "bad_mac"
  /** The receipt names a different key than the one given. */
  | "key_mismatch"
  /** `prevReceipt` is not the chain hash of the receipt before. */
  | "chain_mismatch"
  /** The anchored log record has a different hash than the anchor says. */
  | "anchor_mismatch"
  /** The log ends before the anchored record: the tail was truncated. */
  | "anchor_missing"
  /** The receipt record sits before the head it claims to anchor. */
  | "anchor_order"
  /** The input cannot be turned into a receipt (bad values). */
  | "invalid_input";

/**
 * The error of the receipts boundary.
 *
 * @example
 * ```ts
 * import { ReceiptError } from "./errors.ts";
 * if (new ReceiptError("bad_mac", "Cannot verify receipt: bad MAC").code !== "bad_mac") throw new Error();
 * ```
 */
export class ReceiptError extends VouchError<ReceiptErrorCode> {}
