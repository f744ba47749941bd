import assert from "node:assert/strict";
import fc from "fast-check";
import {
  parseStrictJson,
  StrictJsonError,
  tryParseStrictJson,
} from "../../../adapters/bundle/strict_json.ts";

const enc = new TextEncoder();

function code(input: string | Uint8Array): string {
  const r = tryParseStrictJson(input);
  return r.ok ? "ok" : r.error.code;
}

Deno.test("parseStrictJson() agrees with JSON.parse on ordinary documents", () => {
  for (
    const text of [
      "null",
      "true",
      ' [1, -2.5e3, "a\\u00e9\\n", {}] ',
      '{"a":{"b":[{"c":null}]},"d":"\\ud83d\\ude00"}',
      "0",
      "-0.0",
      '"\\/\\b\\f\\r\\t\\"\\\\"',
    ]
  ) {
    assert.deepEqual(parseStrictJson(text), JSON.parse(text), text);
    assert.deepEqual(parseStrictJson(enc.encode(text)), JSON.parse(text), text);
  }
});

Deno.test("parseStrictJson() refuses duplicate keys, even nested or escaped", () => {
  assert.equal(code('{"a":1,"a":2}'), "json_duplicate_key");
  assert.equal(code('{"x":{"a":1,"\\u0061":2}}'), "json_duplicate_key");
  assert.equal(code('[{"k":1},{"k":2}]'), "ok");
});

Deno.test("parseStrictJson() refuses prototype-polluting keys", () => {
  assert.equal(code('{"__proto__":{"polluted":true}}'), "json_forbidden_key");
  assert.equal(code('{"a":{"constructor":{}}}'), "json_forbidden_key");
  assert.equal(code('{"\\u005f_proto__":1}'), "json_forbidden_key");
  assert.equal(code('{"prototype":1}'), "json_forbidden_key");
});

Deno.test("parseStrictJson() refuses BOM, bad UTF-8, unsafe numbers, depth and syntax", () => {
  assert.equal(code(new Uint8Array([0xef, 0xbb, 0xbf, 0x31])), "json_bom");
  assert.equal(code(new Uint8Array([0x22, 0xff, 0x22])), "json_invalid_utf8");
  assert.equal(code("9007199254740993"), "json_unsafe_number");
  assert.equal(code("1e400"), "json_unsafe_number");
  assert.equal(code("9007199254740991"), "ok");
  assert.equal(code("[".repeat(65) + "]".repeat(65)), "json_too_deep");
  assert.equal(code("[".repeat(64) + "]".repeat(64)), "ok");
  for (
    const bad of [
      "",
      "{",
      "[1,]",
      '{"a":1,}',
      "01",
      "+1",
      ".5",
      "NaN",
      "'a'",
      '"\t"',
      '"\\x41"',
      '"\\ud800"',
      "nul",
      "1 2",
      '{"a" 1}',
      "\u00a01",
    ]
  ) {
    assert.equal(code(bad), "json_syntax", JSON.stringify(bad));
  }
});

Deno.test("parseStrictJson() errors carry an offset", () => {
  try {
    parseStrictJson('{"a":1, "a":2}');
    assert.fail("expected an error");
  } catch (error) {
    assert.ok(error instanceof StrictJsonError);
    assert.equal(error.offset, 8);
    assert.match(error.message, /^Cannot parse JSON: duplicate key "a"/);
  }
});

Deno.test("parseStrictJson() round-trips any JSON value without dangerous keys", () => {
  const safeKey = fc.string().filter((k) => !["__proto__", "constructor", "prototype"].includes(k));
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small" },
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      // Integers beyond 2^53 that print without an exponent are refused on purpose.
      fc.double({ noNaN: true, noDefaultInfinity: true })
        .map((d) => Object.is(d, -0) ? 0 : d)
        .filter((d) => !Number.isInteger(d) || Number.isSafeInteger(d) || Math.abs(d) >= 1e21),
      fc.string(),
      fc.array(tie("value"), { maxLength: 4 }),
      fc.dictionary(safeKey, tie("value"), { maxKeys: 4 }),
    ),
  }));
  fc.assert(
    fc.property(value, (v) => {
      const text = JSON.stringify(v);
      assert.deepEqual(parseStrictJson(enc.encode(text)), JSON.parse(text));
    }),
    { numRuns: 300 },
  );
});

Deno.test("tryParseStrictJson() never throws on arbitrary bytes", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
      const r = tryParseStrictJson(bytes);
      if (r.ok) assert.deepEqual(r.value, JSON.parse(new TextDecoder().decode(bytes)));
    }),
    { numRuns: 300 },
  );
  fc.assert(
    fc.property(
      fc.string({ unit: fc.constantFrom(...'{}[],:"\\ 0123456789.-eEtruefalsn') }),
      (s) => {
        const r = tryParseStrictJson(s);
        if (r.ok) assert.deepEqual(r.value, JSON.parse(s));
      },
    ),
    { numRuns: 300 },
  );
});
