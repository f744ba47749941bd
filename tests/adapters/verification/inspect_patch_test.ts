import assert from "node:assert/strict";
import fc from "fast-check";
import { inspectPatch } from "../../../adapters/verification/inspect_patch.ts";

const enc = new TextEncoder();
const modify = (path: string) =>
  enc.encode(
    [
      `diff --git a/${path} b/${path}`,
      "index 1111111..2222222 100644",
      `--- a/${path}`,
      `+++ b/${path}`,
      "@@ -1 +1 @@",
      "-old",
      "+new",
      "",
    ].join("\n"),
  );
const NO_RULES = { allow: [], forbid: [], protect: [] };

Deno.test("inspectPatch: a plain change is accepted", () => {
  const r = inspectPatch(modify("src/a.ts"), NO_RULES, []);
  assert.equal(r.verdict, "accept");
  assert.deepEqual(r.files, ["src/a.ts"]);
  assert.deepEqual(r.violations, []);
});

Deno.test("inspectPatch: forbidden, outside-allowed and protected paths are all reported", () => {
  const r = inspectPatch(
    modify("tests/a_test.ts"),
    { allow: ["src/**"], forbid: ["tests/fixtures/**"], protect: ["tests/**"] },
    [],
  );
  assert.equal(r.verdict, "reject");
  const codes = r.violations.map((v) => v.code).sort();
  assert.deepEqual(codes, ["outside_allowed", "protected_path"]);
});

Deno.test("inspectPatch: writes outside the worktree reject even an empty patch", () => {
  const r = inspectPatch(new Uint8Array(), NO_RULES, ["/home/u/repo/ESCAPED.txt"]);
  assert.equal(r.verdict, "reject");
  assert.equal(r.violations[0]?.code, "outside_worktree_write");
});

Deno.test("inspectPatch: traversal is rejected and garbage never throws", () => {
  const r = inspectPatch(modify("../etc/passwd"), NO_RULES, []);
  assert.equal(r.verdict, "reject");
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
      const out = inspectPatch(bytes, NO_RULES, []);
      assert.ok(out.verdict === "accept" || out.verdict === "reject");
    }),
    { numRuns: 200 },
  );
});
