import { VouchError } from "../../kernel/errors/mod.ts";
import canonicalize from "canonicalize";
import { sha256Hex } from "../digest/sha256.ts";

/** Error raised when a value has no RFC 8785 canonical form. */
export class CanonicalJsonError extends VouchError<"not_canonicalizable"> {
  constructor(message: string, options?: ErrorOptions) {
    super("not_canonicalizable", message, options);
  }
}

/**
 * Serialises a JSON value as RFC 8785 (JCS) canonical JSON, using the RFC's
 * reference implementation (the `canonicalize` package).
 *
 * @example
 * ```ts
 * import { canonicalJson } from "./canonical_json.ts";
 * if (canonicalJson({ b: 1, a: [true, null] }) !== '{"a":[true,null],"b":1}') throw new Error();
 * ```
 */
export function canonicalJson(value: unknown): string {
  let out: string | undefined;
  try {
    out = canonicalize(value);
  } catch (cause) {
    throw new CanonicalJsonError("Cannot canonicalize value: it is not JSON", { cause });
  }
  if (out === undefined) throw new CanonicalJsonError("Cannot canonicalize value: undefined");
  return out;
}

/**
 * `sha256:<hex>` over the canonical JSON bytes of a value.
 *
 * @example
 * ```ts
 * import { canonicalDigest } from "./canonical_json.ts";
 * if (canonicalDigest({ a: 1, b: 2 }) !== canonicalDigest({ b: 2, a: 1 })) throw new Error();
 * ```
 */
export function canonicalDigest(value: unknown): string {
  const json = canonicalJson(value);
  return sha256Hex(json);
}
