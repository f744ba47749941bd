/**
 * The cross-field rules of the contract file that zod checks in a
 * `superRefine` and `z.toJSONSchema` cannot export, added to the generated
 * contract schema so that it is as strict as vouch's own validation.
 *
 * @module
 */
type Json = Record<string, unknown>;

const NO_NUL = "^[^\\u0000]*$";

/** The contract rules as JSON Schema keywords (ajv-keywords' `uniqueItemProperties` for names). */
export function strictContractSchema(generated: Json): Json {
  const schema = structuredClone(generated) as Json & { properties: Record<string, Json> };
  const checks = schema.properties["checks"] as Json & { items: Json & { properties: Json } };
  const item = checks.items;
  const props = item.properties as Record<string, Json>;
  // Strings that must not contain NUL (zod refines them; the export drops refinements).
  const noNul = (s: Json) => ({ ...s, pattern: NO_NUL });
  const run = props["run"] as { anyOf: Json[] };
  run.anyOf = [
    noNul(run.anyOf[0]!),
    {
      ...run.anyOf[1]!,
      items: noNul((run.anyOf[1]! as { items: Json }).items),
      prefixItems: [{ type: "string", minLength: 1 }],
    },
  ];
  for (const list of ["failToPass", "passToPass"]) {
    const l = props[list] as Json & { items: Json };
    props[list] = { ...l, items: noNul(l.items), uniqueItems: true };
  }
  checks["uniqueItemProperties"] = ["name"];
  checks["contains"] = {
    description: "at least one check gates (is not a baseline capture)",
    not: { required: ["baseline"], properties: { baseline: { const: true } } },
  };
  const capture = { required: ["baseline"], properties: { baseline: { const: true } } };
  item["allOf"] = [
    {
      description: "a baseline check is capture-only: no differential, expect, tests or lists",
      if: capture,
      then: {
        not: {
          anyOf: ["differential", "expect", "tests", "failToPass", "passToPass"].map((k) => ({
            required: [k],
          })),
        },
      },
    },
    { description: "test lists need `tests`", dependentRequired: { failToPass: ["tests"] } },
    { dependentRequired: { passToPass: ["tests"] } },
    {
      description: "a gating check asserts something: exitZero false needs outputContains, " +
        "a differential or a test list",
      if: {
        not: capture,
        required: ["expect"],
        properties: {
          expect: {
            required: ["exitZero"],
            properties: { exitZero: { const: false } },
            not: { required: ["outputContains"] },
          },
        },
      },
      then: {
        anyOf: [{ required: ["differential"] }, { required: ["failToPass"] }, {
          required: ["passToPass"],
        }],
      },
    },
  ];
  const expect = props["expect"] as { properties: Record<string, Json> };
  const jsonPattern = {
    if: { pattern: "^\\$json:" },
    then: { pattern: "^\\$json:(?:/[^=]*)?=.+$" },
  };
  const oc = expect.properties["outputContains"] as { anyOf: Json[] };
  oc.anyOf = [
    { ...oc.anyOf[0]!, ...jsonPattern },
    { ...oc.anyOf[1]!, items: { ...(oc.anyOf[1]! as { items: Json }).items, ...jsonPattern } },
  ];
  const differential = props["differential"] as { properties: Record<string, Json> };
  const dExpect = differential.properties["expect"] as { anyOf: Json[] };
  dExpect.anyOf = dExpect.anyOf.map((branch) => {
    const p = (branch as { properties?: Record<string, Json> }).properties;
    if (p?.["deltaWithin"] === undefined) return branch;
    return {
      ...branch,
      properties: {
        ...p,
        deltaWithin: { ...p["deltaWithin"], not: { const: [null, null] } },
      },
    };
  });
  schema["description"] =
    "A vouch outcome contract (vouch.contract.json). Generated from the zod schema in " +
    "adapters/contract/schema.ts plus its cross-field rules. Duplicate check names are " +
    "refused with the `uniqueItemProperties` keyword of ajv-keywords (JSON Schema itself " +
    "cannot say 'unique by property'; validators without it ignore the keyword). Two rules " +
    "remain only in vouch's validation: a differential's `against` must name a baseline " +
    "check, and deltaWithin's min must not exceed its max; the `$json:` value must be JSON.";
  return schema;
}
