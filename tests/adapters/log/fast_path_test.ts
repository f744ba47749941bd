// The line verifier's fast paths (JSON.stringify instead of canonicalize, the
// hash over the line's own bytes with the hash member cut out, hand checks
// instead of zod, one lenient whole-file decode) against a straightforward
// reference verifier: decode each line strictly, JSON.parse, zod, canonicalize,
// hash the canonical record without `hash`, check seq and prev.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import fc from "fast-check";
import canonicalize from "canonicalize";
import {
  createHashWasmSha256,
  EventLogError,
  GENESIS_HASH,
  LOG_HASH_DOMAIN,
  type LogHead,
  LogRecordSchema,
  verifyLogBytes,
} from "../../../adapters/log/mod.ts";
import { frameRecord } from "../../../adapters/log/record.ts";
import { parseRecordLine } from "../../../adapters/log/verify.ts";

const HEX64 = /^[0-9a-f]{64}$/;
const KIND = /^[a-z][a-z0-9_.-]{0,63}$/;
const TASK = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

type Reference =
  | { status: "ok" | "torn"; head: LogHead }
  | { status: "tampered"; line: number; head: LogHead };

function referenceVerify(bytes: Uint8Array): Reference {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const end = bytes.lastIndexOf(0x0a) + 1;
  let head: LogHead = { seq: 0, hash: GENESIS_HASH };
  let start = 0;
  for (let lineNo = 1; start < end; lineNo++) {
    const stop = bytes.indexOf(0x0a, start);
    const bad: Reference = { status: "tampered", line: lineNo, head };
    let text: string;
    let value: Record<string, unknown>;
    try {
      text = decoder.decode(bytes.subarray(start, stop));
      value = JSON.parse(text);
    } catch {
      return bad;
    }
    if (!LogRecordSchema.safeParse(value).success) return bad;
    const r = LogRecordSchema.parse(value);
    if (Object.keys(value).length !== 8 || !HEX64.test(r.prev) || !KIND.test(r.kind)) return bad;
    if (r.task !== null && !TASK.test(r.task)) return bad;
    let canonical: string | undefined;
    let unhashed: string | undefined;
    try {
      canonical = canonicalize(value);
      const { hash: _, ...rest } = value;
      unhashed = canonicalize(rest);
    } catch {
      return bad;
    }
    if (canonical !== text) return bad;
    const want = createHash("sha256").update(LOG_HASH_DOMAIN + unhashed).digest("hex");
    if (want !== r.hash || r.seq !== head.seq + 1 || r.prev !== head.hash) return bad;
    head = { seq: r.seq, hash: r.hash };
    start = stop + 1;
  }
  return { status: end < bytes.length ? "torn" : "ok", head };
}

function assertAgree(bytes: Uint8Array, sha256?: Awaited<ReturnType<typeof createHashWasmSha256>>) {
  const want = referenceVerify(bytes);
  const got = verifyLogBytes(bytes, sha256 ? { sha256 } : {});
  assert.equal(got.status, want.status);
  assert.deepEqual(got.head, want.head);
  if (got.status === "tampered" && want.status === "tampered") {
    assert.equal(got.issue.line, want.line);
  }
  // Without records the byte-level fast path skips decoding: the same verdict, word for word.
  const bare = verifyLogBytes(
    bytes,
    sha256 ? { sha256, keepRecords: false } : { keepRecords: false },
  );
  assert.equal(bare.status, got.status);
  assert.deepEqual(bare.head, got.head);
  assert.deepEqual(bare.records, []);
  if (bare.status === "tampered" && got.status === "tampered") {
    assert.deepEqual(bare.issue, got.issue);
  }
}

// Keys that stress the fast path: integer-like keys (JS enumerates them first),
// `__proto__`, non-ASCII, astral and near-surrogate-order characters.
const trickyKey = fc.constantFrom(
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
  "\uFB00",
  "\u007f",
  "",
);
const wellFormed = (unit: "binary" | "grapheme" | "binary-ascii") =>
  fc.string({ unit, maxLength: 12 }).filter((s) => s.isWellFormed());
