import assert from "node:assert/strict";
import { parseGitDiff } from "../../../kernel/diff/parse.ts";
import type { RawDiffEntry } from "../../../kernel/diff/raw.ts";
import { judgeAppliedPatch } from "../../../kernel/scope/judge_applied.ts";

const enc = new TextEncoder();
const Z = "0".repeat(40);
const entry = (path: string, oldMode: string, newMode: string, status = "M"): RawDiffEntry => ({
  oldMode,
  newMode,
  oldId: Z,
  newId: Z,
  status,
  path,
  fromPath: null,
});
const edit = (path: string, index = "") =>
  parseGitDiff(enc.encode(
    `diff --git a/${path} b/${path}\n${index}--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-a\n+b\n`,
  ));

Deno.test("judgeAppliedPatch: a text edit git applied as a text edit is accepted", () => {
  const r = judgeAppliedPatch(edit("src/a.ts"), [entry("src/a.ts", "100644", "100644")]);
  assert.equal(r.verdict, "accept");
  assert.deepEqual(r.reasons, []);
});

Deno.test("judgeAppliedPatch: no mode lines, but git's result is a symlink: the policy denies it", () => {
  const r = judgeAppliedPatch(edit("link"), [entry("link", "120000", "120000")]);
  assert.deepEqual(r.reasons, ["policy_denied:symlink"]);
  assert.deepEqual(r.sensitive, ["symlink"]);
  // Without a policy only the (absent) violations remain.
  assert.equal(
    judgeAppliedPatch(edit("link"), [entry("link", "120000", "120000")], {
      policy: null,
    }).verdict,
    "accept",
  );
});

Deno.test("judgeAppliedPatch: no mode lines, but git bumped a submodule: gitlink", () => {
  const r = judgeAppliedPatch(edit("sub"), [entry("sub", "160000", "160000")]);
  assert.deepEqual(r.reasons, ["gitlink"]);
});

Deno.test("judgeAppliedPatch: a stated mode git's result disagrees with is applied_mode_mismatch", () => {
  const r = judgeAppliedPatch(edit("link", "index 1111111..2222222 100644\n"), [
    entry("link", "120000", "120000"),
  ]);
  assert.deepEqual(r.reasons, ["applied_mode_mismatch", "policy_denied:symlink"]);
  assert.match(r.violations[0]!.detail, /states mode 100644, git's result is 120000/);
});

Deno.test("judgeAppliedPatch: a path the patch does not name, and an unreadable result, reject", () => {
  const other = judgeAppliedPatch(edit("a"), [
    entry("a", "100644", "100644"),
    entry("b", "100644", "100644"),
  ]);
  assert.deepEqual(other.reasons, ["applied_unexpected_path"]);
  assert.deepEqual(judgeAppliedPatch(edit("a"), null).reasons, ["applied_unreadable"]);
});
