/**
 * RFC 8785 canonical JSON and digests of JSON values. Owns serialisation only;
 * never parses untrusted bytes (boundaries do that with zod).
 *
 * @module
 */
export * from "./canonical_json.ts";
