import assert from "node:assert/strict";
import {
  headerMatchesNames,
  readLineName,
  readMarkerName,
  readQuotedName,
  splitGitHeaderNames,
} from "../../../kernel/diff/names.ts";
import { DiffParseError } from "../../../kernel/diff/error.ts";

const bytes = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
const str = (b: Uint8Array | null) => (b === null ? null : String.fromCharCode(...b));
const split = (text: string) => {
  const names = splitGitHeaderNames(bytes(text), 0, text.length, 1);
  return [str(names.oldName), str(names.newName)];
};

Deno.test("git header names: the equal-halves rule on weird names (t4135 shapes)", () => {
  assert.deepEqual(split("a/x b/x"), ["x", "x"]);
  assert.deepEqual(split("a/with space b/with space"), ["with space", "with space"]);
  assert.deepEqual(split("a/a b b/a b"), ["a b", "a b"]);
  assert.deepEqual(split("a/b b/c b/b b/c"), ["b b/c", "b b/c"]);
  assert.deepEqual(split("a/x b/y"), [null, null], "a rename cannot be split");
  assert.deepEqual(split("a/x y b/z w"), [null, null]);
  assert.deepEqual(split('"a/t\\tb" "b/t\\tb"'), ["t\tb", "t\tb"]);
  assert.deepEqual(split('a/plain "b/q\\"uote"'), ["plain", 'q"uote']);
  assert.deepEqual(split("i/x w/x"), ["x", "x"], "any one-component prefix (mnemonic prefixes)");
});

Deno.test("quoted names: every escape git writes, nothing else", () => {
  const read = (text: string) => str(readQuotedName(bytes(text), 0, text.length, 1).bytes);
  assert.equal(read('"\\a\\b\\f\\n\\r\\t\\v\\\\\\""'), '\x07\b\f\n\r\t\v\\"');
  assert.equal(read('"\\303\\274"'), "\xc3\xbc");
  for (const bad of ['"\\x41"', '"\\400"', '"\\3"', '"open']) {
    assert.throws(
      () => read(bad),
      (e) => e instanceof DiffParseError && e.code === "bad_quoted_name",
    );
  }
});

Deno.test("marker and line names", () => {
  const m = (text: string) => readMarkerName(bytes(text), 0, text.length, 1);
  assert.equal(m("/dev/null").devNull, true);
  assert.equal(str(m("a/x y\t").stripped), "x y");
  assert.equal(str(m("x.orig\t2020-01-01").full), "x.orig");
  assert.equal(str(m('"b/q\\tx"').stripped), "q\tx");
  assert.throws(() => m("a/x\ry"), (e) => e instanceof DiffParseError && e.code === "bad_name");
  assert.equal(str(readLineName(bytes("dir/a b"), 0, 7, 1)), "dir/a b");
  assert.throws(() => readLineName(bytes('"x" y'), 0, 5, 1), DiffParseError);
});

Deno.test("headerMatchesNames checks an ambiguous header against known names", () => {
  const h = bytes("a/x y b/z w");
  assert.equal(headerMatchesNames(h, 0, h.length, bytes("x y"), bytes("z w")), true);
  assert.equal(headerMatchesNames(h, 0, h.length, bytes("x"), bytes("y b/z w")), false);
});
