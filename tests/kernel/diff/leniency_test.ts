// Where git is lenient but unambiguous, the parser agrees (the git oracle tests
// check the same inputs against real git); where it is not, it stays strict.
import assert from "node:assert/strict";
import { tryParseGitDiff } from "../../../kernel/diff/mod.ts";

const enc = new TextEncoder();
const hunk = "--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-x\n+y\n";

Deno.test("index lines: abbreviated object names of 1 to 64 hex digits", () => {
  for (const index of ["1..2 100644", "a..b", "1234..5", "0".repeat(64) + ".." + "f".repeat(64)]) {
    const r = tryParseGitDiff(enc.encode(`diff --git a/b.txt b/b.txt\nindex ${index}\n${hunk}`));
    assert.ok(r.ok, `${index}: ${r.ok ? "" : r.error.message}`);
  }
  for (const index of ["..2", "1..", "g..2", "0".repeat(65) + "..1"]) {
    const r = tryParseGitDiff(enc.encode(`diff --git a/b.txt b/b.txt\nindex ${index}\n${hunk}`));
    assert.equal(r.ok ? "ok" : r.error.code, "bad_extended_header", index);
  }
  const twoSpaces = tryParseGitDiff(
    enc.encode(`diff --git a/b.txt b/b.txt\nindex 1..2  100644\n${hunk}`),
  );
  assert.equal(twoSpaces.ok ? "ok" : twoSpaces.error.code, "bad_mode");
});

Deno.test("a diff pasted into a mail's message may end at format-patch's `---`", () => {
  const tail = "---\n a.txt | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n\n" +
    "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n";
  const r = tryParseGitDiff(
    enc.encode(`Subject: fix\n\ndiff --git a/b.txt b/b.txt\n${hunk}${tail}`),
  );
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  assert.deepEqual(r.diff.files.map((f) => f.newPath), ["b.txt", "a.txt"]);
  // `---` at the very end is the separator too.
  assert.ok(tryParseGitDiff(enc.encode(`diff --git a/b.txt b/b.txt\n${hunk}---\n`)).ok);
});

Deno.test("a `---` after the counts that no diffstat follows is still a body line past the counts", () => {
  for (const after of ["---\n-z\n", "---\n+z\n", "---\nfree text\n", "----\n"]) {
    const r = tryParseGitDiff(enc.encode(`diff --git a/b.txt b/b.txt\n${hunk}${after}`));
    assert.equal(r.ok ? "ok" : r.error.code, "hunk_count_mismatch", JSON.stringify(after));
  }
});
