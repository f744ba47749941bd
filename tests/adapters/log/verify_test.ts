import assert from "node:assert/strict";
import { GENESIS_HASH, verifyLogBytes } from "../../../adapters/log/mod.ts";
import { frameRecord } from "../../../adapters/log/record.ts";
import { buildLog, toBytes } from "./_helpers.ts";

Deno.test("verifyLogBytes() accepts an intact log and an empty file", () => {
  const { lines, records } = buildLog(6);
  const r = verifyLogBytes(toBytes(lines));
  assert.equal(r.status, "ok");
  assert.deepEqual(r.records, records);
  assert.deepEqual(r.head, { seq: 6, hash: records[5]!.hash });
  assert.equal(verifyLogBytes(new Uint8Array()).status, "ok");
});

Deno.test("verifyLogBytes() detects a single-byte flip at every offset", () => {
  const { lines } = buildLog(4);
  const bytes = toBytes(lines);
  const flips = [0x01, 0x20, 0x80];
  let checked = 0;
  for (let off = 0; off < bytes.length; off++) {
    for (const mask of flips) {
      const copy = bytes.slice();
      copy[off] = copy[off]! ^ mask;
      const r = verifyLogBytes(copy);
      assert.notEqual(r.status, "ok", `flip ${mask} at offset ${off} went unnoticed`);
      checked++;
    }
  }
  assert.equal(checked, bytes.length * flips.length);
});

Deno.test("verifyLogBytes() reports deleted, reordered, inserted and duplicated lines", () => {
  const { lines } = buildLog(5);
  const expect = (ls: string[], reason: string, seq: number | null, line: number) => {
    const r = verifyLogBytes(toBytes(ls));
    assert.equal(r.status, "tampered");
    if (r.status !== "tampered") return;
    assert.equal(r.issue.reason, reason);
    assert.equal(r.issue.seq, seq);
    assert.equal(r.issue.line, line);
  };
  // deleted middle line
  expect([lines[0]!, lines[1]!, lines[3]!, lines[4]!], "seq_gap", 4, 3);
  // deleted first line
  expect(lines.slice(1), "seq_gap", 2, 1);
  // reordered
  expect([lines[0]!, lines[2]!, lines[1]!, lines[3]!], "seq_gap", 3, 2);
  // duplicated
  expect([lines[0]!, lines[1]!, lines[1]!], "seq_gap", 2, 3);
  // inserted foreign record with the right seq but its own chain
  const foreign = frameRecord({ seq: 2, hash: GENESIS_HASH }, { kind: "evil", body: 1 }, 0).line;
  expect([lines[0]!, lines[1]!, foreign, lines[3]!], "broken_link", 3, 3);
  // blank line in the middle
  expect([lines[0]!, "", lines[1]!], "not_json", null, 2);
});

Deno.test("verifyLogBytes() treats a final line without newline as torn, not tampered", () => {
  const { lines } = buildLog(3);
  const bytes = toBytes(lines);
  for (let cut = 1; cut <= lines[2]!.length + 1; cut++) {
    const r = verifyLogBytes(bytes.subarray(0, bytes.length - cut));
    if (cut === lines[2]!.length + 1) {
      assert.equal(r.status, "ok"); // whole line gone: only anchors can tell
      continue;
    }
    assert.equal(r.status, "torn");
    if (r.status === "torn") {
      assert.equal(r.head.seq, 2);
      assert.equal(r.tornBytes, lines[2]!.length + 1 - cut);
    }
  }
});

Deno.test("verifyLogBytes() checks an expected head", () => {
  const { lines, records } = buildLog(4);
  const bytes = toBytes(lines);
  const good = verifyLogBytes(bytes, { expectHead: { seq: 3, hash: records[2]!.hash } });
  assert.equal(good.status, "ok");
  const bad = verifyLogBytes(bytes, { expectHead: { seq: 3, hash: records[1]!.hash } });
  assert.equal(bad.status, "tampered");
  const truncated = verifyLogBytes(toBytes(lines.slice(0, 2)), {
    expectHead: { seq: 4, hash: records[3]!.hash },
  });
  assert.equal(truncated.status === "tampered" && truncated.issue.reason, "head_mismatch");
});

Deno.test("verifyLogBytes() reports invalid UTF-8 as not_json with its line", () => {
  const { lines } = buildLog(3);
  const bytes = toBytes(lines);
  const copy = bytes.slice();
  copy[lines[0]!.length + 5] = 0xff;
  const r = verifyLogBytes(copy);
  assert.equal(r.status === "tampered" && r.issue.line, 2);
});
