/**
 * The one shape of every `--json` document vouch prints: `schemaVersion`
 * first, then the result, keys in camelCase. Each has a JSON Schema under
 * `schemas/` (e.g. `verify-output.schema.json`); `schemaVersion` is bumped only
 * on a breaking change of that document.
 *
 * @module
 */

/** The current version of every `--json` document. */
export const JSON_SCHEMA_VERSION = 1 as const;

/**
 * Prefixes a result with `schemaVersion`.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { jsonDocument } from "./json_document.ts";
 * deepEqual(Object.keys(jsonDocument({ verdict: "verified" })), ["schemaVersion", "verdict"]);
 * ```
 */
export function jsonDocument<T extends object>(
  result: T,
): { readonly schemaVersion: typeof JSON_SCHEMA_VERSION } & T {
  return { schemaVersion: JSON_SCHEMA_VERSION, ...result };
}
