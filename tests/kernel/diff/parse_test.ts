import assert from "node:assert/strict";
import {
  DIFF_PARSE_ERROR_CODES,
  DiffParseError,
  type DiffParseErrorCode,
  parseGitDiff,
  tryParseGitDiff,
} from "../../../kernel/diff/mod.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
const parse = (text: string) => parseGitDiff(enc.encode(text));

function assertCode(text: string | Uint8Array, code: DiffParseErrorCode, line?: number): void {
  const result = tryParseGitDiff(typeof text === "string" ? enc.encode(text) : text);
  assert.equal(result.ok, false, `expected ${code}, parsed fine`);
  if (!result.ok) {
    assert.equal(result.error.code, code, result.error.message);
    if (line !== undefined) assert.equal(result.error.line, line, result.error.message);
    assert.ok(result.error instanceof DiffParseError);
    assert.ok(DIFF_PARSE_ERROR_CODES.includes(result.error.code));
  }
}

const MOD = [
  "diff --git a/f.txt b/f.txt",
  "index 83db48f..bf269f4 100644",
  "--- a/f.txt",
  "+++ b/f.txt",
  "@@ -1,3 +1,3 @@ function ctx()",
  " one",
  "-two",
  "+TWO",
  " three",
  "",
].join("\n");

Deno.test("modified file: names, counts, modes, hashes, section, lines", () => {
  const [f] = parse(MOD).files;
  assert.ok(f);
  assert.equal(f.status, "modified");
  assert.equal(f.oldPath, "f.txt");
  assert.equal(f.newPath, "f.txt");
  assert.deepEqual([f.oldMode, f.newMode], ["100644", "100644"]);
  assert.deepEqual([f.oldHash, f.newHash], ["83db48f", "bf269f4"]);
  assert.deepEqual([f.additions, f.deletions], [1, 1]);
  const h = f.hunks[0]!;
  assert.deepEqual([h.oldStart, h.oldLines, h.newStart, h.newLines], [1, 3, 1, 3]);
  assert.equal(h.section, "function ctx()");
  assert.equal(h.line, 5);
  assert.deepEqual(
    h.lines().map((l) => [l.kind, dec.decode(l.content)]),
    [["context", "one"], ["deleted", "two"], ["added", "TWO"], ["context", "three"]],
  );
  assert.equal(h.lines(), h.lines(), "lines are cached");
  assert.equal(f.binary, false);
  assert.equal(f.headerKind, "git");
});

Deno.test("omitted hunk counts, no-newline markers and CRLF content", () => {
  const text = [
    "diff --git a/x b/x",
    "--- a/x",
    "+++ b/x",
    "@@ -1 +1 @@",
    "-a\r",
    "\\ No newline at end of file",
    "+b\r",
    "\\ No newline at end of file",
    "",
  ].join("\n");
  const h = parse(text).files[0]!.hunks[0]!;
  assert.deepEqual([h.oldLines, h.newLines], [1, 1]);
  const lines = h.lines();
  assert.deepEqual(lines.map((l) => [l.kind, dec.decode(l.content), l.noNewlineAtEnd]), [
    ["deleted", "a\r", true],
    ["added", "b\r", true],
  ]);
});

Deno.test("an empty line inside a hunk is context (GNU diff)", () => {
  const text = "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n";
  const h = parse(text).files[0]!.hunks[0]!;
  assert.deepEqual(h.lines().map((l) => l.kind), ["context", "context", "deleted", "added"]);
});

Deno.test("quoted C-escaped names decode octal UTF-8 and escapes", () => {
  const text = [
    'diff --git "a/t\\tb\\"q\\\\\\303\\274.txt" "b/t\\tb\\"q\\\\\\303\\274.txt"',
    "new file mode 100644",
    "index 0000000..1111111",
    "--- /dev/null",
    '+++ "b/t\\tb\\"q\\\\\\303\\274.txt"',
    "@@ -0,0 +1 @@",
    "+x",
    "",
  ].join("\n");
  const f = parse(text).files[0]!;
  assert.equal(f.status, "added");
  assert.equal(f.oldPath, null);
  assert.equal(f.newPath, 't\tb"q\\ü.txt');
  assert.deepEqual([...f.newPathBytes!.slice(-6)], [0xc3, 0xbc, 0x2e, 0x74, 0x78, 0x74]);
  assert.equal(f.newMode, "100644");
});

