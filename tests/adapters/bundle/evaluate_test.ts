import assert from "node:assert/strict";
import { evaluateBundleInProcess } from "../../../adapters/bundle/evaluate.ts";
import { BUNDLE_FIXTURES, materializeFixture } from "../../redteam/bundles/fixtures.ts";

const good = BUNDLE_FIXTURES.find((f) => f.name === "good")!;

async function withGood(
  fn: (paths: { bundleDir: string; workUnitPath: string; planPath: string }) => Promise<void>,
): Promise<void> {
  const base = await Deno.makeTempDir({ prefix: "vouch-evaluate-" });
  try {
    await fn(await materializeFixture(good, base));
  } finally {
    await Deno.remove(base, { recursive: true });
  }
}

const codes = async (p: { bundleDir: string; workUnitPath: string; planPath: string }) =>
  (await evaluateBundleInProcess(p)).decision_support.reason_codes;

Deno.test("evaluateBundleInProcess() refuses verifier documents inside the candidate root", async () => {
  await withGood(async (p) => {
    const inside = `${p.bundleDir}/plan.json`;
    await Deno.copyFile(p.planPath, inside);
    assert.deepEqual(await codes({ ...p, planPath: inside }), ["plan_invalid"]);
    const wuInside = `${p.bundleDir}/wu.json`;
    await Deno.copyFile(p.workUnitPath, wuInside);
    assert.deepEqual(await codes({ ...p, workUnitPath: wuInside }), ["work_unit_invalid"]);
  });
});

Deno.test("evaluateBundleInProcess() reads verifier documents strictly too", async () => {
  await withGood(async (p) => {
    const text = await Deno.readTextFile(p.workUnitPath);
    await Deno.writeTextFile(
      p.workUnitPath,
      text.replace('"id": "wu-readme-smoke"', '"id": "a", "id": "wu-readme-smoke"'),
    );
    assert.deepEqual(await codes(p), ["work_unit_invalid"]);
  });
  await withGood(async (p) => {
    const plan = JSON.parse(await Deno.readTextFile(p.planPath));
    plan.backend.max_log_bytes = 0;
    await Deno.writeTextFile(p.planPath, JSON.stringify(plan));
    const result = await evaluateBundleInProcess(p);
    assert.deepEqual(result.decision_support.reason_codes, ["plan_invalid"]);
    assert.match(result.findings[0]!.summary, /backend\.max_log_bytes/);
  });
});

Deno.test("evaluateBundleInProcess() fails closed when the bundle is not a directory", async () => {
  await withGood(async (p) => {
    assert.deepEqual(await codes({ ...p, bundleDir: p.planPath }), ["evaluator_error"]);
    assert.deepEqual(await codes({ ...p, bundleDir: `${p.bundleDir}-nope` }), ["evaluator_error"]);
  });
});

Deno.test("evaluateBundleInProcess() binds to the digest of the WorkUnit bytes' canonical form", async () => {
  await withGood(async (p) => {
    // Re-serialising the WorkUnit (key order, whitespace) keeps the RFC 8785 digest.
    const wu = JSON.parse(await Deno.readTextFile(p.workUnitPath));
    const reordered = Object.fromEntries(Object.entries(wu).reverse());
    await Deno.writeTextFile(p.workUnitPath, JSON.stringify(reordered));
    assert.deepEqual(await codes(p), []);
    // Any semantic change to the WorkUnit is drift.
    reordered.objective = "something else";
    await Deno.writeTextFile(p.workUnitPath, JSON.stringify(reordered));
    assert.deepEqual((await codes(p)).sort(), ["binding_drift", "plan_binding_mismatch"]);
  });
});
