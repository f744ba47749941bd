// The line verifier's byte-level recogniser of canonical JSON (used instead of
// JSON.parse + canonicalize on the hot path) must be sound: whatever it accepts
// is valid UTF-8, parses, and is its own RFC 8785 form under the reference
// implementation (`canonicalize`). It may reject more (the general path then
// decides), but not the common forms.
import assert from "node:assert/strict";
import fc from "fast-check";
import canonicalize from "canonicalize";
import { canonicalValueEnd } from "../../../adapters/log/_canonical_bytes.ts";
import { fastLine, fastLineRecord } from "../../../adapters/log/_fast_line.ts";
import { nodeSha256 } from "../../../adapters/digest/mod.ts";
import { GENESIS_HASH, type LogHead } from "../../../adapters/log/mod.ts";
import { frameRecord } from "../../../adapters/log/record.ts";

const fatal = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/** Whether the recogniser accepts all of `bytes` as one value. */
function accepts(bytes: Uint8Array): boolean {
  return canonicalValueEnd(bytes, 0, bytes.length) === bytes.length;
}

/** The reference: `bytes` is UTF-8 of a JSON text that is its own canonical form. */
function canonicalByReference(bytes: Uint8Array): boolean {
  try {
    const text = fatal.decode(bytes);
    return canonicalize(JSON.parse(text)) === text;
  } catch {
    return false;
  }
}

function assertSound(bytes: Uint8Array): boolean {
  const ok = accepts(bytes);
  if (ok) assert.ok(canonicalByReference(bytes), `accepted ${JSON.stringify(fatal.decode(bytes))}`);
  return ok;
}

const key = fc.oneof(
  fc.constantFrom("10", "9", "0", "a", "b", "__proto__", "toJSON", "é", "\u{1F600}", "\uFFFD", ""),
  fc.string({ unit: "binary-ascii", maxLength: 6 }),
  fc.string({ unit: "grapheme", maxLength: 4 }),
);
const str = fc.oneof(
  fc.string({ unit: "binary", maxLength: 10 }).filter((s) => s.isWellFormed()),
  fc.string({ unit: "binary-ascii", maxLength: 10 }),
  fc.constantFrom("\u0000", "\u001f", "\b\t\n\f\r", '"\\/', "\u007f", "\u2028", "\uFEFF"),
);
const num = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 1e21, 1e-7, 123456789012345, 1234567890123456, 2 ** 53, 0.1, -1.5e300),
);
/** JSON values of `str`, `num`, booleans, null, arrays and objects whose keys come from `keys`. */
const jsonValue = (keys: fc.Arbitrary<string>, withCrossShrink: boolean): fc.Arbitrary<unknown> =>
  fc.letrec((tie) => ({
    v: fc.oneof(
      { depthSize: "small", withCrossShrink },
      str,
      num,
      fc.boolean(),
      fc.constant(null),
      tie("a"),
      tie("o"),
    ),
    a: fc.array(tie("v"), { maxLength: 4 }),
    o: fc.dictionary(keys, tie("v"), { maxKeys: 5 }),
  })).v;
const value = jsonValue(key, true);

// Edits that keep JSON valid (or not) but usually break canonical form.
const EDITS: [string, string][] = [
  ["1", "1.0"],
  ["1", "1e0"],
  ["1", "01"],
  ["0", "-0"],
  ["e+", "e"],
  ["e+", "E+"],
  [",", ", "],
  [":", " :"],
  ["a", "\\u0061"],
  ["\\u00", "\\u00"],
  ["\\u001", "\\u001"],
  ["\\n", "\\u000a"],
  ["\\b", "\\u0008"],
  ["f", "F"],
  ["é", "\\u00e9"],
  ["/", "\\/"],
  ['"a"', '"\\u00e9"'],
  ["{", '{"a":1,'],
  ["}", ',"b":2}'],
  ["[", "[1,"],
  ["true", "tru"],
  ["null", "nul"],
];

const bytesOf = fc.oneof(
  value.map((v) => encoder.encode(canonicalize(v)!)),
  value.map((v) => encoder.encode(JSON.stringify(v) ?? "null")),
  fc.tuple(value, fc.nat(), fc.nat()).map(([v, which, at]) => {
    const json = canonicalize(v)!;
    const [from, to] = EDITS[which % EDITS.length]!;
    const i = json.indexOf(from, at % (json.length + 1));
    return encoder.encode(i < 0 ? json : json.slice(0, i) + to + json.slice(i + from.length));
  }),
  fc.tuple(value, fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 3 })).map(([v, at, ins]) => {
    const b = encoder.encode(canonicalize(v)!);
    const i = at % (b.length + 1);
    return new Uint8Array([...b.subarray(0, i), ...ins, ...b.subarray(i)]);
  }),
  fc.uint8Array({ maxLength: 12 }),
);

