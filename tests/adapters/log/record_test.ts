import assert from "node:assert/strict";
import fc from "fast-check";
import { canonicalJson } from "../../../adapters/canonical_json/mod.ts";
import { EventLogError, GENESIS_HASH } from "../../../adapters/log/mod.ts";
import { canonicalBody, frameRecord } from "../../../adapters/log/record.ts";
import { parseRecordLine } from "../../../adapters/log/verify.ts";
import { buildLog } from "./_helpers.ts";

Deno.test("frameRecord() writes exactly the RFC 8785 canonical form of the record", () => {
  const { records, lines } = buildLog(5);
  for (let i = 0; i < records.length; i++) {
    assert.equal(lines[i], canonicalJson(records[i]));
  }
  assert.equal(records[0]!.prev, GENESIS_HASH);
  assert.equal(records[1]!.prev, records[0]!.hash);
  assert.deepEqual(records.map((r) => r.seq), [1, 2, 3, 4, 5]);
});

Deno.test("frameRecord() canonicalises unordered and unicode bodies", () => {
  const { line, record } = frameRecord({ seq: 0, hash: GENESIS_HASH }, {
    task: null,
    kind: "demo",
    body: { z: "é\u2028\ud83d\ude00", a: [1.5, -0, 1e21], m: { b: null, a: true } },
  }, 0);
  assert.equal(line, canonicalJson(record));
  assert.deepEqual(parseRecordLine(line), record);
});

Deno.test("frameRecord() rejects bad kinds, tasks, timestamps and non-JSON bodies", () => {
  const head = { seq: 0, hash: GENESIS_HASH };
  const cases: [() => unknown, string][] = [
    [() => frameRecord(head, { kind: "Bad Kind", body: 1 }, 0), "invalid_record"],
    [() => frameRecord(head, { task: "../x", kind: "k", body: 1 }, 0), "invalid_record"],
    [() => frameRecord(head, { kind: "k", body: 1 }, -1), "invalid_record"],
    [() => frameRecord(head, { kind: "k", body: 1n }, 0), "invalid_record"],
    [() => frameRecord(head, { kind: "k", body: NaN }, 0), "invalid_record"],
  ];
  for (const [fn, code] of cases) {
    assert.throws(fn, (e) => e instanceof EventLogError && e.code === code);
  }
});

Deno.test("parseRecordLine() reports each reason code", () => {
  const { lines } = buildLog(1);
  const line = lines[0]!;
  const code = (text: string) => {
    try {
      parseRecordLine(text);
      return "ok";
    } catch (e) {
      assert.ok(e instanceof EventLogError);
      return e.code;
    }
  };
  assert.equal(code(line), "ok");
  assert.equal(code(line.slice(0, -1)), "not_json");
  assert.equal(code("[]"), "schema");
  assert.equal(code(line.replace('"v":1}', '"v":1,"extra":1}')), "schema");
  assert.equal(code(line.replace('{"body":', '{"body":{},"body":')), "duplicate_key");
  assert.equal(code(line.replace('"i":0', '"i":0,"i":0')), "duplicate_key");
  assert.equal(code(" " + line), "not_canonical");
  assert.equal(code(line.replace('"i":0', '"i":0.0')), "not_canonical");
  assert.equal(code(line.replace('"step 0"', '"step 1"')), "bad_hash");
});

Deno.test("parseRecordLine() never throws anything but EventLogError (property)", () => {
  const { lines } = buildLog(1);
  const base = lines[0]!;
  const mutated = fc.tuple(fc.nat({ max: base.length }), fc.nat({ max: base.length }), fc.string())
    .map(([a, b, s]) => base.slice(0, Math.min(a, b)) + s + base.slice(Math.max(a, b)));
  const jsonish = fc.jsonValue().map((v) => JSON.stringify(v));
  fc.assert(
    fc.property(fc.oneof(fc.string(), fc.string({ unit: "binary" }), mutated, jsonish), (text) => {
      try {
        parseRecordLine(text);
      } catch (e) {
        if (!(e instanceof EventLogError)) throw e;
      }
    }),
    { numRuns: 300 },
  );
});

Deno.test("canonicalBody() fast path equals canonicalize on arbitrary JSON (property)", () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      assert.equal(canonicalBody(value).json, canonicalJson(value));
      // the same value with keys sorted takes the fast path and still agrees
      const sorted = JSON.parse(canonicalJson(value));
      assert.equal(canonicalBody(sorted).json, canonicalJson(value));
    }),
    { numRuns: 300 },
  );
  // integer-like keys are not in JCS order in JS property order: slow path
  const tricky = { "10": 1, "9": 2, b: 3 };
  assert.equal(canonicalBody(tricky).json, '{"10":1,"9":2,"b":3}');
  assert.equal(
    canonicalBody({ a: -0, b: 1e21, c: "\u2028" }).json,
    canonicalJson({ a: -0, b: 1e21, c: "\u2028" }),
  );
});

Deno.test("frameRecord() sorted-copy fast path equals canonicalize, body kept by value (property)", () => {
  const key = fc.oneof(
    fc.constantFrom(
      "10",
      "9",
      "0",
      "a",
      "b",
      "__proto__",
      "toJSON",
      "é",
      "\u{1F600}",
      "\uFFFD",
      "",
    ),
    fc.string({ maxLength: 4 }),
  );
  const value = fc.letrec((tie) => ({
    v: fc.oneof(
      { depthSize: "small" },
      fc.jsonValue({ maxDepth: 1 }),
      fc.array(tie("v"), { maxLength: 3 }),
      fc.dictionary(key, tie("v"), { maxKeys: 5 }),
    ),
  })).v;
  fc.assert(
    fc.property(value, (body) => {
      const { record, line } = frameRecord({ seq: 0, hash: GENESIS_HASH }, { kind: "k", body }, 0);
      assert.equal(canonicalBody(body).json, canonicalJson(body));
      assert.equal(line, canonicalJson(record));
      assert.deepEqual(record.body, JSON.parse(canonicalJson(body)));
      assert.deepEqual(parseRecordLine(line), record);
    }),
    { numRuns: 300 },
  );
  const nested = { b: { __proto__: null, z: 1, a: 2 }, a: [{ y: 1, x: { "10": 1, "9": 2 } }] };
  assert.equal(canonicalBody(nested).json, canonicalJson(nested));
  const proto = JSON.parse('{"b":1,"a":{"__proto__":{"x":1}}}');
  assert.equal(canonicalBody(proto).json, '{"a":{"__proto__":{"x":1}},"b":1}');
  // the kept body equals what verification reads back: -0 becomes 0
  const head = { seq: 0, hash: GENESIS_HASH };
  const framed = frameRecord(head, { kind: "k", body: { a: -0, b: [-0] } }, 0);
  assert.deepEqual(framed.record.body, { a: 0, b: [0] });
  assert.deepEqual(parseRecordLine(framed.line), framed.record);
});
