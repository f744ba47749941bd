/**
 * The sealed `VerifiedPatch`: the only value `integrate`, `complete` and the
 * pull-request capability accept. A backend can only produce an
 * `UnverifiedPatch`; `mintVerifiedPatch` (after every check passed, with
 * verified receipts) is the only way to get a `VerifiedPatch`, and each use
 * re-checks its MAC. This module performs no git or network work itself: those
 * operations are injected.
 *
 * @example
 * ```ts
 * import { importMacKey } from "../keys/mac_key.ts";
 * import { assertVerifiedPatch } from "./mod.ts";
 * const key = await importMacKey(new Uint8Array(32), "memory");
 * await assertVerifiedPatch(JSON.parse("{}"), key).then(
 *   () => { throw new Error("forgery accepted"); },
 *   (e) => { if (e.code !== "forged") throw e; },
 * );
 * ```
 *
 * @module
 */
export * from "./errors.ts";
export * from "./verified_patch.ts";
export * from "./capabilities.ts";
export * from "./record.ts";
