/**
 * The one error type of the glob compiler.
 *
 * @module
 */
import { VouchError } from "../errors/mod.ts";

/** Every stable code a {@link GlobError} can carry. */
export const GLOB_ERROR_CODES = [
  "empty_pattern",
  "empty_segment",
  "trailing_backslash",
  "unclosed_class",
  "bad_range",
  "unsupported_class",
  "too_many_patterns",
  "pattern_too_long",
] as const;

/**
 * Why a pattern was refused:
 * - `empty_pattern`: the pattern (after `!` and an anchoring `/`) is empty.
 * - `empty_segment`: `//` anywhere (matches no path; almost certainly a typo).
 * - `trailing_backslash`: a `\` with nothing to escape.
 * - `unclosed_class`: a `[` with no closing `]`.
 * - `bad_range`: a class range whose end is before its start (`[z-a]`).
 * - `unsupported_class`: a POSIX class such as `[[:alpha:]]`.
 * - `too_many_patterns`: more patterns than the compiler accepts (10 000).
 * - `pattern_too_long`: a pattern longer than 4096 characters.
 */
export type GlobErrorCode = typeof GLOB_ERROR_CODES[number];

/**
 * Thrown by `compileGlobs` for a pattern it refuses.
 *
 * @example
 * ```ts
 * import { GlobError } from "./error.ts";
 * const error = new GlobError("unclosed_class", "src/[ab", "no closing ']'");
 * if (error.code !== "unclosed_class" || !error.message.startsWith("Cannot compile glob")) {
 *   throw new Error("unexpected");
 * }
 * ```
 */
export class GlobError extends VouchError<GlobErrorCode> {
  /** The offending pattern as given. */
  readonly pattern: string;
  /** An error naming the pattern and why it cannot compile. */
  constructor(code: GlobErrorCode, pattern: string, detail: string) {
    super(code, `Cannot compile glob ${JSON.stringify(pattern)}: ${detail}`);
    this.pattern = pattern;
  }
}