Deno.test("unquoted names with spaces: equal halves and renames", () => {
  const same = "diff --git a/a b c b/a b c\nold mode 100644\nnew mode 100755\n";
  const f = parse(same).files[0]!;
  assert.equal(f.newPath, "a b c");
  assert.equal(f.status, "mode-only");
  assert.deepEqual([f.oldMode, f.newMode], ["100644", "100755"]);
  const rename = [
    "diff --git a/x y b/z w",
    "similarity index 90%",
    "rename from x y",
    "rename to z w",
    "",
  ].join("\n");
  const r = parse(rename).files[0]!;
  assert.deepEqual([r.status, r.oldPath, r.newPath, r.similarity], ["renamed", "x y", "z w", 90]);
  // "a/b b/c b/b b/c": the halves rule picks the name that appears twice.
  const tricky = parse("diff --git a/b b/c b/b b/c\nold mode 100644\nnew mode 100755\n");
  assert.equal(tricky.files[0]!.newPath, "b b/c");
});

Deno.test("git names git appends a TAB after names with spaces on ---/+++", () => {
  const text = [
    "diff --git a/new file.txt b/new file.txt",
    "new file mode 100644",
    "index 0000000..3e75765",
    "--- /dev/null",
    "+++ b/new file.txt\t",
    "@@ -0,0 +1 @@",
    "+new",
    "",
  ].join("\n");
  assert.equal(parse(text).files[0]!.newPath, "new file.txt");
});

Deno.test("copies, deletions, symlinks and gitlinks", () => {
  const text = [
    "diff --git a/a.txt b/b.txt",
    "similarity index 95%",
    "copy from a.txt",
    "copy to b.txt",
    "index 1111111..2222222 100644",
    "--- a/a.txt",
    "+++ b/b.txt",
    "@@ -1 +1,2 @@",
    " a",
    "+b",
    "diff --git a/link b/link",
    "deleted file mode 120000",
    "index 3333333..0000000",
    "--- a/link",
    "+++ /dev/null",
    "@@ -1 +0,0 @@",
    "-target",
    "\\ No newline at end of file",
    "diff --git a/sub b/sub",
    "new file mode 160000",
    "index 0000000..4444444",
    "--- /dev/null",
    "+++ b/sub",
    "@@ -0,0 +1 @@",
    "+Subproject commit 4444444444444444444444444444444444444444",
    "",
  ].join("\n");
  const [copy, link, sub] = parse(text).files;
  assert.deepEqual([copy!.status, copy!.oldPath, copy!.newPath], ["copied", "a.txt", "b.txt"]);
  assert.deepEqual([link!.status, link!.newPath, link!.isSymlink, link!.oldMode], [
    "deleted",
    null,
    true,
    "120000",
  ]);
  assert.deepEqual([sub!.status, sub!.isGitlink, sub!.newMode], ["added", true, "160000"]);
});

Deno.test("GIT binary patch literal and delta blocks are decoded", () => {
  const full = "e158ec5208bacda2ca76214f4a18bd2ce2ffee46..6f1ca3869f330f2adac422f668b1b796cc178d44";
  const text = [
    "diff --git a/b.bin b/b.bin",
    `index ${full} 100644`,
    "GIT binary patch",
    "literal 7",
    "OcmYew%wu3=W&r>PUI9V?",
    "",
    "delta 6",
    "NcmYew%wu3=0ssaZ0X+Z!",
    "",
    "",
  ].join("\n");
  const f = parse(text).files[0]!;
  assert.equal(f.binary, true);
  assert.equal(f.binaryKind, "literal");
  assert.equal(f.binaryPatch!.forward.size, 7);
  assert.equal(f.binaryPatch!.forward.data.length, 15);
  assert.equal(f.binaryPatch!.forward.data[0], 0x78, "zlib header");
  assert.equal(f.binaryPatch!.reverse!.kind, "delta");
});

