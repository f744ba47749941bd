/**
 * The TypeScript glob matcher: runs a compiled program (see `program.ts`) over
 * a path as a bit-parallel NFA. Time is linear in the path length times the
 * number of 32-state words; there is no backtracking.
 *
 * @module
 */
import { GLOB_PROGRAM as P, globBlockLayout } from "./program.ts";
import { decideByShortcut, type GlobShortcut, globShortcut } from "./shortcut.ts";

/** Executes a compiled program against paths. */
export interface GlobProgramRunner {
  /**
   * Index of the last pattern that matches `path` (the one that decides), or
   * -1 when none does.
   */
  lastMatch(path: string): number;
}

/**
 * A matcher implementation (TypeScript here; WASM in `wasm/glob_matcher.ts`).
 * The kernel defines it; the host may inject a faster one.
 *
 * @example
 * ```ts
 * import { typescriptGlobEngine } from "./match.ts";
 * import { buildGlobProgram } from "./program.ts";
 * import { parseGlob } from "./parse.ts";
 * const runner = typescriptGlobEngine.bind(buildGlobProgram([parseGlob("src/")]));
 * if (runner.lastMatch("src/a.ts") !== 0 || runner.lastMatch("lib/a.ts") !== -1) throw new Error();
 * ```
 */
export interface GlobEngine {
  /** A short name for reports (`typescript`, `wasm`). */
  readonly name: string;
  /** Prepares a runner for `program` (which it must not modify). */
  bind(program: Int32Array): GlobProgramRunner;
}

function nonAsciiForward(prog: Int32Array, p: number, c: number, out: Int32Array): void {
  const n = prog[p + 1]!;
  const tokens = prog[p + 3]!;
  out.fill(0);
  for (let i = 0; i < n; i++) {
    const tk = tokens + 3 * i;
    const kind = prog[tk]!;
    let hit = false;
    if (kind === P.kindLit) hit = prog[tk + 1] === c;
    else if (kind === P.kindAny) hit = true;
    else if (kind === P.kindClass || kind === P.kindNegatedClass) {
      const ranges = prog[tk + 1]!;
      const count = prog[tk + 2]!;
      for (let k = 0; k < count; k++) {
        if (c >= prog[ranges + 2 * k]! && c <= prog[ranges + 2 * k + 1]!) {
          hit = true;
          break;
        }
      }
      if (kind === P.kindNegatedClass) hit = !hit;
    }
    if (hit) out[i >>> 5]! |= 1 << (i & 31);
  }
}

const scratch1 = new Int32Array(1);

/** Runs pattern block `p` of `prog` against `path` when it fits in one word. */
function runOneWord(prog: Int32Array, p: number, path: string): boolean {
  const dirOnly = (prog[p]! & P.flagDirOnly) !== 0;
  const m = p + P.header;
  const accept = prog[m + 1]!;
  const eps = prog[m + 2]!;
  const refresh = prog[m + 3]!;
  const loopNa = prog[m + 4]!;
  const forward = m + 5;
  const loop = forward + 128;
  let d = prog[m]!;
  const n = path.length;
  for (let i = 0; i < n; i++) {
    let c = path.charCodeAt(i);
    let t: number;
    let l: number;
    if (c < 128) {
      if (c === 0x2f && (d & accept) !== 0) return true;
      t = prog[forward + c]!;
      l = prog[loop + c]!;
    } else {
      // A surrogate pair is one code point (a lone surrogate stays itself).
      c = path.codePointAt(i)!;
      if (c > 0xffff) i++;
      nonAsciiForward(prog, p, c, scratch1);
      t = scratch1[0]!;
      l = loopNa;
    }
    const stay = d & l;
    let x = ((d & t) << 1) | (stay & refresh);
    if ((x & eps) !== 0) {
      for (;;) {
        const y = x | ((x & eps) << 1);
        if (y === x) break;
        x = y;
      }
    }
    d = stay | x;
    if (d === 0) return false;
  }
  return !dirOnly && (d & accept) !== 0;
}

