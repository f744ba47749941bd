import assert from "node:assert/strict";
import fc from "fast-check";
import type { BundleFacts, FileFailureCode } from "../../../kernel/bundle/facts.ts";
import {
  judgeBundle,
  requiredValidatorIds,
  unjudgeableResult,
} from "../../../kernel/bundle/judge.ts";
import { BUNDLE_REASONS } from "../../../kernel/bundle/reasons.ts";
import { GOOD_PATCH, goodFacts, goodJsonFacts, manifest, MANIFEST_DIGEST } from "./_facts.ts";

const enc = new TextEncoder();
const codesOf = (f: BundleFacts) => judgeBundle(f).decision_support.reason_codes;

function withManifest(f: BundleFacts, edit: (m: ReturnType<typeof manifest>) => void): BundleFacts {
  if (!f.manifest.ok) throw new Error("fixture manifest must be ok");
  const m = structuredClone(f.manifest.value);
  edit(m);
  return { ...f, manifest: { ok: true, value: m, digest: MANIFEST_DIGEST } };
}

Deno.test("judgeBundle() accepts an honest, in-scope patch carrying the required line", () => {
  const result = judgeBundle(goodFacts());
  assert.equal(result.decision_support.recommendation, "accept_candidate");
  assert.deepEqual(result.decision_support.reason_codes, []);
  assert.equal(result.status, "passed");
  assert.deepEqual(result.checks.map((c) => [c.id, c.status]), [
    ["result-manifest-schema", "passed"],
    ["independent-review", "passed"],
  ]);
  assert.deepEqual(result.evidence.map((e) => e.id), ["patch", "log-0-stdout"]);
  assert.equal(result.independence.independent_from_worker, true);
  assert.equal(result.provenance.work_unit_digest, goodFacts().workUnitDigest);
});

Deno.test("judgeBundle() v0.1 compares the candidate JSON structurally", () => {
  assert.deepEqual(codesOf(goodJsonFacts()), []);
  assert.deepEqual(codesOf(goodJsonFacts({ a: [2, 1], b: "x" })), ["json_mismatch"]);
  assert.deepEqual(
    codesOf({ ...goodJsonFacts(), candidateJson: { ok: false, code: "json_syntax", detail: "x" } }),
    ["candidate_json_invalid"],
  );
  const { candidateJson: _, ...withoutJson } = goodJsonFacts();
  assert.deepEqual(codesOf(withoutJson), ["candidate_json_invalid"]);
});

Deno.test("judgeBundle() rejects a wrong line, a CRLF variant, forbidden and unwritable paths", () => {
  const wrong = enc.encode(
    new TextDecoder().decode(GOOD_PATCH).replace("marker: ok", "marker: no"),
  );
  const facts = (patch: Uint8Array) => goodFacts(patch);
  assert.deepEqual(codesOf(facts(wrong)), ["required_added_line_missing"]);
  const crlf = enc.encode(
    "--- a/README.md\n+++ b/README.md\n@@ -1 +1,2 @@\n # Project\n+vouch smoke marker: ok\r\n",
  );
  assert.deepEqual(codesOf(facts(crlf)), ["required_added_line_missing"]);
  const docs = enc.encode(
    "--- a/docs/x.md\n+++ b/docs/x.md\n@@ -1 +1,2 @@\n a\n+vouch smoke marker: ok\n",
  );
  const r = judgeBundle(facts(docs));
  assert.deepEqual(r.decision_support.reason_codes, ["scope_violation"]);
  assert.deepEqual(r.findings.map((f) => f.summary.split(":")[0]), ["not_writable"]);
  const sec = enc.encode(
    "--- a/SECURITY.md\n+++ b/SECURITY.md\n@@ -1 +1,2 @@\n a\n+vouch smoke marker: ok\n",
  );
  const rs = judgeBundle(facts(sec));
  assert.ok(rs.findings.some((f) => f.path === "SECURITY.md" && f.summary.startsWith("forbidden")));
  const symlink = enc.encode([
    "diff --git a/README.md b/README.md",
    "new file mode 120000",
    "--- /dev/null",
    "+++ b/README.md",
    "@@ -0,0 +1 @@",
    "+vouch smoke marker: ok",
    "",
  ].join("\n"));
  assert.deepEqual(codesOf(facts(symlink)), ["scope_violation"]);
});

