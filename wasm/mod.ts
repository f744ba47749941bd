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
// Types the WASM engines implement (exported so the reference links them).
export type { DiffLineScanner, DiffScanSession, HunkScan } from "../kernel/diff/types.ts";
export type { GlobEngine, GlobProgramRunner } from "../kernel/glob/match.ts";
