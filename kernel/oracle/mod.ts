/**
 * The oracle: which files define the tests that judge a patch (test files by
 * each runner's conventions and by where the baseline's tests live, the
 * runner's configuration and what it loads, CI and hook configuration), and
 * the split of a patch into its oracle part and the rest. The rule it serves:
 * the patch under judgement never defines the test that judges it. Pure.
 *
 * @module
 */
export * from "./types.ts";
export * from "./oracle_set.ts";
export * from "./test_keys.ts";
export * from "./split.ts";
export * from "./patch.ts";
export * from "./inputs.ts";
