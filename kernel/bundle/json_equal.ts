/**
 * Structural equality of JSON values, as RFC 8785 canonical forms would
 * compare: object key order is irrelevant, array order matters, numbers
 * compare by value.
 *
 * @module
 */

/**
 * Whether two JSON values are equal. Values that are not JSON (functions,
 * `undefined`, non-finite numbers) are never equal to anything.
 *
 * @example
 * ```ts
 * import { sameJsonValue } from "./json_equal.ts";
 * if (!sameJsonValue({ a: [1, "x"], b: null }, { b: null, a: [1, "x"] })) throw new Error("unexpected");
 * if (sameJsonValue([1, 2], [2, 1])) throw new Error("unexpected");
 * ```
 */
export function sameJsonValue(a: unknown, b: unknown): boolean {
  if (a === null || b === null) return a === b;
  if (typeof a === "number") return typeof b === "number" && Number.isFinite(a) && a === b;
  if (typeof a === "string" || typeof a === "boolean") return a === b;
  if (typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJsonValue(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const ka = Object.keys(ra);
  if (ka.length !== Object.keys(rb).length) return false;
  for (const k of ka) {
    if (!Object.hasOwn(rb, k) || !sameJsonValue(ra[k], rb[k])) return false;
  }
  return true;
}
