import assert from "node:assert/strict";
import fc from "fast-check";
import { base85LineLength, decodeBase85Line } from "../../../kernel/diff/base85.ts";

const ALPHABET =
  "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";

/** git's encode_85 for one line, as a reference. */
function encodeLine(data: Uint8Array): Uint8Array {
  const n = data.length;
  let out = String.fromCharCode(n <= 26 ? 0x41 + n - 1 : 0x61 + n - 27);
  for (let i = 0; i < n; i += 4) {
    let acc = 0;
    for (let k = 0; k < 4; k++) acc = acc * 256 + (i + k < n ? data[i + k]! : 0);
    let group = "";
    for (let k = 0; k < 5; k++) {
      group = ALPHABET[acc % 85]! + group;
      acc = Math.floor(acc / 85);
    }
    out += group;
  }
  return Uint8Array.from(out, (c) => c.charCodeAt(0));
}

Deno.test("base85 lines round-trip against a reference encoder", () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 1, maxLength: 52 }), (data) => {
      const line = encodeLine(data);
      const count = base85LineLength(line[0]!);
      assert.equal(count, data.length);
      const out = new Uint8Array(count);
      assert.ok(decodeBase85Line(line, 1, line.length, count, out, 0));
      assert.deepEqual(out, data);
    }),
    { numRuns: 300 },
  );
});

Deno.test("base85 rejects overflow, bad characters, wrong lengths and padding", () => {
  const text = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
  const out = new Uint8Array(4);
  const max = encodeLine(new Uint8Array([255, 255, 255, 255]));
  assert.equal(decodeBase85Line(max, 1, 6, 4, out, 0), true, "0xffffffff fits");
  assert.equal(decodeBase85Line(text("~~~~~"), 0, 5, 4, out, 0), false, "over 32 bits");
  assert.equal(decodeBase85Line(text('0000"'), 0, 5, 4, out, 0), false);
  assert.equal(decodeBase85Line(text("0000"), 0, 4, 4, out, 0), false);
  assert.equal(decodeBase85Line(text("00001"), 0, 5, 3, out, 0), false, "non-zero padding");
  assert.equal(base85LineLength(0x30), 0);
});
