/**
 * An independent JSON Schema validator for the tests: ajv (draft 2020-12, from
 * npm) with every schema under `schemas/` loaded, formats checked
 * (ajv-formats: uri, date-time, ...) and ajv-keywords' `uniqueItemProperties`.
 */
import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import addKeywordsModule from "ajv-keywords";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL("../../schemas/", import.meta.url));
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const addKeywords = addKeywordsModule as unknown as (ajv: Ajv2020, keywords: string[]) => void;

/** The ajv instance with every schema of `schemas/` (by file name and `$id`). */
export function schemaValidator(): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  // the contract schema refuses duplicate check names with this ajv-keywords keyword
  addKeywords(ajv, ["uniqueItemProperties"]);
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".schema.json")).sort()) {
    ajv.addSchema(JSON.parse(readFileSync(dir + file, "utf8")));
  }
  return ajv;
}

const shared = schemaValidator();

/** The errors of validating `value` against `schemas/<file>`, or [] if it is valid. */
export function schemaErrors(file: string, value: unknown): string[] {
  const validate = shared.getSchema(`https://vouch.dev/schemas/${file}`);
  if (validate === undefined) throw new Error(`no schema schemas/${file}`);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e: ErrorObject) =>
    `${e.instancePath || "/"} ${e.message ?? ""} ${JSON.stringify(e.params)}`
  );
}

/** Asserts `value` is valid against `schemas/<file>`, naming every error. */
export function assertValid(file: string, value: unknown, what = file): void {
  const errors = schemaErrors(file, value);
  if (errors.length > 0) {
    throw new Error(`${what} does not validate against schemas/${file}:\n  ${errors.join("\n  ")}`);
  }
}
