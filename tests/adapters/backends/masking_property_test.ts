import assert from "node:assert/strict";
import fc from "fast-check";
import { maskSecrets } from "../../../adapters/backends/transcript.ts";
import { readClaims } from "../../../adapters/backends/command_backend.ts";

const alnum = fc.string({
  unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"),
  minLength: 36,
  maxLength: 48,
});
const upper = fc.string({
  unit: fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"),
  minLength: 16,
  maxLength: 16,
});
const secret = fc.oneof(
  alnum.map((s) => `ghp_${s}`),
  alnum.map((s) => `github_pat_${s}`),
  alnum.map((s) => `sk-ant-${s}`),
  alnum.map((s) => `npm_${s}`),
  upper.map((s) => `AKIA${s}`),
  alnum.map((s) => `xoxb-${s}`),
);
const filler = fc.string({ maxLength: 40 }).map((s) => s.replace(/[A-Za-z0-9_-]$/, ""));

Deno.test("maskSecrets: an embedded token never survives, and masking is idempotent (property)", () => {
  fc.assert(
    fc.property(filler, secret, filler, (before, token, after) => {
      const text = `${before} ${token} ${after}`;
      const once = maskSecrets(text);
      assert.ok(!once.text.includes(token), once.text);
      assert.ok(once.masked >= 1);
      const twice = maskSecrets(once.text);
      assert.equal(twice.text, once.text);
    }),
    { numRuns: 300 },
  );
});

Deno.test("readClaims: arbitrary stdout never throws and only schema-valid objects become claims (property)", () => {
  fc.assert(
    fc.property(fc.array(fc.oneof(fc.string(), fc.json()), { maxLength: 6 }), (texts) => {
      const lines = texts.map((text, i) => ({
        number: i + 1,
        text,
        tooLong: false,
        unterminated: false,
      }));
      const r = readClaims(lines);
      if (r.kind === "claims") {
        const last = [...texts].reverse().find((t) => t.trim().startsWith("{"))!;
        assert.equal(typeof JSON.parse(last), "object");
      }
    }),
    { numRuns: 300 },
  );
});
