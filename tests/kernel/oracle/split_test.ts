import assert from "node:assert/strict";
import fc from "fast-check";
import { type GitDiff, parseGitDiff } from "../../../kernel/diff/mod.ts";
import {
  fileSections,
  oracleSet,
  patchOracle,
  splitPatch,
  touchesPaths,
} from "../../../kernel/oracle/mod.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

const PATHS = [
  "src/a.js",
  "src/b.py",
  "test/a.test.js",
  "tests/test_b.py",
  ".travis.yml",
  "docs/readme.md",
  "test/support/env.js",
  "with space/x.txt",
];

type Kind = "modify" | "add" | "delete" | "rename" | "mode" | "binary";

function section(path: string, kind: Kind, n: number): string {
  const lines = (prefix: string, k: number) =>
    Array.from({ length: k }, (_, i) => `${prefix}line ${i}\n`).join("");
  const q = path.includes(" ") ? `"a/${path}" "b/${path}"` : `a/${path} b/${path}`;
  switch (kind) {
    case "modify":
      return `diff --git ${q}\nindex 1111111..2222222 100644\n--- a/${path}\n+++ b/${path}\n` +
        `@@ -1,${n + 1} +1,${n + 1} @@\n${lines(" ", n)}-old\n+new\n`;
    case "add":
      return `diff --git ${q}\nnew file mode 100644\nindex 0000000..3333333\n--- /dev/null\n` +
        `+++ b/${path}\n@@ -0,0 +1,${n + 1} @@\n${lines("+", n + 1)}`;
    case "delete":
      return `diff --git ${q}\ndeleted file mode 100644\nindex 3333333..0000000\n--- a/${path}\n` +
        `+++ /dev/null\n@@ -1,${n + 1} +0,0 @@\n${lines("-", n + 1)}`;
    case "rename":
      return `diff --git a/${path} b/${path}.moved\nsimilarity index 100%\nrename from ${path}\n` +
        `rename to ${path}.moved\n`;
    case "mode":
      return `diff --git ${q}\nold mode 100644\nnew mode 100755\n`;
    case "binary":
      return `diff --git ${q}\nindex 1111111..2222222 100644\nBinary files a/${path} and b/${path} differ\n`;
  }
}

const patchArb = fc.record({
  intro: fc.constantFrom("", "Subject: fix it\n\nSome words.\n\n"),
  files: fc.uniqueArray(
    fc.record({
      path: fc.constantFrom(...PATHS),
      kind: fc.constantFrom<Kind>("modify", "add", "delete", "rename", "mode", "binary"),
      n: fc.integer({ min: 0, max: 3 }),
    }),
    { selector: (f) => f.path, minLength: 1, maxLength: PATHS.length },
  ),
  signature: fc.boolean(),
  chooser: fc.func(fc.boolean()),
});

function summary(diff: GitDiff) {
  return diff.files.map((f) => [f.oldPath, f.newPath, f.status, f.additions, f.deletions]);
}

Deno.test("property: oracle and rest are the input's file sections, in order, and each reparses to its files", () => {
  fc.assert(
    fc.property(patchArb, ({ intro, files, signature, chooser }) => {
      const text = intro + files.map((f) => section(f.path, f.kind, f.n)).join("") +
        (signature ? "-- \n2.43.0\n" : "");
      const bytes = enc.encode(text);
      const diff = parseGitDiff(bytes);
      assert.equal(diff.files.length, files.length);
      const split = splitPatch(bytes, diff, (_f, i) => chooser(i));
      // Every index in exactly one part, ascending.
      assert.deepEqual([...split.oracleFiles, ...split.restFiles].sort((a, b) => a - b), [
        ...diff.files.keys(),
      ]);
      // The union in index order is the input from the first file on, byte for byte.
      const sections = fileSections(bytes, diff);
      const oracleText = dec.decode(split.oracle);
      const restText = dec.decode(split.rest);
      let o = 0;
      let r = 0;
      let joined = "";
      sections.forEach(([s, e], i) => {
        const part = dec.decode(bytes.subarray(s, e));
        if (split.oracleFiles.includes(i)) {
          assert.equal(oracleText.slice(o, o + part.length), part);
          o += part.length;
        } else {
          assert.equal(restText.slice(r, r + part.length), part);
          r += part.length;
        }
        joined += part;
      });
      assert.equal(o, oracleText.length);
      assert.equal(r, restText.length);
      assert.equal(joined, text.slice(intro.length));
      // Each part parses, strictly, into exactly its files.
      const all = summary(diff);
      for (
        const [part, idx] of [[split.oracle, split.oracleFiles], [
          split.rest,
          split.restFiles,
        ]] as const
      ) {
        const want = idx.map((i) => all[i]);
        assert.deepEqual(part.length === 0 ? [] : summary(parseGitDiff(part)), want);
      }
    }),
  );
});

Deno.test("patchOracle + splitPatch: a rename out of the tests and a test edit go to the oracle part", () => {
  const text = [
    section("src/a.js", "modify", 1),
    section("test/a.test.js", "rename", 0),
    section("tests/test_b.py", "modify", 0),
    section("docs/readme.md", "add", 0),
  ].join("");
  const bytes = enc.encode(text);
  const diff = parseGitDiff(bytes);
  const set = oracleSet({ paths: PATHS, runners: ["node", "pytest"] });
  const p = patchOracle(set, diff);
  assert.deepEqual(p.touches.map((t) => t.message), [
    "test/a.test.js renamed (test/a.test.js -> test/a.test.js.moved) (node:test file by convention)",
    "tests/test_b.py changed (pytest test file by convention)",
  ]);
  const split = splitPatch(bytes, diff, p.isOracle);
  assert.deepEqual(split.oracleFiles, [1, 2]);
  assert.deepEqual(split.restFiles, [0, 3]);
  assert.deepEqual(
    splitPatch(bytes, diff, touchesPaths((x) => set.classify(x) !== null)).oracleFiles,
    [1, 2],
  );
});
