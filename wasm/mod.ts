/**
 * AssemblyScript implementations of kernel interfaces (diff scanner, glob
 * matcher), instantiated lazily. The TypeScript twins in `kernel/` are the
 * specification and the fallback.
 *
 * @module
 */
export {};
export * from "./diff_scanner.ts";
export * from "./glob_matcher.ts";
