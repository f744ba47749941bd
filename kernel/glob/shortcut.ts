/**
 * Literal shortcuts for the TypeScript engine. Most real patterns are a
 * literal with a wildcard at one end (`*.ts`, `docs/**`, `**\/node_modules/**`,
 * `README.md`); for those the answer is a native `startsWith` / `endsWith` /
 * `includes`, with no automaton. For every other pattern the longest literal
 * run (and, when anchored, the literal prefix) is a necessary condition checked
 * before the automaton runs. Each shortcut is derived from the compiled
 * program alone, so it is exactly equivalent to running it (the WASM engine,
 * which runs the automaton only, is cross-checked against it).
 *
 * @module
 */
import { GLOB_PROGRAM as P } from "./program.ts";

/** How one pattern is decided. */
export type GlobShortcut =
  /** Anchored literal `L`: the path is `L` or below it. */
  | { readonly kind: "exact"; readonly literal: string; readonly dirOnly: boolean }
  /** Name `N` (no `/`) at any depth. */
  | { readonly kind: "name"; readonly literal: string; readonly dirOnly: boolean }
  /** `*L` at any depth (`L` has no `/`). */
  | { readonly kind: "suffix"; readonly literal: string; readonly dirOnly: boolean }
  /** `L*` (`L` has no `/`) at any depth. */
  | { readonly kind: "namePrefix"; readonly literal: string }
  /** Anchored `P**` where `P` ends with `/` (or is empty). */
  | { readonly kind: "prefix"; readonly literal: string }
  /** `**\/P**` where `P` ends with `/` (or is empty). */
  | { readonly kind: "segment"; readonly literal: string }
  /** Anything else: necessary literal conditions, then the automaton. */
  | { readonly kind: "automaton"; readonly prefix: string; readonly infix: string };

/**
 * Derives the shortcut of pattern number `index` of `program`.
 *
 * @example
 * ```ts
 * import { globShortcut } from "./shortcut.ts";
 * import { buildGlobProgram } from "./program.ts";
 * import { parseGlob } from "./parse.ts";
 * const program = buildGlobProgram([parseGlob("*.ts"), parseGlob("src/*.ts")]);
 * if (globShortcut(program, 0).kind !== "suffix") throw new Error("unexpected");
 * const other = globShortcut(program, 1);
 * if (other.kind !== "automaton" || other.prefix !== "src/") throw new Error("unexpected");
 * ```
 */
export function globShortcut(program: Int32Array, index: number): GlobShortcut {
  const p = program[1 + index]!;
  const dirOnly = (program[p]! & P.flagDirOnly) !== 0;
  const n = program[p + 1]!;
  const tokens = program[p + 3]!;
  const kinds: number[] = [];
  const cps: number[] = [];
  for (let i = 0; i < n; i++) {
    kinds.push(program[tokens + 3 * i]!);
    cps.push(program[tokens + 3 * i + 1]!);
  }
  const litRun = (from: number): [string, number] => {
    let s = "";
    let i = from;
    while (i < n && kinds[i] === P.kindLit) s += String.fromCodePoint(cps[i++]!);
    return [s, i];
  };
  const anchored = kinds[0] !== P.kindGlobdir;
  if (anchored) {
    const [lit, end] = litRun(0);
    if (end === n && lit.length > 0) return { kind: "exact", literal: lit, dirOnly };
    if (
      !dirOnly && end === n - 1 && kinds[n - 1] === P.kindAll &&
      (lit === "" || lit.endsWith("/"))
    ) {
      return { kind: "prefix", literal: lit };
    }
  } else {
    if (kinds[1] === P.kindStar) {
      const [lit, end] = litRun(2);
      if (end === n && lit.length > 0 && !lit.includes("/")) {
        return { kind: "suffix", literal: lit, dirOnly };
      }
    } else {
      const [lit, end] = litRun(1);
      if (end === n && lit.length > 0 && !lit.includes("/")) {
        return { kind: "name", literal: lit, dirOnly };
      }
      if (
        !dirOnly && end === n - 1 && kinds[n - 1] === P.kindAll &&
        (lit === "" || lit.endsWith("/"))
      ) {
        return { kind: "segment", literal: lit };
      }
      if (
        !dirOnly && end === n - 1 && kinds[n - 1] === P.kindStar && lit.length > 0 &&
        !lit.includes("/")
      ) {
        return { kind: "namePrefix", literal: lit };
      }
    }
  }
  const prefix = anchored ? litRun(0)[0] : "";
  let infix = "";
  for (let i = 0; i < n; i++) {
    if (kinds[i] !== P.kindLit) continue;
    const [lit, end] = litRun(i);
    if (lit.length > infix.length) infix = lit;
    i = end;
  }
  return { kind: "automaton", prefix, infix };
}

/**
 * Applies a non-automaton shortcut: whether `path` (or one of its leading
 * directories) matches. Returns undefined for `automaton` shortcuts whose
 * literal conditions hold (the automaton must decide), false when they fail.
 *
 * @example
 * ```ts
 * import { decideByShortcut } from "./shortcut.ts";
 * const s = { kind: "suffix", literal: ".ts", dirOnly: false } as const;
 * if (decideByShortcut(s, "a/b.ts") !== true || decideByShortcut(s, "a.tsx") !== false) {
 *   throw new Error("unexpected");
 * }
 * ```
 */
export function decideByShortcut(s: GlobShortcut, path: string): boolean | undefined {
  switch (s.kind) {
    case "exact": {
      const l = s.literal;
      if (!path.startsWith(l)) return false;
      if (path.length === l.length) return !s.dirOnly;
      return path.charCodeAt(l.length) === 0x2f;
    }
    case "name": {
      const l = s.literal;
      // A component equal to l: at the start or after '/', and followed by '/' or the end.
      let from = 0;
      for (;;) {
        const at = path.indexOf(l, from);
        if (at < 0) return false;
        const end = at + l.length;
        if (at === 0 || path.charCodeAt(at - 1) === 0x2f) {
          if (end < path.length && path.charCodeAt(end) === 0x2f) return true;
          if (end === path.length && !s.dirOnly) return true;
        }
        from = at + 1;
      }
    }
    case "suffix": {
      const l = s.literal;
      if (!s.dirOnly && path.endsWith(l)) return true;
      return path.includes(l + "/");
    }
    case "namePrefix":
      return path.startsWith(s.literal) || path.includes("/" + s.literal);
    case "prefix":
      return path.startsWith(s.literal);
    case "segment": {
      const l = s.literal;
      return path.startsWith(l) || path.includes("/" + l);
    }
    case "automaton":
      if (!path.startsWith(s.prefix)) return false;
      if (s.infix.length > 0 && !path.includes(s.infix)) return false;
      return undefined;
  }
}
