import assert from "node:assert/strict";
import fc from "fast-check";
import { judgePatch, patchRulesFromLists } from "../../../kernel/scope/judge_patch.ts";
import { tryParseGitDiff } from "../../../kernel/diff/parse.ts";

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
const NO_RULES = patchRulesFromLists({ allow: [], forbid: [], protect: [] });

Deno.test("judgePatch: a plain change is accepted", () => {
  const r = judgePatch(modify("src/a.ts"), NO_RULES);
  assert.equal(r.verdict, "accept");
  assert.equal(r.scope, "accept");
  assert.deepEqual(r.files, ["src/a.ts"]);
  assert.deepEqual(r.violations, []);
  assert.deepEqual(r.reasons, []);
  assert.equal(r.summaries[0]?.status, "modified");
});

Deno.test("judgePatch: forbidden, outside-allowed and protected paths are all reported", () => {
  const r = judgePatch(
    modify("tests/a_test.ts"),
    patchRulesFromLists({
      allow: ["src/**"],
      forbid: ["tests/fixtures/**"],
      protect: ["tests/**"],
    }),
  );
  assert.equal(r.verdict, "reject");
  assert.deepEqual(r.violations.map((v) => v.code).sort(), ["outside_allowed", "protected_path"]);
});

Deno.test("judgePatch: writes outside the worktree reject even an empty patch", () => {
  const r = judgePatch(new Uint8Array(), NO_RULES, {
    outsideWrites: ["/home/u/repo/ESCAPED.txt"],
  });
  assert.equal(r.verdict, "reject");
  assert.deepEqual(r.reasons, ["outside_worktree_write"]);
});

Deno.test("judgePatch: an empty patch is empty_patch unless allowed", () => {
  assert.deepEqual(judgePatch(new Uint8Array(), NO_RULES).reasons, ["empty_patch"]);
  const allowed = judgePatch(new Uint8Array(), NO_RULES, { allowEmpty: true });
  assert.equal(allowed.verdict, "accept");
});

const newSymlink = (path: string, target: string) =>
  enc.encode(
    [
      `diff --git a/${path} b/${path}`,
      "new file mode 120000",
      "index 0000000..1111111",
      "--- /dev/null",
      `+++ b/${path}`,
      "@@ -0,0 +1 @@",
      `+${target}`,
      "\\ No newline at end of file",
      "",
    ].join("\n"),
  );
const toSymlink = (path: string) =>
  enc.encode(`diff --git a/${path} b/${path}\nold mode 100644\nnew mode 120000\n`);

Deno.test("judgePatch: the default policy denies a new symlink to ../../etc and a mode change to one", () => {
  for (const bytes of [newSymlink("etc", "../../etc"), toSymlink("src/a")]) {
    const r = judgePatch(bytes, NO_RULES);
    assert.equal(r.verdict, "reject");
    assert.equal(r.scope, "accept"); // the paths themselves are fine: the policy decides
    assert.equal(r.denied, "symlink");
    assert.deepEqual(r.reasons, ["policy_denied:symlink"]);
    // Without a policy (the kernel applies its own in `run`) only the scope remains.
    assert.equal(judgePatch(bytes, NO_RULES, { policy: null }).verdict, "accept");
  }
});

Deno.test("judgePatch: an unparsable patch names the parser's code and line", () => {
  const r = judgePatch(enc.encode("@@ -1 +1 @@\n-a\n+b\n"), NO_RULES);
  assert.equal(r.diff, null);
  assert.equal(r.parseError?.code, "unexpected_hunk");
  assert.deepEqual(r.reasons, ["unparsable_patch"]);
  assert.ok(r.violations[0]!.detail.startsWith("unexpected_hunk at line 1: "));
});

Deno.test("judgePatch: traversal is rejected and garbage never throws", () => {
  const r = judgePatch(modify("../etc/passwd"), NO_RULES);
  assert.equal(r.verdict, "reject");
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
      const out = judgePatch(bytes, NO_RULES);
      assert.equal(out.verdict === "accept", out.reasons.length === 0);
      assert.equal(out.scope === "accept", out.violations.length === 0);
    }),
    { numRuns: 200 },
  );
});

Deno.test("judgePatch: a diff parsed once and handed in is judged exactly as the bytes (property)", () => {
  const forbid = patchRulesFromLists({ allow: [], forbid: ["secret/**"], protect: [] });
  const paths = fc.constantFrom(
    "src/a.ts",
    "secret/key",
    "../etc/passwd",
    "a b/c.ts",
    ".git/config",
  );
  fc.assert(
    fc.property(fc.array(paths, { minLength: 1, maxLength: 4 }), (list) => {
      const bytes = enc.encode(list.map((p) => new TextDecoder().decode(modify(p))).join(""));
      const once = tryParseGitDiff(bytes);
      if (!once.ok) return;
      const given = judgePatch(bytes, forbid, { diff: once.diff });
      const parsed = judgePatch(bytes, forbid);
      assert.deepEqual(
        { ...given, diff: given.diff?.files.length },
        { ...parsed, diff: parsed.diff?.files.length },
      );
      assert.equal(given.diff, once.diff);
    }),
    { numRuns: 100 },
  );
});
