/**
 * Writes the JSON Schema (draft 2020-12) of every document vouch reads from
 * outside to `schemas/<name>.schema.json`, generated from the zod schemas that
 * guard those boundaries (bundle documents in `adapters/bundle/schemas.ts`, the
 * contract file in `adapters/contract/schema.ts`). `--check` exits 1 when a
 * committed file is missing or stale instead of writing.
 *
 *   deno task schemas [--check]
 *
 * @module
 */
import { BUNDLE_SCHEMAS, bundleJsonSchema } from "../adapters/bundle/schemas.ts";
import { contractJsonSchema } from "../adapters/contract/schema.ts";

/** The schemas directory at the repository root. */
export const SCHEMAS_DIR: URL = new URL("../schemas/", import.meta.url);

/**
 * Schemas written by hand, not generated: the external specifications' field
 * rules (in-toto Statement v1, SLSA VSA v1, in-toto test-result v0.1, DSSE),
 * transcribed from the specs so that tests check vouch's output against the
 * spec rather than against vouch's own zod, and vouch's own predicate. The
 * tool never writes them; the freshness test only requires that they exist.
 */
export const HAND_WRITTEN_SCHEMAS: readonly string[] = [
  "dsse-envelope.schema.json",
  "in-toto-statement-v1.schema.json",
  "in-toto-test-result-v0.1.schema.json",
  "slsa-verification-summary-v1.schema.json",
  "vouch-verification-summary-v1.schema.json",
];

/**
 * The file name and content of every generated schema.
 *
 * @example
 * ```ts
 * import { exportedSchemas } from "./export_schemas.ts";
 * if (!exportedSchemas().some((s) => s.file === "work-unit-v0.1.schema.json")) throw new Error();
 * ```
 */
export function exportedSchemas(): { file: string; schema: Record<string, unknown> }[] {
  const bundle = Object.keys(BUNDLE_SCHEMAS).map((name) => ({
    file: `${name}.schema.json`,
    schema: bundleJsonSchema(name as keyof typeof BUNDLE_SCHEMAS),
  }));
  return [...bundle, { file: "contract.schema.json", schema: contractJsonSchema() }];
}

if (import.meta.main) {
  const check = Deno.args.includes("--check");
  let stale = 0;
  for (const { file, schema } of exportedSchemas()) {
    const url = new URL(file, SCHEMAS_DIR);
    const text = JSON.stringify(schema, null, 2) + "\n";
    if (check) {
      let current: unknown = null;
      try {
        current = JSON.parse(await Deno.readTextFile(url));
      } catch {
        current = null;
      }
      if (JSON.stringify(current) !== JSON.stringify(schema)) {
        console.error(`stale: schemas/${file}`);
        stale++;
      }
    } else {
      await Deno.writeTextFile(url, text);
      console.log(`wrote schemas/${file}`);
    }
  }
  if (stale > 0) {
    console.error("Run: deno run --allow-read --allow-write tools/export_schemas.ts");
    Deno.exit(1);
  }
}