Deno.test("binary: truncated base85, bad length byte, short index all fail", () => {
  const full = "e158ec5208bacda2ca76214f4a18bd2ce2ffee46..6f1ca3869f330f2adac422f668b1b796cc178d44";
  const head = `diff --git a/b.bin b/b.bin\nindex ${full} 100644\nGIT binary patch\nliteral 7\n`;
  assertCode(head + "OcmYew%wu3=W&r>PUI9V\n\n", "bad_binary", 5);
  assertCode(head + "ScmYew%wu3=W&r>PUI9V?\n\n", "bad_binary", 5);
  assertCode(head + "OcmYew%wu3=W&r>PUI9V?\n", "truncated");
  assertCode(head + "OcmYew%wu3=W&r>PUI9V\u00ff\n\n", "bad_binary");
  assertCode(head, "truncated");
  assertCode(
    "diff --git a/b b/b\nindex 1234567..89abcde 100644\nGIT binary patch\nliteral 1\nA00\n\n",
    "bad_binary",
  );
  assertCode(
    `diff --git a/b b/b\nindex ${full} 100644\nGIT binary patch\nliteral x\n`,
    "bad_binary",
  );
  const binaryFiles =
    "diff --git a/b b/b\nindex 1234567..89abcde 100644\nBinary files a/b and b/b differ\n";
  const f = parse(binaryFiles).files[0]!;
  assert.deepEqual([f.binary, f.binaryKind], [true, "differ"]);
});

Deno.test("format-patch mails: preamble, --- separator, diffstat and signature", () => {
  const mail = [
    "From 1234567890abcdef1234567890abcdef12345678 Mon Sep 17 00:00:00 2001",
    "From: A <a@example.com>",
    "Subject: [PATCH] change",
    "",
    "Body text with a line",
    "***************",
    "@@ not a hunk header @@",
    "GIT binary patch (mentioned in prose)",
    "-- not a signature",
    "---",
    " f.txt | 2 +-",
    " 1 file changed, 1 insertion(+), 1 deletion(-)",
    "",
    MOD.trimEnd(),
    "-- ",
    "2.39.5",
    "",
    "",
  ].join("\n");
  const files = parse(mail).files;
  assert.equal(files.length, 1);
  assert.equal(files[0]!.additions, 1);
});

Deno.test("plain unified diffs: timestamps, -p1, /dev/null, git's single name", () => {
  const text = [
    "--- a/src/x.c\t2020-01-01 00:00:00.000000000 +0000",
    "+++ b/src/x.c\t2020-01-02 00:00:00.000000000 +0000",
    "@@ -1 +1 @@",
    "-a",
    "+b",
    "--- /dev/null",
    "+++ b/new.c",
    "@@ -0,0 +1 @@",
    "+n",
    "--- x.orig",
    "+++ x",
    "@@ -1 +1 @@",
    "-1",
    "+2",
    "",
  ].join("\n");
  const [a, b, c] = parse(text).files;
  assert.deepEqual([a!.headerKind, a!.status, a!.oldPath, a!.newPath], [
    "unified",
    "modified",
    "src/x.c",
    "src/x.c",
  ]);
  assert.deepEqual([b!.status, b!.oldPath, b!.newPath], ["added", null, "new.c"]);
  assert.deepEqual([c!.oldPath, c!.newPath], ["x", "x"]);
});

Deno.test("strictness: every malformed shape has its code and line", () => {
  assertCode("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1 @@\n-a\n+b\n", "truncated", 7);
  assertCode(
    "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n+c\n",
    "hunk_count_mismatch",
    7,
  );
  assertCode(
    "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\nx\n",
    "hunk_count_mismatch",
    6,
  );
  assertCode("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n a\n", "hunk_without_changes", 4);
  assertCode("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1@@\n-a\n+b\n", "bad_hunk_header", 4);
  assertCode("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -99999999999 +1 @@\n", "bad_hunk_header");
  assertCode("diff --git a/x b/x\n--- a/x\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n", "name_mismatch", 1);
  assertCode("diff --git a/x b/y\n--- a/x\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n", "name_mismatch");
  assertCode("diff --git a/x b/y\nrename from x\nrename to z\n", "name_mismatch");
  assertCode("diff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b\n", "missing_header", 2);
  assertCode("diff --git a/x b/x\n--- a/x\n@@ -1 +1 @@\n", "missing_header", 3);
  assertCode('diff --git "a/x\\q" "b/x\\q"\n', "bad_quoted_name", 1);
  assertCode('diff --git "a/x b/x\n', "bad_quoted_name", 1);
  assertCode('diff --git "a/x\\000" "b/x\\000"\nold mode 100644\nnew mode 100755\n', "bad_name");
  assertCode("diff --git a/x\r b/x\r\nold mode 100644\nnew mode 100755\n", "bad_name");
  assertCode("diff --git a/x b/x\nold mode 100644\nnew mode 100655\n", "bad_mode", 3);
  assertCode(
    "diff --git a/x b/x\nnew file mode 100644\nrename from x\nrename to x\n",
    "status_mismatch",
  );
  assertCode(
    "diff --git a/x b/x\nnew file mode 100644\n--- /dev/null\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
    "status_mismatch",
  );
  assertCode("diff --git a/x b/x\nold mode 100644\nold mode 100644\n", "bad_extended_header", 3);
  assertCode("diff --git a/x b/x\nsimilarity index 101%\n", "bad_extended_header");
  assertCode("@@ -1 +1 @@\n-a\n+b\n", "unexpected_hunk", 1);
  assertCode("diff --cc x\n", "combined_diff", 1);
  assertCode("*** a\n--- b\n***************\n", "context_diff", 3);
  assertCode("text\nGIT binary patch\nliteral 1\n", "unexpected_line", 2);
  assertCode("1,2c\nfoo\n.\n", "ed_script", 1);
  assertCode("--- a/x\n+++ b/x\n2d\n", "ed_script", 3);
  assertCode("diff --git a/x b/x\n--- a/x\n+++ b/x\n1c\nfoo\n.\n", "ed_script", 4);
  assertCode("hello\nworld\n", "no_diff");
  assertCode(
    "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ x\n+b\n",
    "hunk_count_mismatch",
  );
  assertCode("diff --git x x\nold mode 100644\nnew mode 100755\n", "missing_name");
});

