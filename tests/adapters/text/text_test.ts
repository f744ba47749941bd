/**
 * The one escaping helper for human output (adapters/text): for any input,
 * what it returns cannot drive a terminal (no C0 but TAB/LF, no DEL, no C1, no
 * bidi controls) or a Markdown renderer (no `<`, `>`), and printable text is
 * left as it is.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { markdownText, visible, visibleLine } from "../../../adapters/text/mod.ts";

// deno-lint-ignore no-control-regex
const DANGEROUS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const anyText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.array(
    fc.constantFrom(
      "\x1b[2J",
      "\x1b]8;;http://evil.example\x07",
      "\x07",
      "\r",
      "\x9b31m",
      "<script>",
      "ok",
      "\u202e",
      "\n",
      "\t",
    ),
    { maxLength: 20 },
  ).map((parts) => parts.join("")),
);

Deno.test("visible(): no terminal control survives, for any input", () => {
  fc.assert(
    fc.property(anyText, (s) => {
      const v = visible(s);
      assert.doesNotMatch(v, DANGEROUS);
      // LF and TAB are kept: the layout of a multi-line document stays.
      assert.equal(v.split("\n").length, s.split("\n").length);
    }),
    { numRuns: 500 },
  );
});

Deno.test("visibleLine(): one line, no control at all; markdownText(): no raw HTML either", () => {
  fc.assert(
    fc.property(anyText, (s) => {
      const line = visibleLine(s);
      // deno-lint-ignore no-control-regex
      assert.doesNotMatch(line, /[\x00-\x1f\x7f-\x9f]/);
      const md = markdownText(s);
      assert.doesNotMatch(md, /[<>]/);
      // deno-lint-ignore no-control-regex
      assert.doesNotMatch(md, /[\x00-\x1f\x7f-\x9f]/);
    }),
    { numRuns: 500 },
  );
});

Deno.test("printable text passes through unchanged; escapes are shown, not dropped", () => {
  fc.assert(
    fc.property(
      fc.string({ maxLength: 100 }).filter((s) => !DANGEROUS.test(s) && !/[\n\t]/.test(s)),
      (s) => {
        assert.equal(visible(s), s);
        assert.equal(visibleLine(s), s);
      },
    ),
  );
  assert.equal(visible("\x1b[2J"), "\\x1b[2J");
  assert.equal(visibleLine("a\r\nb"), "a\\r\\nb");
  assert.equal(
    visible("\x1b]8;;http://e\x07x\x1b]8;;\x07"),
    "\\x1b]8;;http://e\\x07x\\x1b]8;;\\x07",
  );
  assert.equal(markdownText("<img src=x onerror=alert(1)>"), "&lt;img src=x onerror=alert(1)&gt;");
});