/** Runs pattern block `p` with any number of words. */
function runWords(prog: Int32Array, p: number, path: string): boolean {
  const dirOnly = (prog[p]! & P.flagDirOnly) !== 0;
  const w = prog[p + 2]!;
  const { init, accept, eps, refresh, loopNa, forward, loop } = globBlockLayout(p, w);
  const d = prog.slice(init, init + w);
  const x = new Int32Array(w);
  const stay = new Int32Array(w);
  const t = new Int32Array(w);
  const n = path.length;
  const accepting = (): boolean => {
    for (let k = 0; k < w; k++) if ((d[k]! & prog[accept + k]!) !== 0) return true;
    return false;
  };
  for (let i = 0; i < n; i++) {
    let c = path.charCodeAt(i);
    let lAt: number;
    if (c < 128) {
      if (c === 0x2f && accepting()) return true;
      t.set(prog.subarray(forward + c * w, forward + c * w + w));
      lAt = loop + c * w;
    } else {
      // A surrogate pair is one code point (a lone surrogate stays itself).
      c = path.codePointAt(i)!;
      if (c > 0xffff) i++;
      nonAsciiForward(prog, p, c, t);
      lAt = loopNa;
    }
    // x = ((d & t) << 1) | (stay & refresh), with the carry across words.
    let carry = 0;
    for (let k = 0; k < w; k++) {
      const s = d[k]! & prog[lAt + k]!;
      stay[k] = s;
      const f = d[k]! & t[k]!;
      x[k] = (f << 1) | carry | (s & prog[refresh + k]!);
      carry = f >>> 31;
    }
    for (;;) {
      let changed = false;
      let c2 = 0;
      for (let k = 0; k < w; k++) {
        const e = x[k]! & prog[eps + k]!;
        const y = x[k]! | (e << 1) | c2;
        c2 = e >>> 31;
        if (y !== x[k]) {
          x[k] = y;
          changed = true;
        }
      }
      if (!changed) break;
    }
    let alive = 0;
    for (let k = 0; k < w; k++) {
      d[k] = stay[k]! | x[k]!;
      alive |= d[k]!;
    }
    if (alive === 0) return false;
  }
  return !dirOnly && accepting();
}

/**
 * Whether pattern number `index` of `program` matches `path` (itself, or one of
 * its leading directories, as gitignore does).
 *
 * @example
 * ```ts
 * import { runGlobPattern } from "./match.ts";
 * import { buildGlobProgram } from "./program.ts";
 * import { parseGlob } from "./parse.ts";
 * const program = buildGlobProgram([parseGlob("*.md")]);
 * if (!runGlobPattern(program, 0, "docs/.intro.md")) throw new Error("dotfiles match");
 * ```
 */
export function runGlobPattern(program: Int32Array, index: number, path: string): boolean {
  const p = program[1 + index]!;
  return program[p + 2] === 1 ? runOneWord(program, p, path) : runWords(program, p, path);
}

/**
 * The TypeScript engine: the specification and the fallback.
 *
 * @example
 * ```ts
 * import { typescriptGlobEngine } from "./match.ts";
 * if (typescriptGlobEngine.name !== "typescript") throw new Error();
 * ```
 */
export const typescriptGlobEngine: GlobEngine = {
  name: "typescript",
  bind(program: Int32Array): GlobProgramRunner {
    const count = program[0]!;
    const shortcuts: GlobShortcut[] = [];
    for (let i = 0; i < count; i++) shortcuts.push(globShortcut(program, i));
    return {
      lastMatch(path: string): number {
        for (let i = count - 1; i >= 0; i--) {
          const hit = decideByShortcut(shortcuts[i]!, path) ?? runGlobPattern(program, i, path);
          if (hit) return i;
        }
        return -1;
      },
    };
  },
};
