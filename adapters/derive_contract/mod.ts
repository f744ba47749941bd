/**
 * Contract derivation: `deriveContract(intent, repoSummary, generate,
 * options)` with an injected async generator (tests need no model), a
 * bounded validate -> repair loop feeding validation errors back, a
 * different model on retry, `intentTargetsTests` routing through observed
 * failures, and a generator-free contract from the verify command. Must
 * never accept a contract the schema rejects.
 *
 * @module
 */
export * from "./intent.ts";
export * from "./derive.ts";
export * from "./observe.ts";
