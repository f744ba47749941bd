/**
 * vouch: makes "done" mean verified for AI coding agents. The kernel decides,
 * adapters act, and only a `VerifiedPatch` can be integrated.
 *
 * @example Hashing a JSON value canonically
 * ```ts
 * import { canonicalDigest } from "./mod.ts";
 * console.log(canonicalDigest({ hello: "world" }));
 * ```
 *
 * @module
 */
export * from "./kernel/mod.ts";
export * from "./adapters/mod.ts";
