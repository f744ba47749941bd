/**
 * `compileGlobs`: an ordered list of gitignore-style patterns, compiled once.
 *
 * @module
 */
import { GlobError } from "./error.ts";
import { type GlobEngine, type GlobProgramRunner, typescriptGlobEngine } from "./match.ts";
import { type ParsedGlob, parseGlob } from "./parse.ts";
import { buildGlobProgram } from "./program.ts";

/** A compiled, ordered pattern list. */
export interface GlobSet {
  /** The patterns as given. */
  readonly patterns: readonly string[];
  /** The compiled program (see `program.ts`). */
  readonly program: Int32Array;
  /** The engine that runs it. */
  readonly engine: string;
  /**
   * Whether `path` is selected: the last pattern that matches it decides, and
   * a `!` pattern deselects. No pattern matching means not selected.
   */
  matches(path: string): boolean;
  /** Index of the last pattern matching `path`, or -1. */
  lastMatch(path: string): number;
}

/** Options of {@link compileGlobs}. */
export interface CompileGlobsOptions {
  /** The matcher implementation (default: the TypeScript one). */
  readonly engine?: GlobEngine;
}

/** Most patterns one set may hold. */
export const MAX_GLOB_PATTERNS = 10_000;

/**
 * Compiles `patterns` (gitignore semantics, see `parseGlob`) into a
 * {@link GlobSet}. Matching never crosses `/` with `*`, treats dotfiles like
 * any other name (as git does), and a pattern also matches every path below a
 * directory it matches. Throws {@link GlobError} for a malformed pattern.
 *
 * @example
 * ```ts
 * import { compileGlobs } from "./glob_set.ts";
 * const set = compileGlobs(["src/**", "*.md", "!src/generated/"]);
 * if (!set.matches("src/a/b.ts") || !set.matches("docs/.x.md")) throw new Error();
 * if (set.matches("src/generated/x.ts") || set.matches("lib/a.ts")) throw new Error();
 * ```
 */
export function compileGlobs(
  patterns: readonly string[],
  options: CompileGlobsOptions = {},
): GlobSet {
  if (patterns.length > MAX_GLOB_PATTERNS) {
    throw new GlobError("too_many_patterns", String(patterns.length), "too many patterns");
  }
  const parsed: ParsedGlob[] = patterns.map((p) => parseGlob(p));
  const program = buildGlobProgram(parsed);
  const engine = options.engine ?? typescriptGlobEngine;
  const runner: GlobProgramRunner = engine.bind(program);
  const negated = parsed.map((g) => g.negated);
  const anyNegated = negated.includes(true);
  return {
    patterns: [...patterns],
    program,
    engine: engine.name,
    matches: anyNegated
      ? (path: string): boolean => {
        const i = runner.lastMatch(path);
        return i >= 0 && !negated[i];
      }
      : (path: string): boolean => runner.lastMatch(path) >= 0,
    lastMatch: (path: string): number => runner.lastMatch(path),
  };
}
