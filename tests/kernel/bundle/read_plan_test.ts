import assert from "node:assert/strict";
import fc from "fast-check";
import { sameJsonValue } from "../../../kernel/bundle/json_equal.ts";
import { planBundleReads } from "../../../kernel/bundle/read_plan.ts";
import { BUNDLE_REASONS, recommendationFor } from "../../../kernel/bundle/reasons.ts";
import { latin1OfBytes, latin1OfUtf8 } from "../../../kernel/text/utf8.ts";
import { manifest, planV01, planV02 } from "./_facts.ts";

Deno.test("planBundleReads() applies verifier-owned caps by role", () => {
  const { reads, problems } = planBundleReads(planV02(), manifest());
  assert.deepEqual(problems, []);
  assert.deepEqual(
    reads.map((r) => [r.role, r.id, r.path, r.maxBytes, r.keepBytes]),
    [
      ["candidate", "patch", "changes.patch", 10_000, true],
      ["log", "log-0-stdout", "out/stdout.txt", 100, false],
    ],
  );
  const v01 = planBundleReads(planV01(), manifest("json"));
  assert.deepEqual(v01.reads.map((r) => r.maxBytes), [1000, 1000]);
});

Deno.test("planBundleReads() never plans a read of an unconfined or undeclared locator", () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 12 }), (locator) => {
      const m = manifest();
      m.logs[0]!.locator = locator;
      const { reads } = planBundleReads(planV02(), m);
      for (const r of reads) {
        assert.ok(!r.path.startsWith("/") && !r.path.split("/").includes(".."), r.path);
        assert.notEqual(r.path, "result-manifest.json");
      }
    }),
    { numRuns: 300 },
  );
  const m = manifest();
  m.logs[0]!.locator = "result-manifest.json";
  assert.deepEqual(planBundleReads(planV02(), m).problems.map((p) => p.code), [
    "duplicate_declaration",
  ]);
});

Deno.test("recommendationFor() takes the worst outcome", () => {
  assert.equal(recommendationFor([]), "accept_candidate");
  assert.equal(recommendationFor(["digest_mismatch"]), "reject_candidate");
  assert.equal(recommendationFor(["digest_mismatch", "plan_binding_mismatch"]), "escalate");
  assert.equal(
    recommendationFor(["verifier_not_independent", "plan_invalid"]),
    "insufficient_evidence",
  );
  for (const info of Object.values(BUNDLE_REASONS)) assert.ok(info.meaning.length > 0);
});

Deno.test("sameJsonValue() ignores key order but not array order or types", () => {
  const json = fc.jsonValue({ maxDepth: 3 });
  fc.assert(
    fc.property(json, (v) => {
      assert.ok(sameJsonValue(v, structuredClone(v)));
      assert.ok(
        sameJsonValue(v, JSON.parse(JSON.stringify(v))) || JSON.stringify(v).includes("-0"),
      );
    }),
    { numRuns: 200 },
  );
  assert.ok(sameJsonValue({ a: 1, b: { c: [1] } }, { b: { c: [1] }, a: 1 }));
  assert.ok(!sameJsonValue({ a: 1 }, { a: 1, b: undefined }));
  assert.ok(!sameJsonValue([1], { 0: 1 }));
  assert.ok(!sameJsonValue("1", 1));
  assert.ok(!sameJsonValue(null, {}));
  assert.ok(!sameJsonValue(NaN, NaN));
});

Deno.test("latin1OfUtf8() matches TextEncoder byte for byte", () => {
  fc.assert(
    fc.property(fc.string({ unit: "grapheme" }), fc.string({ unit: "binary" }), (a, b) => {
      for (const s of [a, b]) {
        assert.equal(latin1OfUtf8(s), latin1OfBytes(new TextEncoder().encode(s)));
      }
    }),
    { numRuns: 300 },
  );
  assert.equal(latin1OfBytes(new Uint8Array(20_000).fill(65)).length, 20_000);
});
