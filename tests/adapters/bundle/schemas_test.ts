import assert from "node:assert/strict";
import {
  BUNDLE_SCHEMAS,
  EvaluatorPlanSchema,
  ResultManifestSchema,
  Sha256DigestSchema,
  WorkUnitSchema,
} from "../../../adapters/bundle/schemas.ts";
import { exportedSchemas } from "../../../tools/export_schemas.ts";
import { fixturePlanV01, fixturePlanV02, fixtureWorkUnit } from "../../redteam/bundles/fixtures.ts";

Deno.test("bundle schemas are draft 2020-12 and refuse unknown keys", () => {
  const bundleFiles = Object.keys(BUNDLE_SCHEMAS).map((name) => `${name}.schema.json`);
  const exported = exportedSchemas().filter((e) => bundleFiles.includes(e.file));
  assert.equal(exported.length, bundleFiles.length);
  for (const { file, schema } of exported) {
    assert.equal(schema.$schema, "https://json-schema.org/draft/2020-12/schema");
    assert.equal(schema.additionalProperties, false, `${file} must refuse unknown keys`);
  }
});

Deno.test("Sha256DigestSchema accepts only sha256: plus 64 lower-case hex digits", () => {
  assert.ok(Sha256DigestSchema.safeParse("sha256:" + "a".repeat(64)).success);
  for (
    const bad of [
      "sha256:" + "A".repeat(64),
      "sha256:" + "a".repeat(63),
      "sha256:" + "a".repeat(65),
      "sha512:" + "a".repeat(64),
      "a".repeat(64),
      "sha256:" + "g".repeat(64),
    ]
  ) {
    assert.equal(Sha256DigestSchema.safeParse(bad).success, false, bad);
  }
});

Deno.test("schemas accept the fixture documents and refuse unknown keys", () => {
  const wu = fixtureWorkUnit();
  assert.ok(WorkUnitSchema.safeParse(wu).success);
  assert.ok(EvaluatorPlanSchema.safeParse(fixturePlanV01(wu)).success);
  assert.ok(EvaluatorPlanSchema.safeParse(fixturePlanV02(wu)).success);
  assert.equal(WorkUnitSchema.safeParse({ ...wu, extra: 1 }).success, false);
  const v02 = fixturePlanV02(wu);
  // A v0.2 plan cannot smuggle v0.1 fields, and the policy flags are pinned to true.
  assert.equal(EvaluatorPlanSchema.safeParse({ ...v02, required_json: {} }).success, false);
  assert.equal(
    EvaluatorPlanSchema.safeParse({
      ...v02,
      policy: { ...v02.policy, require_verifier_distinct_from_worker: false },
    }).success,
    false,
  );
  assert.equal(
    EvaluatorPlanSchema.safeParse({
      ...v02,
      verifier: { ...v02.verifier, adapter: "deterministic-json-verifier" },
    }).success,
    false,
  );
  assert.equal(ResultManifestSchema.safeParse({}).success, false);
});
