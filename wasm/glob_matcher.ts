/**
 * The WebAssembly glob matcher: a `GlobEngine` for
 * `compileGlobs(patterns, { engine })`, compiled from
 * `wasm/assembly/glob_match.ts`. It runs the very program `kernel/glob`
 * compiles (the TypeScript matcher there is the specification and fallback)
 * over UTF-8 path bytes, with the same literal shortcuts
 * (`kernel/glob/shortcut.ts`) evaluated on bytes. The module is compiled on first use, never at import
 * time; each bound program gets its own small instance.
 *
 * @module
 */
import type { GlobEngine, GlobProgramRunner } from "../kernel/glob/match.ts";
import { type GlobShortcut, globShortcut } from "../kernel/glob/shortcut.ts";
import { moduleOfBase64 } from "./_module.ts";
import { WASM_BASE64 } from "./_gen/glob_match_wasm.ts";

interface GlobMatchExports {
  readonly memory: WebAssembly.Memory;
  reserve(programInts: number, inputBytes: number, resultInts: number): number;
  programPtr(): number;
  inputPtr(): number;
  resultPtr(): number;
  loadProgram(tableOffset: number): void;
  lastMatch(length: number): number;
  matchBatch(total: number): number;
}

let moduleCache: WebAssembly.Module | null = null;

function instantiate(): GlobMatchExports {
  moduleCache ??= moduleOfBase64(WASM_BASE64);
  const instance = new WebAssembly.Instance(moduleCache, {
    env: {
      abort: () => {
        throw new Error("Cannot match glob: the WASM matcher aborted");
      },
    },
  });
  return instance.exports as unknown as GlobMatchExports;
}

/** A runner over one program, with byte-level and batch entry points. */
export interface WasmGlobRunner extends GlobProgramRunner {
  /** {@link GlobProgramRunner.lastMatch} on UTF-8 path bytes. */
  lastMatchBytes(path: Uint8Array): number;
  /**
   * Matches many paths at once: `paths` holds UTF-8 paths separated by NUL
   * bytes (paths that passed `confinePath` never contain NUL). Returns one
   * `lastMatch` result per path.
   */
  matchBatch(paths: Uint8Array): Int32Array;
}

/** A {@link GlobEngine} whose runners also take bytes and batches. */
export interface WasmGlobEngine extends GlobEngine {
  /** Instantiates the module for `program`. */
  bind(program: Int32Array): WasmGlobRunner;
}

const encoder = new TextEncoder();

const SHORTCUT_KINDS: Record<GlobShortcut["kind"], number> = {
  automaton: 0,
  exact: 1,
  name: 2,
  suffix: 3,
  namePrefix: 4,
  prefix: 5,
  segment: 6,
};
const ENTRY = 8;

/**
 * Appends the shortcut table the WASM matcher reads after the program: per
 * pattern `kind, dirOnly, litOff, litLen, prefOff, prefLen, infOff, infLen`
 * (offsets into the combined array), then the literal UTF-8 bytes, one per int.
 *
 * @example
 * ```ts
 * import { withShortcutTable } from "./glob_matcher.ts";
 * import { compileGlobs } from "../kernel/glob/mod.ts";
 * const { program } = compileGlobs(["*.ts"]);
 * const combined = withShortcutTable(program);
 * if (combined[program.length] !== 3 || combined.length !== program.length + 8 + 3) throw new Error();
 * ```
 */
export function withShortcutTable(program: Int32Array): Int32Array {
  const count = program[0]!;
  const entries: number[] = [];
  const bytes: number[] = [];
  const base = program.length + count * ENTRY;
  const put = (text: string): [number, number] => {
    const encoded = encoder.encode(text);
    const at = base + bytes.length;
    for (const b of encoded) bytes.push(b);
    return [at, encoded.length];
  };
  for (let i = 0; i < count; i++) {
    const s = globShortcut(program, i);
    const dirOnly = "dirOnly" in s && s.dirOnly ? 1 : 0;
    if (s.kind === "automaton") {
      entries.push(SHORTCUT_KINDS[s.kind], dirOnly, 0, 0, ...put(s.prefix), ...put(s.infix));
    } else {
      entries.push(SHORTCUT_KINDS[s.kind], dirOnly, ...put(s.literal), 0, 0, 0, 0);
    }
  }
  const out = new Int32Array(base + bytes.length);
  out.set(program);
  out.set(entries, program.length);
  out.set(bytes, base);
  return out;
}

class Runner implements WasmGlobRunner {
  readonly #wasm: GlobMatchExports;
  readonly #programInts: number;
  #capacity = 0;
  #resultCapacity = 0;
  #bytes: Uint8Array;
  #input = 0;

  constructor(program: Int32Array) {
    this.#wasm = instantiate();
    const combined = withShortcutTable(program);
    this.#programInts = combined.length;
    this.#reserve(4096, 1);
    new Int32Array(this.#wasm.memory.buffer, this.#wasm.programPtr(), combined.length).set(
      combined,
    );
    this.#wasm.loadProgram(program.length);
    this.#bytes = new Uint8Array(this.#wasm.memory.buffer);
  }

  #reserve(inputBytes: number, resultInts: number): void {
    if (inputBytes <= this.#capacity && resultInts <= this.#resultCapacity) return;
    // The program sits first in the layout, so growing the other buffers never moves it.
    const input = Math.max(inputBytes, this.#capacity);
    const results = Math.max(resultInts, this.#resultCapacity);
    if (this.#wasm.reserve(this.#programInts, input, results) !== 1) {
      throw new RangeError("Cannot match glob: the WASM matcher cannot grow its memory");
    }
    this.#capacity = input;
    this.#resultCapacity = results;
    this.#input = this.#wasm.inputPtr();
    this.#bytes = new Uint8Array(this.#wasm.memory.buffer);
  }

  lastMatch(path: string): number {
    // A UTF-16 code unit takes at most 3 UTF-8 bytes.
    if (path.length * 3 > this.#capacity) this.#reserve(path.length * 3, 1);
    const bytes = this.#bytes;
    const { written } = encoder.encodeInto(path, bytes.subarray(this.#input));
    return this.#wasm.lastMatch(written);
  }

  lastMatchBytes(path: Uint8Array): number {
    if (path.length > this.#capacity) this.#reserve(path.length, 1);
    this.#bytes.set(path, this.#input);
    return this.#wasm.lastMatch(path.length);
  }

  matchBatch(paths: Uint8Array): Int32Array {
    if (paths.length === 0) return new Int32Array(0);
    // At most one path per byte, plus one: no need to count separators here.
    this.#reserve(paths.length, paths.length + 1);
    this.#bytes.set(paths, this.#input);
    const n = this.#wasm.matchBatch(paths.length);
    return new Int32Array(this.#wasm.memory.buffer, this.#wasm.resultPtr(), n).slice();
  }
}

/**
 * The WASM engine. Binding compiles the module once per process and
 * instantiates it per program.
 *
 * @example
 * ```ts
 * import { wasmGlobEngine } from "./glob_matcher.ts";
 * import { compileGlobs } from "../kernel/glob/mod.ts";
 * const set = compileGlobs(["src/**", "!*.snap"], { engine: wasmGlobEngine });
 * if (!set.matches("src/a.ts") || set.matches("src/a.snap") || set.engine !== "wasm") {
 *   throw new Error("unexpected");
 * }
 * ```
 */
export const wasmGlobEngine: WasmGlobEngine = {
  name: "wasm",
  bind(program: Int32Array): WasmGlobRunner {
    return new Runner(program);
  },
};
