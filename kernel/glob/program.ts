/**
 * The compiled form of a pattern set: one flat `Int32Array` that both the
 * TypeScript matcher (the spec) and the WASM matcher execute. The layout is a
 * contract with `wasm/assembly/glob_match.ts`; change both together.
 *
 * @module
 */
import type { GlobToken, ParsedGlob } from "./parse.ts";

/**
 * Offsets and values of the program layout.
 *
 * Program: `[count, offset_0, ..., offset_{count-1}, blocks...]`.
 * Block at `p`: `flags, nTokens, words, tokenOffset`, then `words`-sized masks
 * `INIT, ACCEPT, EPS, REFRESH, LOOP_NON_ASCII`, then the ASCII tables
 * `FORWARD[128][words]` and `LOOP[128][words]`. Bit `i` of a mask is state `i`.
 * Tokens (3 ints each: kind, a, b) live at `tokenOffset`; a class's `a` is the
 * absolute offset of its `lo, hi` pairs and `b` their count.
 *
 * @example
 * ```ts
 * import { GLOB_PROGRAM } from "./program.ts";
 * if (GLOB_PROGRAM.header !== 4 || GLOB_PROGRAM.kindStar !== 5) throw new Error("layout changed");
 * ```
 */
export const GLOB_PROGRAM = {
  /** Ints before the masks in a block. */
  header: 4,
  /** Flag: the pattern is negated. */
  flagNegated: 1,
  /** Flag: the pattern matches directories only. */
  flagDirOnly: 2,
  kindLit: 1,
  kindAny: 2,
  kindClass: 3,
  kindNegatedClass: 4,
  kindStar: 5,
  kindGlobdir: 6,
  kindAll: 7,
} as const;

const P = GLOB_PROGRAM;

function kindOf(token: GlobToken): number {
  switch (token.kind) {
    case "lit":
      return P.kindLit;
    case "any":
      return P.kindAny;
    case "class":
      return token.negated ? P.kindNegatedClass : P.kindClass;
    case "star":
      return P.kindStar;
    case "globdir":
      return P.kindGlobdir;
    case "all":
      return P.kindAll;
  }
}

/** Whether token `t` moves forward on code point `c` (`c` is never a surrogate half). */
function forwardOn(t: GlobToken, c: number): boolean {
  switch (t.kind) {
    case "lit":
      return t.cp === c;
    case "any":
      return c !== 0x2f;
    case "class": {
      if (c === 0x2f) return false;
      let hit = false;
      for (let k = 0; k < t.ranges.length; k += 2) {
        if (c >= t.ranges[k]! && c <= t.ranges[k + 1]!) {
          hit = true;
          break;
        }
      }
      return hit !== t.negated;
    }
    case "globdir":
      return c === 0x2f;
    default:
      return false;
  }
}

function loopsOn(t: GlobToken, c: number): boolean {
  switch (t.kind) {
    case "star":
      return c !== 0x2f;
    case "globdir":
    case "all":
      return true;
    default:
      return false;
  }
}

/** Where the masks and tables of one pattern block lie: absolute offsets into the program. */
export interface GlobBlockLayout {
  /** `INIT`: the states before the first character. */
  readonly init: number;
  /** `ACCEPT`: the accepting state. */
  readonly accept: number;
  /** `EPS`: states left without reading (`*`, `**`). */
  readonly eps: number;
  /** `REFRESH`: states kept alive across a step (all but `**`/). */
  readonly refresh: number;
  /** `LOOP_NON_ASCII`: states that loop on a non-ASCII code point. */
  readonly loopNa: number;
  /** `FORWARD[128][words]`. */
  readonly forward: number;
  /** `LOOP[128][words]`. */
  readonly loop: number;
  /** The tokens (3 ints each); the end of the fixed part of the block. */
  readonly tokens: number;
}

