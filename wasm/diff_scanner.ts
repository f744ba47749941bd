/**
 * The WebAssembly diff hunk scanner: a `DiffLineScanner` for
 * `parseGitDiff(bytes, { scanner })`, compiled from
 * `wasm/assembly/diff_scan.ts`. The module is instantiated on first use, never
 * at import time. `kernel/diff/scan.ts` is the specification and fallback.
 *
 * @module
 */
import type { DiffLineScanner, DiffScanSession, HunkScan } from "../kernel/diff/types.ts";
import { typescriptDiffScanner } from "../kernel/diff/scan.ts";
import { moduleOfBase64 } from "./_module.ts";
import { WASM_BASE64 } from "./_gen/diff_scan_wasm.ts";

interface DiffScanExports {
  readonly memory: WebAssembly.Memory;
  resultPtr(): number;
  inputPtr(): number;
  scanHunk(size: number, start: number, oldLines: number, newLines: number): number;
}

const PAGE = 65536;
const MAX_WASM_INPUT = 1 << 30;
let exportsCache: DiffScanExports | null = null;

function instance(): DiffScanExports {
  if (exportsCache === null) {
    const module = moduleOfBase64(WASM_BASE64);
    const inst = new WebAssembly.Instance(module, {
      env: {
        abort: () => {
          throw new Error("Cannot scan diff: the WASM scanner aborted");
        },
      },
    });
    exportsCache = inst.exports as unknown as DiffScanExports;
  }
  return exportsCache;
}

/**
 * Creates the WASM scanner. Instantiation happens on the first `begin`; each
 * `begin` copies the patch into the module's memory (grown as needed, never
 * shrunk) and sessions must not be interleaved.
 *
 * @example
 * ```ts
 * import { createWasmDiffScanner } from "./diff_scanner.ts";
 * import { parseGitDiff } from "../kernel/diff/mod.ts";
 * const patch = new TextEncoder().encode("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n");
 * const diff = parseGitDiff(patch, { scanner: createWasmDiffScanner() });
 * if (diff.files[0]?.additions !== 1) throw new Error("unexpected");
 * ```
 */
export function createWasmDiffScanner(): DiffLineScanner {
  return {
    name: "wasm",
    begin(bytes: Uint8Array): DiffScanSession {
      // Offsets are i32 inside the module: past 1 GiB, use the TypeScript twin.
      if (bytes.length > MAX_WASM_INPUT) return typescriptDiffScanner.begin(bytes);
      const wasm = instance();
      const base = wasm.inputPtr();
      // 8 spare bytes: the word-at-a-time LF search may read (never use) past the end.
      const needed = base + bytes.length + 8;
      const have = wasm.memory.buffer.byteLength;
      if (needed > have) {
        try {
          wasm.memory.grow(Math.ceil((needed - have) / PAGE));
        } catch {
          // The host refused the memory: the TypeScript twin gives the same answers.
          return typescriptDiffScanner.begin(bytes);
        }
      }
      new Uint8Array(wasm.memory.buffer, base, bytes.length).set(bytes);
      const size = bytes.length;
      // The memory does not grow during a session, so one view serves every call.
      const result = new Int32Array(wasm.memory.buffer, wasm.resultPtr(), 4);
      let ended = false;
      return {
        scanHunk(start: number, oldLines: number, newLines: number): HunkScan {
          if (ended) throw new Error("Cannot scan diff: the session has ended");
          const status = wasm.scanHunk(size, start, oldLines, newLines);
          return {
            status,
            end: result[0]!,
            lines: result[1]!,
            additions: result[2]!,
            deletions: result[3]!,
          };
        },
        end(): void {
          ended = true;
        },
      };
    },
  };
}
