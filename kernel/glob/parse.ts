/**
 * Turns one gitignore-style pattern into a token list (the automaton's states).
 *
 * @module
 */
import { GlobError } from "./error.ts";

/**
 * One state of a compiled pattern. The matcher is an NFA whose state `i` means
 * "token `i` is next"; state `tokens.length` accepts.
 * - `lit`: one code point.
 * - `any`: `?`, one code point other than `/`.
 * - `class`: `[...]`; `ranges` holds inclusive `lo, hi` pairs; never matches `/`.
 * - `star`: `*`, zero or more code points other than `/`.
 * - `globdir`: a leading or inner `**` + `/`, zero or more whole directories.
 * - `all`: a trailing `/**`, everything below (one or more code points, `/` too).
 */
export type GlobToken =
  | { readonly kind: "lit"; readonly cp: number }
  | { readonly kind: "any" }
  | { readonly kind: "class"; readonly negated: boolean; readonly ranges: readonly number[] }
  | { readonly kind: "star" }
  | { readonly kind: "globdir" }
  | { readonly kind: "all" };

/** One parsed pattern. */
export interface ParsedGlob {
  /** The pattern exactly as given. */
  readonly source: string;
  /** Started with `!`: a match excludes instead of includes. */
  readonly negated: boolean;
  /** Ended with `/`: matches only directories (so, every path beneath one). */
  readonly dirOnly: boolean;
  /** The automaton states. */
  readonly tokens: readonly GlobToken[];
}

/** Longest accepted pattern, in UTF-16 code units. */
export const MAX_PATTERN_LENGTH = 4096;

const SLASH = 0x2f;

/**
 * Parses one pattern with gitignore semantics: `*` never crosses `/`; `**` as a
 * whole segment spans directories; `?`; classes `[a-z]`, `[!x]`/`[^x]`; `\`
 * escapes; a leading `!` negates; a leading `/` anchors; a pattern with no other
 * `/` matches a name at any depth; a trailing `/` matches directories only.
 *
 * @example
 * ```ts
 * import { parseGlob } from "./parse.ts";
 * const parsed = parseGlob("!build/");
 * if (!parsed.negated || !parsed.dirOnly) throw new Error("unexpected");
 * // "build" at any depth: a leading globdir, then the literal letters.
 * if (parsed.tokens[0]!.kind !== "globdir" || parsed.tokens.length !== 6) throw new Error();
 * ```
 */
export function parseGlob(source: string): ParsedGlob {
  if (source.length > MAX_PATTERN_LENGTH) {
    throw new GlobError("pattern_too_long", source.slice(0, 64), "pattern is too long");
  }
  let body = source;
  let negated = false;
  if (body.startsWith("!")) {
    negated = true;
    body = body.slice(1);
  }
  if (body.includes("//")) {
    throw new GlobError("empty_segment", source, "pattern has an empty segment ('//')");
  }
  let dirOnly = false;
  if (
    body.length > 0 && body.charCodeAt(body.length - 1) === SLASH &&
    !escapedAt(body, body.length - 1)
  ) {
    dirOnly = true;
    body = body.slice(0, -1);
  }
  let anchored = false;
  if (body.startsWith("/")) {
    anchored = true;
    body = body.slice(1);
  }
  if (body.length === 0) throw new GlobError("empty_pattern", source, "pattern is empty");
  // Like git (a plain strchr): any '/', even escaped or inside a class, anchors.
  if (body.includes("/")) anchored = true;
  const tokens: GlobToken[] = [];
  if (!anchored) tokens.push({ kind: "globdir" });
  parseBody(source, body, tokens);
  return { source, negated, dirOnly, tokens };
}

function escapedAt(s: string, index: number): boolean {
  let n = 0;
  for (let i = index - 1; i >= 0 && s.charCodeAt(i) === 0x5c; i--) n++;
  return n % 2 === 1;
}

function parseBody(source: string, body: string, tokens: GlobToken[]): void {
  const n = body.length;
  let i = 0;
  while (i < n) {
    const c = body.codePointAt(i)!;
    const width = c > 0xffff ? 2 : 1;
    if (c === 0x2a) {
      // A run of stars.
      let j = i;
      while (j < n && body.charCodeAt(j) === 0x2a) j++;
      const run = j - i;
      const atSegmentStart = i === 0 || body.charCodeAt(i - 1) === SLASH;
      // git's wildmatch also takes "**\/" as a globstar.
      const escapedSlash = body.charCodeAt(j) === 0x5c && body.charCodeAt(j + 1) === SLASH;
      const atSegmentEnd = j === n || body.charCodeAt(j) === SLASH || escapedSlash;
      if (run >= 2 && atSegmentStart && atSegmentEnd) {
        if (j === n) {
          // Trailing "/**" (or the whole pattern "**"): everything.
          if (i === 0) {
            tokens.push({ kind: "all" });
          } else {
            tokens.push({ kind: "all" });
          }
          i = j;
        } else {
          // "**/": zero or more directories; consume the slash.
          if (tokens[tokens.length - 1]?.kind !== "globdir") tokens.push({ kind: "globdir" });
          i = j + (escapedSlash ? 2 : 1);
        }
        continue;
      }
      if (tokens[tokens.length - 1]?.kind !== "star") tokens.push({ kind: "star" });
      i = j;
      continue;
    }
    if (c === 0x3f) {
      tokens.push({ kind: "any" });
      i++;
      continue;
    }
    if (c === 0x5b) {
      i = parseClass(source, body, i, tokens);
      continue;
    }
    if (c === 0x5c) {
      if (i + 1 >= n) throw new GlobError("trailing_backslash", source, "nothing after '\\'");
      const e = body.codePointAt(i + 1)!;
      tokens.push({ kind: "lit", cp: e });
      i += 1 + (e > 0xffff ? 2 : 1);
      continue;
    }
    tokens.push({ kind: "lit", cp: c });
    i += width;
  }
}

function parseClass(source: string, body: string, start: number, tokens: GlobToken[]): number {
  const n = body.length;
  let i = start + 1;
  let negated = false;
  if (i < n && (body[i] === "!" || body[i] === "^")) {
    negated = true;
    i++;
  }
  const ranges: number[] = [];
  let first = true;
  for (;;) {
    if (i >= n) throw new GlobError("unclosed_class", source, "no closing ']'");
    let c = body.codePointAt(i)!;
    if (c === 0x5d && !first) {
      i++;
      break;
    }
    first = false;
    if (c === 0x5b && body[i + 1] === ":") {
      const close = body.indexOf(":]", i + 2);
      if (close > 0 && /^[a-z]+$/.test(body.slice(i + 2, close))) {
        throw new GlobError(
          "unsupported_class",
          source,
          "POSIX character classes are not supported",
        );
      }
    }
    if (c === 0x5c) {
      if (i + 1 >= n) throw new GlobError("trailing_backslash", source, "nothing after '\\'");
      i++;
      c = body.codePointAt(i)!;
    }
    i += c > 0xffff ? 2 : 1;
    let hi = c;
    if (i + 1 < n && body[i] === "-" && body[i + 1] !== "]") {
      i++;
      hi = body.codePointAt(i)!;
      if (hi === 0x5c) {
        if (i + 1 >= n) throw new GlobError("trailing_backslash", source, "nothing after '\\'");
        i++;
        hi = body.codePointAt(i)!;
      }
      i += hi > 0xffff ? 2 : 1;
      if (hi < c) {
        throw new GlobError("bad_range", source, `range end before start in class`);
      }
    }
    ranges.push(c, hi);
  }
  tokens.push({ kind: "class", negated, ranges });
  return i;
}
