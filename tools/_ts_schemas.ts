/**
 * JSON Schemas (draft 2020-12) generated from TypeScript types with
 * ts-json-schema-generator, for the documents vouch writes that have no zod
 * schema. Objects are closed (`additionalProperties: false`), so a field added
 * to a type and not to the committed schema fails the freshness test.
 *
 * @module
 */
import { createGenerator } from "ts-json-schema-generator";
import { fileURLToPath } from "node:url";

type Json = Record<string, unknown>;

/** Rewrites the generator's draft-07 output to draft 2020-12 (`$defs`, `prefixItems`). */
export function toDraft2020(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toDraft2020);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema as Json)) {
    if (key === "$schema") continue;
    if (key === "definitions") out["$defs"] = toDraft2020(value);
    else if (key === "$ref" && typeof value === "string") {
      out[key] = value.replace("#/definitions/", "#/$defs/");
    } else if (key === "items" && Array.isArray(value)) {
      out["prefixItems"] = toDraft2020(value);
      if (!("additionalItems" in (schema as Json))) out["items"] = false;
    } else if (key === "additionalItems") out["items"] = toDraft2020(value);
    else out[key] = toDraft2020(value);
  }
  return out;
}

/** Generates the `$defs` of every named type exported from `root`. */
export function typeSchemas(root: URL, types: readonly string[]): Record<string, Json> {
  const generator = createGenerator({
    path: fileURLToPath(root),
    tsconfig: fileURLToPath(new URL("./schema_tsconfig.json", import.meta.url)),
    skipTypeCheck: true,
    expose: "export",
    topRef: false,
    additionalProperties: false,
    sortProps: true,
    jsDoc: "basic",
  });
  const out: Record<string, Json> = {};
  for (const type of types) out[type] = toDraft2020(generator.createSchema(type)) as Json;
  return out;
}
