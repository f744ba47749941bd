import { Buffer } from "node:buffer";

const STANDARD = /^[A-Za-z0-9+/]*={0,2}$/;
const URL_SAFE = /^[A-Za-z0-9_-]*={0,2}$/;

/**
 * Decodes base64 in either alphabet the DSSE spec requires verifiers to accept:
 * standard (RFC 4648 §4) or URL-safe (§5), padded or not. A string mixing both
 * alphabets, with a bad length or with non-zero trailing bits is not base64 and
 * gives `undefined`, never a lenient guess.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { decodeBase64Either } from "./_base64.ts";
 * equal(new TextDecoder().decode(decodeBase64Either("-_8")!), new TextDecoder().decode(decodeBase64Either("+/8=")!));
 * equal(decodeBase64Either("+_8"), undefined);
 * ```
 */
export function decodeBase64Either(text: string): Uint8Array | undefined {
  const urlSafe = !STANDARD.test(text);
  if (urlSafe && !URL_SAFE.test(text)) return undefined;
  const body = text.replace(/=+$/, "");
  if (body.length % 4 === 1) return undefined;
  if (text.length !== body.length && text.length % 4 !== 0) return undefined;
  const bytes = new Uint8Array(Buffer.from(body, urlSafe ? "base64url" : "base64"));
  // Re-encoding must give back the same characters: rejects non-zero pad bits.
  const again = Buffer.from(bytes).toString(urlSafe ? "base64url" : "base64").replace(/=+$/, "");
  return again === body ? bytes : undefined;
}
