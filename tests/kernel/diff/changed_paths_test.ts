import assert from "node:assert/strict";
import fc from "fast-check";
import { changedPaths, parseGitDiff } from "../../../kernel/diff/mod.ts";

const added = (path: string) =>
  `diff --git a/${path} b/${path}\nnew file mode 100644\n--- /dev/null\n+++ b/${path}\n@@ -0,0 +1 @@\n+x\n`;

function utf8Order(a: string, b: string): number {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

Deno.test("changedPaths: sorted as git sorts, by UTF-8 bytes (not UTF-16 units)", () => {
  // UTF-16 puts the emoji (a surrogate pair, 0xD83D...) before U+FFFD; UTF-8 and git after it.
  const diff = parseGitDiff(new TextEncoder().encode(added("\u{1F600}.txt") + added("\uFFFD.txt")));
  assert.deepEqual(changedPaths(diff).map((c) => c.path), ["\uFFFD.txt", "\u{1F600}.txt"]);
});

Deno.test("changedPaths: any set of added paths comes out once each, in UTF-8 byte order (property)", () => {
  const segment = fc.string({ unit: "grapheme", minLength: 1, maxLength: 6 })
    .filter((s) =>
      s !== "." && s !== ".." &&
      [...s].every((c) => c.codePointAt(0)! > 0x20 && c !== "\u007f" && !'/\\"'.includes(c)) &&
      !/\s/u.test(s)
    );
  fc.assert(
    fc.property(fc.uniqueArray(segment, { minLength: 1, maxLength: 8 }), (names) => {
      const paths = names.map((n) => `d/${n}`);
      const diff = parseGitDiff(new TextEncoder().encode(paths.map(added).join("")));
      const listed = changedPaths(diff);
      assert.deepEqual(listed.map((c) => c.path), [...paths].sort(utf8Order));
      assert.ok(listed.every((c) => c.status === "A"));
    }),
    { numRuns: 200 },
  );
});
