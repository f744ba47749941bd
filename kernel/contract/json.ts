/**
 * JSON helpers for contract judgement: RFC 6901 pointers, value equality,
 * strict number parsing and the `$json:<pointer>=<json>` expectation form.
 *
 * @module
 */
import type { ContractJsonValue, Expectation } from "./types.ts";

/** Result of resolving a JSON pointer. */
export type PointerResult = { readonly found: true; readonly value: ContractJsonValue } | {
  readonly found: false;
};

/**
 * Splits an RFC 6901 pointer into unescaped reference tokens, or returns
 * `null` when it is not a valid pointer (must be `""` or start with `/`;
 * `~` only as `~0` or `~1`).
 *
 * @example
 * ```ts
 * import { parsePointer } from "./json.ts";
 * const t = parsePointer("/a~1b/c~0d");
 * if (t?.[0] !== "a/b" || t[1] !== "c~d") throw new Error();
 * ```
 */
export function parsePointer(pointer: string): string[] | null {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) return null;
  const tokens = pointer.slice(1).split("/");
  const out: string[] = [];
  for (const token of tokens) {
    if (/~(?![01])/.test(token)) return null;
    out.push(token.replace(/~1/g, "/").replace(/~0/g, "~"));
  }
  return out;
}

/**
 * Resolves an RFC 6901 pointer in a JSON value.
 *
 * @example
 * ```ts
 * import { resolvePointer } from "./json.ts";
 * const r = resolvePointer({ a: [1, { b: 2 }] }, "/a/1/b");
 * if (!r.found || r.value !== 2) throw new Error();
 * ```
 */
export function resolvePointer(root: ContractJsonValue, pointer: string): PointerResult {
  const tokens = parsePointer(pointer);
  if (tokens === null) return { found: false };
  let current: ContractJsonValue = root;
  for (const token of tokens) {
    if (Array.isArray(current)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return { found: false };
      const index = Number(token);
      if (index >= current.length) return { found: false };
      current = current[index]!;
    } else if (current !== null && typeof current === "object") {
      const record = current as { readonly [key: string]: ContractJsonValue };
      if (!Object.prototype.hasOwnProperty.call(record, token)) return { found: false };
      current = record[token]!;
    } else {
      return { found: false };
    }
  }
  return { found: true, value: current };
}

/**
 * Structural JSON equality (object key order ignored).
 *
 * @example
 * ```ts
 * import { jsonEqual } from "./json.ts";
 * if (!jsonEqual({ a: [1, 2], b: null }, { b: null, a: [1, 2] })) throw new Error();
 * if (jsonEqual([1], [1, 2])) throw new Error();
 * ```
 */
export function jsonEqual(a: ContractJsonValue, b: ContractJsonValue): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i]!, b[i]!)) return false;
    return true;
  }
  const ra = a as { readonly [key: string]: ContractJsonValue };
  const rb = b as { readonly [key: string]: ContractJsonValue };
  const ka = Object.keys(ra);
  if (ka.length !== Object.keys(rb).length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(rb, k) || !jsonEqual(ra[k]!, rb[k]!)) return false;
  }
  return true;
}

/** Parses JSON text, returning `undefined` instead of throwing. */
export function tryParseJson(text: string): ContractJsonValue | undefined {
  try {
    return JSON.parse(text) as ContractJsonValue;
  } catch {
    return undefined;
  }
}

const STRICT_NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

/**
 * Parses a number strictly: the trimmed text must be exactly one JSON-style
 * decimal number (no `0x`, no trailing garbage, no `Infinity`); else `null`.
 *
 * @example
 * ```ts
 * import { parseStrictNumber } from "./json.ts";
 * if (parseStrictNumber(" 42\n") !== 42) throw new Error();
 * if (parseStrictNumber("42 files") !== null || parseStrictNumber("0x1") !== null) throw new Error();
 * ```
 */
export function parseStrictNumber(text: string): number | null {
  const trimmed = text.trim();
  if (!STRICT_NUMBER.test(trimmed)) return null;
  const n = Number(trimmed);
  return Number.isFinite(n) ? n : null;
}

/**
 * Reads an `outputContains` string: the reserved `$json:<pointer>=<json>`
 * form becomes a JSON-equality expectation (the first `=` after which the rest
 * is valid JSON and before which a valid pointer stands); anything else is a
 * substring expectation. Returns `null` for a malformed `$json:` form.
 *
 * @example
 * ```ts
 * import { parseOutputExpectation } from "./json.ts";
 * const e = parseOutputExpectation('$json:/status="ok"');
 * if (e?.kind !== "json-equals" || e.pointer !== "/status" || e.value !== "ok") throw new Error();
 * if (parseOutputExpectation("3 passed")?.kind !== "output-contains") throw new Error();
 * ```
 */
export function parseOutputExpectation(text: string): Expectation | null {
  if (!text.startsWith("$json:")) return { kind: "output-contains", text };
  const body = text.slice("$json:".length);
  for (let i = body.indexOf("="); i !== -1; i = body.indexOf("=", i + 1)) {
    const pointer = body.slice(0, i);
    if (parsePointer(pointer) === null) continue;
    const value = tryParseJson(body.slice(i + 1));
    if (value !== undefined) return { kind: "json-equals", pointer, value };
  }
  return null;
}