Deno.test("judgeBundle() rejects a binary change without its data as patch_incomplete", () => {
  const patch = new TextDecoder().decode(GOOD_PATCH) + [
    "diff --git a/docs/logo.png b/docs/logo.png",
    "new file mode 100644",
    "index 0000000..1111111",
    "Binary files /dev/null and b/docs/logo.png differ",
    "",
  ].join("\n");
  const r = judgeBundle(goodFacts(enc.encode(patch)));
  // docs/ is allowed but not writable: the write is a scope violation; the missing data is not.
  assert.deepEqual([...r.decision_support.reason_codes].sort(), [
    "patch_incomplete",
    "scope_violation",
  ]);
  assert.equal(r.decision_support.recommendation, "reject_candidate");
  const incomplete = r.findings.filter((f) => f.summary.startsWith("binary_without_data"));
  assert.deepEqual(incomplete.map((f) => [f.path, f.category]), [["docs/logo.png", "correctness"]]);
});

Deno.test("judgeBundle() fails closed on binding drift before judging the candidate", () => {
  for (
    const edit of [
      (m: ReturnType<typeof manifest>) => m.work_unit_id = "other",
      (m: ReturnType<typeof manifest>) => m.work_unit_version = "2",
      (m: ReturnType<typeof manifest>) =>
        m.provenance.work_unit_digest = "sha256:" + "f".repeat(64),
    ]
  ) {
    // Even with the candidate missing, only the drift is reported: nothing else was judged.
    const f = withManifest({ ...goodFacts(), files: new Map() }, edit);
    const r = judgeBundle(f);
    assert.deepEqual(r.decision_support.reason_codes, ["binding_drift"]);
    assert.equal(r.checks.find((c) => c.id === "independent-review")?.status, "inconclusive");
    assert.equal(r.checks.find((c) => c.id === "result-manifest-schema")?.status, "failed");
  }
});

Deno.test("judgeBundle() reports every file failure code as that reason, never accepting", () => {
  const failures: FileFailureCode[] = [
    "file_missing",
    "file_symlink",
    "file_not_regular",
    "file_hardlinked",
    "file_oversize",
    "file_changed",
    "file_unreadable",
  ];
  for (const code of failures) {
    for (const path of ["changes.patch", "out/stdout.txt"]) {
      const f = goodFacts();
      const files = new Map(f.files);
      files.set(path, { ok: false, code, detail: "x" });
      assert.deepEqual(codesOf({ ...f, files }), [code], `${code} on ${path}`);
    }
  }
  // A size over the verifier cap is caught even if the adapter missed it.
  const f = goodFacts();
  const files = new Map(f.files);
  files.set("out/stdout.txt", { ok: true, digest: "sha256:" + "5".repeat(64), size: 101 });
  assert.deepEqual(codesOf({ ...f, files }), ["file_oversize"]);
  // A planned read the adapter did not observe fails closed.
  const missing = new Map(f.files);
  missing.delete("out/stdout.txt");
  assert.deepEqual(codesOf({ ...f, files: missing }), ["file_unreadable"]);
});

Deno.test("judgeBundle() ignores worker-declared changed paths and counters", () => {
  const base = judgeBundle(goodFacts());
  fc.assert(
    fc.property(
      fc.array(fc.string(), { maxLength: 5 }),
      fc.nat(),
      (paths, count) => {
        const lying = withManifest(goodFacts(), (m) => {
          m.changed_paths = paths;
          m.policy_violation_count = count;
        });
        assert.deepEqual(judgeBundle(lying), base);
      },
    ),
    { numRuns: 100 },
  );
  // ...and they cannot hide a forbidden path either.
  const sec = enc.encode(
    "--- a/SECURITY.md\n+++ b/SECURITY.md\n@@ -1 +1,2 @@\n a\n+vouch smoke marker: ok\n",
  );
  const hiding = withManifest(goodFacts(sec), (m) => {
    m.changed_paths = ["README.md"];
    m.policy_violation_count = 0;
  });
  assert.equal(judgeBundle(hiding).decision_support.recommendation, "reject_candidate");
});

Deno.test("judgeBundle() needs worker success, but success alone is never enough", () => {
  for (const status of ["failed", "error", "timeout", "cancelled"] as const) {
    const f = withManifest(goodFacts(), (m) => m.status = status);
    assert.deepEqual(codesOf(f), ["worker_status_not_succeeded"]);
  }
  const f = goodFacts();
  const files = new Map(f.files);
  files.set("changes.patch", { ok: true, digest: "sha256:" + "9".repeat(64), size: 3 });
  assert.equal(judgeBundle({ ...f, files }).decision_support.recommendation, "reject_candidate");
});

