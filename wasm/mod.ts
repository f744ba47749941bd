/**
 * AssemblyScript implementations of kernel interfaces (diff scanner, glob
 * matcher), instantiated lazily. The TypeScript twins in `kernel/` are the
 * specification and the fallback.
 *
 * @module
 */
export { createWasmDiffScanner } from "./diff_scanner.ts";
export {
  type WasmGlobEngine,
  wasmGlobEngine,
  type WasmGlobRunner,
  withShortcutTable,
} from "./glob_matcher.ts";
export type { DiffLineScanner, DiffScanSession, HunkScan } from "../kernel/diff/types.ts";
export type { GlobEngine, GlobProgramRunner } from "../kernel/glob/match.ts";
