import assert from "node:assert/strict";
import { evaluateBundleInProcess } from "../../../adapters/bundle/evaluate.ts";
import { VerificationResultSchema } from "../../../adapters/bundle/schemas.ts";
import { BUNDLE_FIXTURES, materializeFixture } from "./fixtures.ts";

Deno.test("bundle red-team fixtures: at least 12, unique names, both outcomes covered", () => {
  assert.ok(BUNDLE_FIXTURES.length >= 12, `only ${BUNDLE_FIXTURES.length} fixtures`);
  assert.equal(new Set(BUNDLE_FIXTURES.map((f) => f.name)).size, BUNDLE_FIXTURES.length);
  const recs = new Set(BUNDLE_FIXTURES.map((f) => f.recommendation));
  for (const r of ["accept_candidate", "reject_candidate", "escalate"]) {
    assert.ok(recs.has(r as never));
  }
});

for (const fixture of BUNDLE_FIXTURES) {
  Deno.test(`bundle red-team: ${fixture.name} -> ${fixture.recommendation} [${fixture.reasons.join(", ")}]`, async () => {
    const base = await Deno.makeTempDir({ prefix: `vouch-redteam-${fixture.name}-` });
    try {
      const paths = await materializeFixture(fixture, base);
      const result = await evaluateBundleInProcess(paths);
      // The result is always a schema-valid VerificationResult.
      assert.ok(VerificationResultSchema.safeParse(result).success);
      const d = result.decision_support;
      assert.equal(d.recommendation, fixture.recommendation, d.rationale);
      assert.deepEqual([...d.reason_codes].sort(), [...fixture.reasons].sort(), d.rationale);
      // Exactly the WorkUnit-required validator ids are emitted as checks.
      const required = fixture.name === "validator-set-mismatch"
        ? ["result-manifest-schema", "independent-review", "unit-tests"]
        : ["result-manifest-schema", "independent-review"];
      assert.deepEqual(result.checks.map((c) => c.id), required);
      if (fixture.recommendation === "accept_candidate") {
        assert.equal(result.status, "passed");
        assert.ok(result.checks.every((c) => c.status === "passed"));
        assert.equal(result.evidence.length, 3);
      } else {
        assert.notEqual(result.status, "passed");
        assert.ok(result.checks.some((c) => c.status !== "passed"));
      }
    } finally {
      await Deno.remove(base, { recursive: true });
    }
  });
}
