/**
 * The trusted core of vouch: the deterministic lifecycle reducer and the pure
 * verification primitives (diff parser, path confinement, globs, scope,
 * contract judgement, the test oracle and the patch's oracle split).
 *
 * Rules: imports nothing outside `kernel/`; uses no `Deno.*`, no I/O, no clock,
 * no randomness. Time, ids and results arrive as events; a digest or a faster
 * WASM implementation is passed in through interfaces defined here.
 *
 * @module
 */
export * from "./errors/mod.ts";
export * from "./digest.ts";
export * from "./text/mod.ts";
export * from "./diff/mod.ts";
export * from "./paths/mod.ts";
export * from "./glob/mod.ts";
export * from "./lifecycle/mod.ts";
export * from "./contract/mod.ts";
export * from "./scope/mod.ts";
export * from "./bundle/mod.ts";
export * from "./oracle/mod.ts";
