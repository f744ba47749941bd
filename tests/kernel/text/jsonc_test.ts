/**
 * `stripJsonComments` (kernel/text/jsonc.ts), the one JSONC reader that the
 * oracle's config reading and the verify-command detection share: comments
 * and trailing commas go, the inside of strings never changes.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { stripJsonComments } from "../../../kernel/text/jsonc.ts";

const TABLE: readonly { readonly name: string; readonly text: string; readonly value: unknown }[] =
  [
    { name: "a string holding `, }`", text: '{ "a": "x, }" }', value: { a: "x, }" } },
    { name: "a string holding `,]`", text: '["1,]", 2]', value: ["1,]", 2] },
    {
      name: "a string holding `, }` with a trailing comma after it",
      text: '{"a": "x, }",}',
      value: { a: "x, }" },
    },
    {
      name: "a string holding `//`",
      text: '{"url": "https://x//y"}',
      value: { url: "https://x//y" },
    },
    {
      name: "a string holding a block comment",
      text: '{"g": "src/*/a/**/*.ts"}',
      value: { g: "src/*/a/**/*.ts" },
    },
    { name: "an escaped quote before `, }`", text: '{"a": "q\\", }"}', value: { a: 'q", }' } },
    {
      name: "an escaped backslash ending a string",
      text: '{"a": "b\\\\", "c": 1,}',
      value: { a: "b\\", c: 1 },
    },
    {
      name: "line and block comments",
      text: '{\n  // one\n  "a": 1, /* two */ "b": 2\n}',
      value: { a: 1, b: 2 },
    },
    {
      name: "trailing commas, nested",
      text: '{"a": [1, 2,], "b": {"c": 3,},\n}',
      value: { a: [1, 2], b: { c: 3 } },
    },
    { name: "a trailing comma before a comment", text: "[1, // last\n]", value: [1] },
    {
      name: "a trailing comma before a block comment",
      text: '{"a": 1, /* end */ }',
      value: { a: 1 },
    },
    {
      name: "a block comment between tokens keeps them apart",
      text: '{"a": 1/**/}',
      value: { a: 1 },
    },
  ];

for (const { name, text, value } of TABLE) {
  Deno.test(`stripJsonComments: ${name}`, () => {
    assert.deepEqual(JSON.parse(stripJsonComments(text)), value);
  });
}

Deno.test("stripJsonComments: tokens split by a block comment stay split (not valid JSON)", () => {
  assert.throws(() => JSON.parse(stripJsonComments("[1/* c */2]")));
});

Deno.test("stripJsonComments: an unterminated string or comment ends the text without throwing", () => {
  assert.equal(stripJsonComments('{"a": "open, }'), '{"a": "open, }');
  assert.equal(stripJsonComments('{"a": 1 /* open'), '{"a": 1  ');
  assert.equal(stripJsonComments('"tail\\'), '"tail\\');
});

/** Strings drawn mostly from the characters JSONC treats specially. */
const trickyString = fc.string({
  unit: fc.constantFrom(",", "}", "]", "{", "[", "/", "*", '"', "\\", " ", "\n", "a", "\u00e9"),
  maxLength: 12,
});
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    trickyString,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(trickyString, tie("value"), { maxKeys: 4, noNullPrototype: true }),
  ),
})).value;

Deno.test("property: plain JSON comes back unchanged, whatever its strings hold", () => {
  fc.assert(
    fc.property(jsonValue, fc.constantFrom(0, 2), (v, indent) => {
      const text = JSON.stringify(v, null, indent);
      assert.equal(stripJsonComments(text), text);
    }),
  );
});

Deno.test("property: trailing commas and comments added to JSON are removed, strings intact", () => {
  fc.assert(
    fc.property(jsonValue, (v) => {
      // Re-serialise with a trailing comma and a comment after every member.
      const jsonc = (x: unknown): string => {
        if (Array.isArray(x)) return `[${x.map((e) => `${jsonc(e)}, /* , } */`).join("")}]`;
        if (typeof x === "object" && x !== null) {
          const members = Object.entries(x).map(([k, e]) => `${JSON.stringify(k)}: ${jsonc(e)},`);
          return `{${members.map((m) => `${m} // ,]\n`).join("")}}`;
        }
        return JSON.stringify(x);
      };
      assert.deepEqual(JSON.parse(stripJsonComments(jsonc(v))), v);
    }),
  );
});
