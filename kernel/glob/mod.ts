/**
 * Globs with gitignore semantics, compiled once per pattern list into a flat
 * program that a linear-time bit-parallel NFA runs (TypeScript here, WASM in
 * `wasm/`). Owns pattern syntax and matching only; it never decides policy
 * (that is `kernel/scope`) and never reads a filesystem.
 *
 * @module
 */
export * from "./error.ts";
export * from "./parse.ts";
export * from "./program.ts";
export * from "./match.ts";
export * from "./glob_set.ts";
export * from "./shortcut.ts";