const leaf = fc.oneof(
  wellFormed("binary"),
  wellFormed("binary-ascii"),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
);
const body: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small", withCrossShrink: true }, leaf, tie("array"), tie("object")),
  array: fc.array(tie("value"), { maxLength: 4 }),
  object: fc.dictionary(fc.oneof(trickyKey, wellFormed("grapheme")), tie("value"), {
    maxKeys: 5,
  }),
})).value;
const entry = fc.record({
  task: fc.oneof(fc.constant(null), fc.constantFrom("t1", "T-9.x:y")),
  kind: fc.constantFrom("demo", "kernel.event", "tool.receipt"),
  body: fc.oneof(body, fc.jsonValue({ maxDepth: 3, stringUnit: "grapheme" })),
});

function frame(entries: { task: string | null; kind: string; body: unknown }[]): string[] {
  let head: LogHead = { seq: 0, hash: GENESIS_HASH };
  return entries.map((e, i) => {
    const f = frameRecord(head, e, 1_700_000_000_000 + i);
    head = f.record;
    return f.line;
  });
}
const encode = (lines: string[], torn = "") =>
  new TextEncoder().encode(lines.map((l) => l + "\n").join("") + torn);

// Replacements that keep JSON valid but break canonical form (or nothing).
const REWRITES: [string, string][] = [
  ["1", "1.0"],
  ["1", "1e0"],
  ["0", "-0"],
  [",", ", "],
  [":", " :"],
  ["a", "\\u0061"],
  ["\\u00", "\\u00"],
  ["é", "\\u00e9"],
  ["/", "\\/"],
  ['"seq"', '"seq":0,"seq"'],
  ['"v":1', '"v":1,"v":1'],
  ["{", '{"a":1,'],
  ["}", ',"b":2}'],
  ["true", "false"],
];

const mutation = fc.oneof(
  fc.record({
    op: fc.constant("flip" as const),
    at: fc.nat(),
    mask: fc.integer({ min: 1, max: 255 }),
  }),
  fc.record({
    op: fc.constant("splice" as const),
    at: fc.nat(),
    del: fc.nat({ max: 3 }),
    ins: fc.oneof(
      fc.uint8Array({ maxLength: 4 }),
      fc.constantFrom(
        new Uint8Array([0xef, 0xbb, 0xbf]),
        new Uint8Array([0x0a]),
        new Uint8Array([0x20]),
        new Uint8Array([0xed, 0xa0, 0x80]),
        new Uint8Array([0xc0, 0xaf]),
      ),
    ),
  }),
  fc.record({ op: fc.constant("rewrite" as const), which: fc.nat(), at: fc.nat() }),
  fc.record({
    op: fc.constant("lines" as const),
    a: fc.nat(),
    b: fc.nat(),
    how: fc.nat({ max: 2 }),
  }),
);

function mutate(lines: string[], m: MutationT): Uint8Array {
  const bytes = encode(lines);
  switch (m.op) {
    case "flip": {
      const copy = bytes.slice();
      const at = m.at % copy.length;
      copy[at] = copy[at]! ^ m.mask;
      return copy;
    }
    case "splice": {
      const at = m.at % (bytes.length + 1);
      const out = new Uint8Array(bytes.length + m.ins.length);
      out.set(bytes.subarray(0, at));
      out.set(m.ins, at);
      out.set(bytes.subarray(Math.min(bytes.length, at + m.del)), at + m.ins.length);
      return out.subarray(0, bytes.length + m.ins.length - Math.min(m.del, bytes.length - at));
    }
    case "rewrite": {
      const [from, to] = REWRITES[m.which % REWRITES.length]!;
      const text = lines.map((l) => l + "\n").join("");
      const hits: number[] = [];
      for (let i = text.indexOf(from); i >= 0; i = text.indexOf(from, i + 1)) hits.push(i);
      if (hits.length === 0) return bytes;
      const at = hits[m.at % hits.length]!;
      return new TextEncoder().encode(text.slice(0, at) + to + text.slice(at + from.length));
    }
    case "lines": {
      const ls = lines.slice();
      const a = m.a % ls.length, b = m.b % ls.length;
      if (m.how === 0) [ls[a], ls[b]] = [ls[b]!, ls[a]!];
      else if (m.how === 1) ls.splice(a, 1);
      else ls.splice(a, 0, ls[b]!);
      return encode(ls);
    }
  }
}
type MutationT =
  | { op: "flip"; at: number; mask: number }
  | { op: "splice"; at: number; del: number; ins: Uint8Array }
  | { op: "rewrite"; which: number; at: number }
  | { op: "lines"; a: number; b: number; how: number };