Deno.test("judgeBundle() emits exactly the WorkUnit-required validator ids", () => {
  const f = goodFacts();
  const wu = structuredClone(f.workUnit);
  wu.validators.push({ id: "optional-lint", type: "lint", required: false });
  assert.deepEqual(judgeBundle({ ...f, workUnit: wu }).checks.map((c) => c.id), [
    "result-manifest-schema",
    "independent-review",
  ]);
  wu.validators.push({ id: "unit-tests", type: "test", required: true });
  assert.deepEqual(requiredValidatorIds(wu), [
    "result-manifest-schema",
    "independent-review",
    "unit-tests",
  ]);
  const asked = withManifest(
    f,
    (m) => m.verification_request.expected_validator_ids.push("unit-tests"),
  );
  const r = judgeBundle({ ...asked, workUnit: wu });
  assert.deepEqual(r.checks.map((c) => [c.id, c.status]), [
    ["result-manifest-schema", "passed"],
    ["independent-review", "passed"],
    ["unit-tests", "inconclusive"],
  ]);
  assert.deepEqual(r.decision_support.reason_codes, ["validator_set_mismatch"]);
  assert.equal(r.decision_support.recommendation, "escalate");
  const plan = structuredClone(f.plan);
  plan.required_validator_ids = ["result-manifest-schema"];
  assert.deepEqual(codesOf({ ...f, plan }), ["validator_set_mismatch"]);
});

Deno.test("judgeBundle() flags undeclared entries, bad locators and duplicates", () => {
  const f = goodFacts();
  assert.deepEqual(
    codesOf({
      ...f,
      entries: { ok: true, paths: [...(f.entries.ok ? f.entries.paths : []), "x"] },
    }),
    ["undeclared_file"],
  );
  assert.deepEqual(codesOf({ ...f, entries: { ok: false, detail: "too many" } }), [
    "bundle_unreadable",
  ]);
  for (const locator of ["../x", "/etc/passwd", "a/./b", "a\\b", ".git/config", "C:x", ""]) {
    const bad = withManifest(f, (m) => m.logs[0]!.locator = locator);
    const codes = codesOf(bad);
    assert.ok(codes.includes("locator_not_confined"), `${JSON.stringify(locator)}: ${codes}`);
  }
  const dup = withManifest(f, (m) => m.logs.push({ ...m.logs[0]! }));
  assert.deepEqual(codesOf(dup), ["duplicate_declaration"]);
  const dupId = withManifest(f, (m) => m.produced_artifacts.push({ ...m.produced_artifacts[0]! }));
  assert.deepEqual(codesOf(dupId), ["duplicate_declaration"]);
  const noCandidate = withManifest(f, (m) => m.produced_artifacts[0]!.id = "other");
  assert.ok(codesOf(noCandidate).includes("candidate_artifact_missing"));
});

Deno.test("judgeBundle() is deterministic and never accepts with a reason", () => {
  const mutations: ((f: BundleFacts) => BundleFacts)[] = [
    (f) => f,
    (f) => withManifest(f, (m) => m.status = "failed"),
    (f) => withManifest(f, (m) => m.worker.id = "verifier"),
    (f) => ({ ...f, workUnitDigest: "sha256:" + "0".repeat(64) }),
    (f) => ({ ...f, manifest: { ok: false, code: "json_duplicate_key", detail: "dup" } }),
    (f) => ({ ...f, files: new Map() }),
    (_f) => goodFacts(new Uint8Array([0x40, 0x40])),
    (f) => withManifest(f, (m) => m.verification_request.expected_validator_ids = []),
  ];
  fc.assert(
    fc.property(fc.subarray(mutations.map((_, i) => i)), (picked) => {
      let facts = goodFacts();
      for (const i of picked) if (facts.manifest.ok) facts = mutations[i]!(facts);
      const a = judgeBundle(facts);
      assert.deepEqual(judgeBundle(facts), a);
      const codes = a.decision_support.reason_codes;
      for (const c of codes) assert.ok(c in BUNDLE_REASONS, c);
      assert.equal(a.decision_support.recommendation === "accept_candidate", codes.length === 0);
      if (codes.length > 0) assert.notEqual(a.status, "passed");
    }),
    { numRuns: 200 },
  );
});

Deno.test("unjudgeableResult() is insufficient_evidence with the one code", () => {
  const r = unjudgeableResult("work_unit_invalid", "Cannot read WorkUnit: bad");
  assert.equal(r.decision_support.recommendation, "insufficient_evidence");
  assert.deepEqual(r.decision_support.reason_codes, ["work_unit_invalid"]);
  assert.deepEqual(r.checks, []);
});
