/**
 * Display-time masking of secret-looking values (tokens, keys, `Authorization`
 * headers, AWS keys, GitHub tokens, JWTs, PEM private keys, `*_TOKEN=` style
 * assignments). It only changes what a person sees; it must never be relied on
 * to make storing a secret acceptable.
 *
 * @example
 * ```ts
 * import { redactSecrets } from "./mod.ts";
 * if (redactSecrets("GITHUB_TOKEN=ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa").text.includes("ghp_")) {
 *   throw new Error("leak");
 * }
 * ```
 *
 * @module
 */
export * from "./redact.ts";