Deno.test("verifyLogBytes() agrees with a reference verifier on valid logs (property)", async () => {
  const wasm = await createHashWasmSha256();
  fc.assert(
    fc.property(fc.array(entry, { minLength: 0, maxLength: 5 }), fc.string(), (entries, torn) => {
      const lines = frame(entries);
      const bytes = encode(lines);
      assertAgree(bytes);
      assertAgree(bytes, wasm);
      const got = verifyLogBytes(bytes);
      assert.equal(got.status, "ok");
      // the fast path builds records field by field: equal to the parsed lines
      assert.deepEqual(got.records, lines.map((l) => JSON.parse(l)));
      if (!torn.includes("\n")) assertAgree(encode(lines, torn));
    }),
    { numRuns: 200 },
  );
});

Deno.test("verifyLogBytes() agrees with a reference verifier on mutated logs (property)", () => {
  let caught = 0;
  fc.assert(
    fc.property(fc.array(entry, { minLength: 1, maxLength: 4 }), mutation, (entries, m) => {
      const bytes = mutate(frame(entries), m);
      assertAgree(bytes);
      if (verifyLogBytes(bytes).status === "tampered") caught++;
    }),
    { numRuns: 300 },
  );
  assert.ok(caught > 100, `only ${caught} mutated logs were tampered`);
});

Deno.test("verifyLogBytes() slow paths: integer-like keys, escapes, BOM, lone surrogates", () => {
  const lines = frame([
    { task: null, kind: "demo", body: { "10": 1, "9": 2, b: "\u0001\u2028" } },
    { task: "t1", kind: "demo", body: ["\u{1F600}", { "\u{1F600}": 1, "\uFFFD": 2 }] },
  ]);
  assert.ok(lines[0]!.includes('{"10":1,"9":2,"b":"\\u0001\u2028"}'));
  assertAgree(encode(lines));
  assert.equal(verifyLogBytes(encode(lines)).status, "ok");
  // a byte order mark before the first line is not canonical JSON
  const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...encode(lines)]);
  const r = verifyLogBytes(bom);
  assert.equal(r.status === "tampered" && r.issue.line, 1);
  assertAgree(bom);
  // RFC 8785 forbids lone surrogates: neither framed nor accepted
  assert.throws(() => frame([{ task: null, kind: "demo", body: "\ud800" }]));
  const lone = lines[1]!.replace("\u{1F600}", "\\ud83d");
  assertAgree(encode([lines[0]!, lone]));
  assert.equal(verifyLogBytes(encode([lines[0]!, lone])).status, "tampered");
});

/** A one-record log whose line uses `bodyJson` verbatim, hashed the way the fast path hashes. */
function forgedLine(
  bodyJson: string,
  rest = `,"kind":"demo","prev":"${GENESIS_HASH}","seq":1,"task":null,"ts":1,"v":1}`,
): Uint8Array {
  const unhashed = `{"body":${bodyJson}${rest}`;
  const hash = createHash("sha256").update(LOG_HASH_DOMAIN + unhashed).digest("hex");
  return new TextEncoder().encode(`{"body":${bodyJson},"hash":"${hash}"${rest}\n`);
}

