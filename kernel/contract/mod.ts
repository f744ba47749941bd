/**
 * Outcome contracts, pure: the model (checks, expectations, baselines,
 * differentials) and its judgement from observations the adapter supplies.
 * Never runs anything, never reads a file; fails closed.
 *
 * @module
 */
export * from "./types.ts";
export * from "./json.ts";
export * from "./judge.ts";
export * from "./test_lists.ts";
export * from "./differential.ts";
export * from "./two_oracles.ts";
