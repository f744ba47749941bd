/**
 * Failing-test parsers for pytest, deno test, node --test (TAP and spec), mocha
 * (spec, dot, list and TAP reporters), TAP in general,
 * jest, vitest, cargo test and go test (plain and -json). Best-effort and
 * never throwing; an empty result means "learned nothing", never "no
 * failures". Must never be used to decide a pass on its own.
 *
 * @module
 */
export * from "./parse.ts";