/**
 * The layout of the block at `p` whose masks are `words` 32-bit words wide
 * (see {@link GLOB_PROGRAM}): the one statement of it, for the compiler and
 * the matcher.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { globBlockLayout } from "./program.ts";
 * const at = globBlockLayout(10, 2);
 * deepEqual([at.init, at.accept, at.loopNa, at.forward, at.loop, at.tokens], [14, 16, 22, 24, 280, 536]);
 * ```
 */
export function globBlockLayout(p: number, words: number): GlobBlockLayout {
  const init = p + P.header;
  const forward = init + 5 * words;
  const loop = forward + 128 * words;
  return {
    init,
    accept: init + words,
    eps: init + 2 * words,
    refresh: init + 3 * words,
    loopNa: init + 4 * words,
    forward,
    loop,
    tokens: loop + 128 * words,
  };
}

/** 32-bit words of the masks of a pattern of `tokens` tokens (one state per token, plus accept). */
function wordsOf(tokens: number): number {
  return ((tokens + 1) + 31) >>> 5;
}

function setBit(prog: Int32Array, at: number, bit: number): void {
  prog[at + (bit >>> 5)]! |= 1 << (bit & 31);
}

/**
 * Compiles parsed patterns into one program (see {@link GLOB_PROGRAM}).
 *
 * @example
 * ```ts
 * import { parseGlob } from "./parse.ts";
 * import { buildGlobProgram } from "./program.ts";
 * const program = buildGlobProgram([parseGlob("*.ts"), parseGlob("!a.ts")]);
 * if (program[0] !== 2) throw new Error("unexpected");
 * ```
 */
export function buildGlobProgram(globs: readonly ParsedGlob[]): Int32Array {
  let size = 1 + globs.length;
  for (const g of globs) {
    size += globBlockLayout(0, wordsOf(g.tokens.length)).tokens + 3 * g.tokens.length;
    for (const t of g.tokens) if (t.kind === "class") size += t.ranges.length;
  }
  const prog = new Int32Array(size);
  prog[0] = globs.length;
  let at = 1 + globs.length;
  globs.forEach((g, index) => {
    const n = g.tokens.length;
    const words = wordsOf(n);
    const p = at;
    prog[1 + index] = p;
    const { init, accept, eps, refresh, loopNa, forward, loop, tokens: tokenOffset } =
      globBlockLayout(p, words);
    let rangeOffset = tokenOffset + 3 * n;
    prog[p] = (g.negated ? P.flagNegated : 0) | (g.dirOnly ? P.flagDirOnly : 0);
    prog[p + 1] = n;
    prog[p + 2] = words;
    prog[p + 3] = tokenOffset;
    setBit(prog, accept, n);
    g.tokens.forEach((t, i) => {
      if (t.kind === "star" || t.kind === "globdir" || t.kind === "all") {
        setBit(prog, eps, i);
        setBit(prog, loopNa, i);
        if (t.kind !== "globdir") setBit(prog, refresh, i);
      }
      for (let c = 0; c < 128; c++) {
        if (forwardOn(t, c)) setBit(prog, forward + c * words, i);
        if (loopsOn(t, c)) setBit(prog, loop + c * words, i);
      }
      const tk = tokenOffset + 3 * i;
      prog[tk] = kindOf(t);
      if (t.kind === "lit") prog[tk + 1] = t.cp;
      if (t.kind === "class") {
        prog[tk + 1] = rangeOffset;
        prog[tk + 2] = t.ranges.length >>> 1;
        for (const r of t.ranges) prog[rangeOffset++] = r;
      }
    });
    // INIT: the epsilon closure of state 0.
    setBit(prog, init, 0);
    for (let i = 0; i < n; i++) {
      const inInit = (prog[init + (i >>> 5)]! & (1 << (i & 31))) !== 0;
      const isEps = (prog[eps + (i >>> 5)]! & (1 << (i & 31))) !== 0;
      if (inInit && isEps) setBit(prog, init, i + 1);
    }
    at = rangeOffset;
  });
  return prog;
}