Deno.test("canonicalValueEnd() accepts only canonical JSON (property)", () => {
  let accepted = 0;
  let rejected = 0;
  fc.assert(
    fc.property(bytesOf, (bytes) => {
      if (assertSound(bytes)) accepted++;
      else rejected++;
    }),
    { numRuns: 3000 },
  );
  assert.ok(accepted > 500 && rejected > 500, `accepted ${accepted}, rejected ${rejected}`);
});

Deno.test("canonicalValueEnd() accepts the canonical form of values with ASCII keys (property)", () => {
  const plainKey = fc.string({ unit: "binary-ascii", maxLength: 6 }).filter((k) =>
    ![...k].some((c) => c === '"' || c === "\\" || c < " ")
  );
  const plain = jsonValue(plainKey, false);
  fc.assert(
    fc.property(plain, (v) => {
      assert.ok(accepts(encoder.encode(canonicalize(v)!)), canonicalize(v));
    }),
    { numRuns: 1000 },
  );
});

Deno.test("canonicalValueEnd() explicit cases", () => {
  const yes = [
    "0",
    "-1",
    "123456789012345",
    "1234567890123456",
    "9007199254740992",
    "1e+21",
    "1.5",
    "-1.5e-7",
    "0.1",
    '""',
    '"\\u0000\\u001f\\b\\t\\n\\f\\r\\"\\\\/"',
    '"\u007f\u2028é\u{1F600}\uFFFD"',
    "[]",
    "{}",
    '{"":1,"a":{"b":[true,false,null]},"b":2}',
    '{"10":1,"9":2}',
    "[".repeat(64) + "]".repeat(64),
  ];
  for (const t of yes) {
    const b = encoder.encode(t);
    assert.ok(accepts(b), t);
    assert.ok(canonicalByReference(b), t);
  }
  const no = [
    "-0",
    "01",
    "1.0",
    "1e21",
    "1E+21",
    "1e0",
    "12345678901234567890123",
    "1.",
    ".5",
    "+1",
    '"\\u001F"',
    '"\\u0008"',
    '"\\u000a"',
    '"\\u007f"',
    '"\\u00e9"',
    '"\\ud800"',
    '"\\/"',
    '"\\x"',
    '"a',
    "[1,]",
    "[1 ]",
    '{"a":1,}',
    '{"b":1,"a":2}',
    '{"a":1,"a":1}',
    '{"\\u0061":1}',
    '{"é":1}',
    "tru",
    "nul",
    "[".repeat(65) + "]".repeat(65), // deep: left to the general path
  ];
  for (const t of no) assert.ok(!accepts(encoder.encode(t)), t);
  const badUtf8 = [
    [0x22, 0xc0, 0xaf, 0x22], // overlong
    [0x22, 0xe0, 0x80, 0x80, 0x22], // overlong
    [0x22, 0xed, 0xa0, 0x80, 0x22], // surrogate
    [0x22, 0xf4, 0x90, 0x80, 0x80, 0x22], // above U+10FFFF
    [0x22, 0xf8, 0x22],
    [0x22, 0xc3, 0x22], // truncated
    [0x22, 0x80, 0x22], // stray continuation
  ];
  for (const b of badUtf8) assert.ok(!accepts(new Uint8Array(b)), b.join());
});

Deno.test("fastLine() accepts framed lines and returns the record they frame (property)", () => {
  let taken = 0;
  let lines = 0;
  fc.assert(
    fc.property(
      fc.array(fc.record({ task: fc.constantFrom(null, "t1"), body: value }), { maxLength: 4 }),
      (entries) => {
        let head: LogHead = { seq: 0, hash: GENESIS_HASH };
        for (const [i, e] of entries.entries()) {
          const f = frameRecord(head, { kind: "demo", ...e }, i);
          const bytes = encoder.encode(f.line);
          const got = fastLine(bytes, 0, bytes.length, nodeSha256, head.seq + 1, head.hash);
          lines++;
          if (got !== null) {
            taken++;
            assert.deepEqual(fastLineRecord(f.line, got, bytes.length), f.record);
          }
          // the wrong seq or prev is never accepted
          assert.equal(fastLine(bytes, 0, bytes.length, nodeSha256, head.seq + 2, head.hash), null);
          assert.equal(
            fastLine(bytes, 0, bytes.length, nodeSha256, head.seq + 1, "1".repeat(64)),
            null,
          );
          head = f.record;
        }
      },
    ),
    { numRuns: 300 },
  );
  assert.ok(taken > lines / 3, `fast path taken for ${taken} of ${lines} lines`);
  // the bench's kind of record takes the fast path
  const f = frameRecord({ seq: 0, hash: GENESIS_HASH }, {
    task: "t-7f3a",
    kind: "kernel.event",
    body: { checks: [{ id: "unit", outcome: "pass" }], round: 2, at: 1_764_460_800_000 },
  }, 1);
  const bytes = encoder.encode(f.line);
  assert.notEqual(fastLine(bytes, 0, bytes.length, nodeSha256, 1, GENESIS_HASH), null);
});
