/**
 * A strict JSON reader for untrusted bundle bytes. `JSON.parse` silently keeps
 * the last of two duplicate keys and happily builds a `__proto__` key; both are
 * classic ways to make two readers of one file disagree. This parser refuses
 * them, along with a BOM, invalid UTF-8, lone surrogates, integers beyond
 * 2^53 and nesting deeper than a bound. It is linear in the input size.
 *
 * @module
 */
import { VouchError } from "../../kernel/errors/mod.ts";

/** Stable codes of {@linkcode StrictJsonError}. */
export type StrictJsonCode =
  | "json_invalid_utf8"
  | "json_bom"
  | "json_syntax"
  | "json_duplicate_key"
  | "json_forbidden_key"
  | "json_unsafe_number"
  | "json_too_deep";

/** Raised when bytes are not strict JSON; `offset` is the character index of the problem. */
export class StrictJsonError extends VouchError<StrictJsonCode> {
  /** Character offset (in the decoded text) where the problem was found. */
  readonly offset: number;
  constructor(code: StrictJsonCode, offset: number, message: string) {
    super(code, message);
    this.offset = offset;
  }
}

/** Keys refused anywhere in an object: they alter prototypes in naive consumers. */
export const FORBIDDEN_JSON_KEYS: readonly string[] = ["__proto__", "constructor", "prototype"];

/** Options for {@linkcode parseStrictJson}. */
export interface StrictJsonOptions {
  /** Maximum nesting of arrays and objects. @default 64 */
  maxDepth?: number;
}

/** A JSON value as the strict parser produces it. */
export type StrictJsonValue =
  | null
  | boolean
  | number
  | string
  | StrictJsonValue[]
  | { [key: string]: StrictJsonValue };

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Parses UTF-8 bytes (or a string) as strict JSON; throws {@linkcode StrictJsonError}.
 *
 * @example
 * ```ts
 * import { parseStrictJson, StrictJsonError } from "./strict_json.ts";
 * const v = parseStrictJson('{"a":[1,true,null]}');
 * if (JSON.stringify(v) !== '{"a":[1,true,null]}') throw new Error("unexpected");
 * try {
 *   parseStrictJson('{"a":1,"a":2}');
 *   throw new Error("should have failed");
 * } catch (e) {
 *   if (!(e instanceof StrictJsonError) || e.code !== "json_duplicate_key") throw e;
 * }
 * ```
 */
export function parseStrictJson(
  input: Uint8Array | string,
  options: StrictJsonOptions = {},
): StrictJsonValue {
  let text: string;
  if (typeof input === "string") {
    text = input;
  } else {
    try {
      text = decoder.decode(input);
    } catch {
      throw new StrictJsonError("json_invalid_utf8", 0, "Cannot parse JSON: invalid UTF-8");
    }
  }
  if (text.charCodeAt(0) === 0xfeff) {
    throw new StrictJsonError("json_bom", 0, "Cannot parse JSON: byte order mark");
  }
  const parser = new Parser(text, options.maxDepth ?? 64);
  parser.skipSpace();
  const value = parser.value(0);
  parser.skipSpace();
  if (parser.pos !== text.length) parser.fail("json_syntax", "trailing characters");
  return value;
}

/**
 * Like {@linkcode parseStrictJson} but returns a result instead of throwing.
 *
 * @example
 * ```ts
 * import { tryParseStrictJson } from "./strict_json.ts";
 * const r = tryParseStrictJson('{"__proto__":{}}');
 * if (r.ok || r.error.code !== "json_forbidden_key") throw new Error("unexpected");
 * ```
 */
export function tryParseStrictJson(
  input: Uint8Array | string,
  options: StrictJsonOptions = {},
): { ok: true; value: StrictJsonValue } | { ok: false; error: StrictJsonError } {
  try {
    return { ok: true, value: parseStrictJson(input, options) };
  } catch (error) {
    if (error instanceof StrictJsonError) return { ok: false, error };
    // RangeError from a runaway engine limit is still a syntax failure of untrusted input.
    return {
      ok: false,
      error: new StrictJsonError("json_syntax", 0, `Cannot parse JSON: ${String(error)}`),
    };
  }
}

