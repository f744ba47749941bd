/**
 * Verification: validation of a backend round, the same for every backend.
 * It re-derives everything from bytes vouch extracted itself: the patch is
 * judged by `judgePatch` (kernel/scope: strict parse, scope, classification,
 * policy), writes outside the worktree are detected, and the contract is
 * re-run in a CLEAN tree of the base with the patch applied by
 * `git apply --index`, in the sandbox, with a receipt per command.
 *
 * It must never trust anything a worker says (transcripts are data), and never
 * report a check that could not run as passed.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { createCleanVerifier } from "./mod.ts";
 * equal(typeof createCleanVerifier, "function");
 * ```
 *
 * @module
 */
export * from "./outside_writes.ts";
export * from "./clean_verifier.ts";
export * from "./verifier.ts";
export * from "./check_slots.ts";
export * from "./oracle_of.ts";