Deno.test("empty input is an empty diff; text around diffs is ignored", () => {
  assert.deepEqual(parseGitDiff(new Uint8Array()).files, []);
  assert.equal(parse("commit abc\nAuthor: x\n\n    message\n\n" + MOD).files.length, 1);
});

Deno.test("budgets: bytes, lines, files and hunks", () => {
  const bytes = enc.encode(MOD + MOD.replaceAll("f.txt", "g.txt"));
  const code = (options: Parameters<typeof parseGitDiff>[1]) => {
    const r = tryParseGitDiff(bytes, options);
    return r.ok ? "ok" : r.error.code;
  };
  assert.equal(code({}), "ok");
  assert.equal(code({ maxBytes: 10 }), "budget_exceeded");
  assert.equal(code({ maxLines: 5 }), "budget_exceeded");
  assert.equal(code({ maxFiles: 1 }), "budget_exceeded");
  assert.equal(code({ maxHunks: 1 }), "budget_exceeded");
});

Deno.test("hostile header lines are handled in linear time and bounded", () => {
  // A 60 KB `diff --git` line of spaces and slashes would be quadratic for a naive split.
  const line = "diff --git a/" + "x /".repeat(20_000) + "\n";
  const r = tryParseGitDiff(enc.encode(line));
  assert.equal(r.ok, false);
  const spaces = "diff --git a/" + "x ".repeat(30_000) + "b/x\n";
  assert.equal(tryParseGitDiff(enc.encode(spaces)).ok, false);
  // Name text over 64 KiB is refused before anything is allocated for it.
  assertCode("diff --git a/" + "y".repeat(70_000) + " b/y\n", "bad_name", 1);
  assertCode('--- "a/' + "z".repeat(70_000) + '"\n+++ b/z\n@@ -1 +1 @@\n-a\n+b\n', "bad_name", 1);
});

Deno.test("GNU diff -N epoch timestamps mark created and deleted files (git's rule)", () => {
  const text = [
    "--- a/n.txt\t1969-12-31 19:00:00.000000000 -0500",
    "+++ b/n.txt\t2026-11-29 23:44:03.110891826 +0000",
    "@@ -0,0 +1 @@",
    "+new",
    "--- a/o.txt\t2026-11-29 23:44:03.110891826 +0000",
    "+++ b/o.txt\t1970-01-01 01:00:00 +0100",
    "@@ -1 +0,0 @@",
    "-old",
    "--- a/m.txt\t1970-01-01 00:00:01 +0000",
    "+++ b/m.txt\t1970-01-01 00:00:00.5 +0000",
    "@@ -1 +1 @@",
    "-a",
    "+b",
    "",
  ].join("\n");
  const [n, o, m] = parse(text).files;
  assert.deepEqual([n!.status, n!.oldPath, n!.newPath], ["added", null, "n.txt"]);
  assert.deepEqual([o!.status, o!.oldPath, o!.newPath], ["deleted", "o.txt", null]);
  assert.deepEqual([m!.status, m!.oldPath], ["modified", "m.txt"]);
});