// deno-lint-ignore no-control-regex
const PLAIN_RUN = /[^"\\\u0000-\u001f]*/y;
const NUMBER_RE = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

class Parser {
  pos = 0;
  constructor(readonly text: string, readonly maxDepth: number) {}

  fail(code: StrictJsonCode, detail: string): never {
    throw new StrictJsonError(code, this.pos, `Cannot parse JSON: ${detail} at offset ${this.pos}`);
  }

  skipSpace(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.pos++;
      else break;
    }
  }

  value(depth: number): StrictJsonValue {
    const c = this.text[this.pos];
    switch (c) {
      case "{":
        return this.object(depth + 1);
      case "[":
        return this.array(depth + 1);
      case '"':
        return this.string();
      case "t":
        return this.literal("true", true);
      case "f":
        return this.literal("false", false);
      case "n":
        return this.literal("null", null);
      default:
        if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return this.number();
        return this.fail(
          "json_syntax",
          c === undefined ? "unexpected end" : "unexpected character",
        );
    }
  }

  literal<T extends StrictJsonValue>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.pos)) this.fail("json_syntax", "invalid literal");
    this.pos += word.length;
    return value;
  }

  number(): number {
    NUMBER_RE.lastIndex = this.pos;
    const m = NUMBER_RE.exec(this.text);
    if (m === null) return this.fail("json_syntax", "invalid number");
    const raw = m[0];
    const n = Number(raw);
    const isInteger = !/[.eE]/.test(raw);
    if (!Number.isFinite(n) || (isInteger && !Number.isSafeInteger(n))) {
      this.fail("json_unsafe_number", "number outside the exactly representable range");
    }
    this.pos += raw.length;
    return n;
  }

  string(): string {
    const t = this.text;
    this.pos++; // opening quote
    let out = "";
    let start = this.pos;
    while (true) {
      if (this.pos >= t.length) this.fail("json_syntax", "unterminated string");
      const c = t.charCodeAt(this.pos);
      if (c === 0x22) {
        out += t.slice(start, this.pos);
        this.pos++;
        break;
      }
      if (c < 0x20) this.fail("json_syntax", "control character in string");
      if (c !== 0x5c) {
        // Skip a run of ordinary characters at once (linear: a sticky, anchored class).
        PLAIN_RUN.lastIndex = this.pos + 1;
        PLAIN_RUN.test(t);
        this.pos = PLAIN_RUN.lastIndex;
        continue;
      }
      out += t.slice(start, this.pos);
      out += this.escape();
      start = this.pos;
    }
    if (!out.isWellFormed()) this.fail("json_syntax", "lone surrogate in string");
    return out;
  }

  escape(): string {
    const t = this.text;
    const e = t[this.pos + 1];
    this.pos += 2;
    switch (e) {
      case '"':
        return '"';
      case "\\":
        return "\\";
      case "/":
        return "/";
      case "b":
        return "\b";
      case "f":
        return "\f";
      case "n":
        return "\n";
      case "r":
        return "\r";
      case "t":
        return "\t";
      case "u": {
        const hex = t.slice(this.pos, this.pos + 4);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail("json_syntax", "invalid unicode escape");
        this.pos += 4;
        return String.fromCharCode(parseInt(hex, 16));
      }
      default:
        this.pos -= 2;
        return this.fail("json_syntax", "invalid escape");
    }
  }

  array(depth: number): StrictJsonValue[] {
    const out: StrictJsonValue[] = [];
    if (this.opensEmpty(depth, "]")) return out;
    do {
      this.skipSpace();
      out.push(this.value(depth));
    } while (this.another("]"));
    return out;
  }

  object(depth: number): { [key: string]: StrictJsonValue } {
    const out: { [key: string]: StrictJsonValue } = {};
    const seen = new Set<string>();
    if (this.opensEmpty(depth, "}")) return out;
    do {
      this.skipSpace();
      if (this.text[this.pos] !== '"') this.fail("json_syntax", "expected a string key");
      const keyAt = this.pos;
      const key = this.string();
      if (FORBIDDEN_JSON_KEYS.includes(key)) {
        this.pos = keyAt;
        this.fail("json_forbidden_key", `forbidden key ${JSON.stringify(key)}`);
      }
      if (seen.has(key)) {
        this.pos = keyAt;
        this.fail("json_duplicate_key", `duplicate key ${JSON.stringify(key)}`);
      }
      seen.add(key);
      this.skipSpace();
      if (this.text[this.pos] !== ":") this.fail("json_syntax", "expected ':'");
      this.pos++;
      this.skipSpace();
      out[key] = this.value(depth);
    } while (this.another("}"));
    return out;
  }

  /** Steps over an array's or object's opening bracket: true when `close` follows at once. */
  opensEmpty(depth: number, close: "]" | "}"): boolean {
    if (depth > this.maxDepth) this.fail("json_too_deep", "nesting too deep");
    this.pos++;
    this.skipSpace();
    if (this.text[this.pos] !== close) return false;
    this.pos++;
    return true;
  }

  /** After a member: true past a `,`, false past `close`; anything else fails. */
  another(close: "]" | "}"): boolean {
    this.skipSpace();
    const c = this.text[this.pos];
    if (c !== "," && c !== close) this.fail("json_syntax", `expected ',' or '${close}'`);
    this.pos++;
    return c === ",";
  }
}
