/**
 * The bundle judgement: pure verification of result bundles produced
 * elsewhere (a WorkUnit, a worker's ResultManifest, a verifier-owned
 * EvaluatorPlan) from facts an adapter observed. Owns the protocol types, the
 * reason-code table, the read plan (locator confinement and verifier-owned
 * caps) and the decision. It must never do I/O, parse untrusted JSON bytes,
 * execute a candidate, or treat any worker claim as evidence.
 *
 * @module
 */
export * from "./types.ts";
export * from "./reasons.ts";
export * from "./facts.ts";
export * from "./read_plan.ts";
export * from "./judge.ts";
export * from "./json_equal.ts";