Deno.test("self-consistently hashed lines are accepted only when canonical (property)", () => {
  let accepted = 0;
  let rejected = 0;
  const text = fc.oneof(
    body.map((b) => JSON.stringify(b)),
    fc.string({ unit: "binary", maxLength: 6 }).map((t) => JSON.stringify([t])),
    fc.tuple(body, fc.nat(), fc.nat()).map(([b, which, at]) => {
      const json = JSON.stringify(b) ?? "null";
      const [from, to] = REWRITES[which % REWRITES.length]!;
      const i = json.indexOf(from, at % (json.length + 1));
      return i < 0 ? json : json.slice(0, i) + to + json.slice(i + from.length);
    }),
  );
  fc.assert(
    fc.property(text, (json) => {
      if (json === undefined) return;
      const bytes = forgedLine(json);
      assertAgree(bytes);
      if (verifyLogBytes(bytes).status === "ok") accepted++;
      else rejected++;
    }),
    { numRuns: 300 },
  );
  assert.ok(accepted > 30 && rejected > 30, `accepted ${accepted}, rejected ${rejected}`);
  // explicit cases: canonical, a lone surrogate, top-level keys out of order
  assert.equal(verifyLogBytes(forgedLine('{"a":[1,"\\u0001"]}')).status, "ok");
  for (
    const bytes of [
      forgedLine('"\\ud800"'),
      forgedLine('{"b":1,"a":2}'),
      forgedLine("1", `,"prev":"${GENESIS_HASH}","kind":"demo","seq":1,"task":null,"ts":1,"v":1}`),
      forgedLine("1", `,"kind":"demo","prev":"${GENESIS_HASH}","seq":1,"task":null,"v":1,"ts":1}`),
    ]
  ) {
    assertAgree(bytes);
    assert.equal(verifyLogBytes(bytes).status, "tampered");
  }
});

Deno.test("the fast path's tail matcher accepts exactly the canonical, schema-valid tails", () => {
  const z = GENESIS_HASH;
  const tail = (seq: string, task: string, ts: string, kind = "demo", v = "1") =>
    `,"kind":"${kind}","prev":"${z}","seq":${seq},"task":${task},"ts":${ts},"v":${v}}`;
  const good = [
    tail("1", "null", "0"),
    tail("1", '"T-9.x:y"', "1764460800000"),
    tail("1", `"${"a".repeat(128)}"`, "9007199254740991", `k${"-".repeat(63)}`),
  ];
  for (const rest of good) {
    const bytes = forgedLine('{"a":1}', rest);
    assertAgree(bytes);
    assert.equal(verifyLogBytes(bytes).status, "ok", rest);
  }
  const bad = [
    tail("01", "null", "0"),
    tail("1", "null", "01"),
    tail("1", "null", "-0"),
    tail("1", "null", "-1"),
    tail("1.0", "null", "0"),
    tail("1", "null", "1e3"),
    tail("1", "null", "9007199254740992"),
    tail("0", "null", "0"),
    tail("1", '""', "0"),
    tail("1", '"-a"', "0"),
    tail("1", '"a b"', "0"),
    tail("1", `"${"a".repeat(129)}"`, "0"),
    tail("1", "null", "0", "Demo"),
    tail("1", "null", "0", `k${"a".repeat(64)}`),
    tail("1", "null", "0", "demo", "1.0"),
    tail("1", "null", "0", "demo", "2"),
    tail("1", "nul", "0"),
    tail("1", "null", "0") + " ",
    tail("1", "null", "0").replace(z, "A".repeat(64)),
    tail("1", "null", "0").replace(`"seq":1,`, `"seq":1,"seq":1,`),
    tail("1", "null", "0").replace(`,"ts":0`, ""),
  ];
  for (const rest of bad) {
    const bytes = forgedLine('{"a":1}', rest);
    assertAgree(bytes);
    assert.equal(verifyLogBytes(bytes).status, "tampered", rest);
  }
  // seq 0 is a schema error on its own, not only a gap in a chain
  const line = new TextDecoder().decode(forgedLine("1", tail("0", "null", "0"))).trimEnd();
  assert.throws(
    () => parseRecordLine(line),
    (e) => e instanceof EventLogError && e.code === "schema",
  );
});
