import assert from "node:assert/strict";
import fc from "fast-check";
import { parseRawDiff } from "../../../kernel/diff/raw.ts";

const Z = "0".repeat(40);
const A = "a".repeat(40);

Deno.test("parseRawDiff: modes, statuses, renames and copies", () => {
  const text = [
    `:000000 100755 ${Z} ${A} A`,
    "bin/run",
    `:160000 160000 ${A} ${A} M`,
    "sub",
    `:100644 000000 ${A} ${Z} D`,
    "gone.txt",
    `:120000 120000 ${A} ${A} R100`,
    "old link",
    "new link",
    "",
  ].join("\0");
  const entries = parseRawDiff(text);
  assert.deepEqual(entries?.map((e) => [e.status, e.oldMode, e.newMode, e.path, e.fromPath]), [
    ["A", "000000", "100755", "bin/run", null],
    ["M", "160000", "160000", "sub", null],
    ["D", "100644", "000000", "gone.txt", null],
    ["R", "120000", "120000", "new link", "old link"],
  ]);
});

Deno.test("parseRawDiff: anything else is null, never a partial list", () => {
  for (
    const bad of [
      "x\0y\0",
      `:100644 100644 ${A} ${A} M\0`, // no path
      `:100644 100644 ${A} ${A} M\0\0`, // empty path
      `:10064 100644 ${A} ${A} M\0a\0`,
      `:100644 100644 ${A} ${A} Q\0a\0`,
      `:100644 100644 ${A} ${A} R100\0only-one\0`,
    ]
  ) {
    assert.equal(parseRawDiff(bad), null, JSON.stringify(bad));
  }
});

Deno.test("property: parseRawDiff never throws and keeps every path it returns non-empty", () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 200 }), (text) => {
      const r = parseRawDiff(text);
      if (r !== null) { for (const e of r) assert.ok(e.path.length > 0); }
    }),
    { numRuns: 500 },
  );
});
