/**
 * The WASM hunk scanner must agree with the TypeScript specification
 * (`kernel/diff/scan.ts`) on every input, and the parser must produce the same
 * model with either.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { parseGitDiff, scanHunkBody, tryParseGitDiff } from "../../kernel/diff/mod.ts";
import { createWasmDiffScanner } from "../../wasm/mod.ts";

const wasm = createWasmDiffScanner();
const enc = new TextEncoder();

/** Lines made from the bytes that matter to the scanner. */
const hunkish = fc.array(
  fc.oneof(
    fc.constantFrom("+", "-", " ", "", "\\ No newline at end of file", "\\ x", "@@ -1 +1 @@", "x"),
    fc.string({ maxLength: 20 }).map((s) => "+" + s),
    fc.string({ maxLength: 20 }).map((s) => " " + s),
    fc.string({ maxLength: 30 }),
  ),
  { maxLength: 40 },
).chain((lines) =>
  fc.record({
    text: fc.constant(lines.join("\n")),
    trailingLf: fc.boolean(),
  })
).map(({ text, trailingLf }) => enc.encode(trailingLf ? text + "\n" : text));

function scanBoth(bytes: Uint8Array, start: number, oldLines: number, newLines: number) {
  const session = wasm.begin(bytes);
  try {
    return {
      wasm: session.scanHunk(start, oldLines, newLines),
      ts: scanHunkBody(bytes, start, oldLines, newLines),
    };
  } finally {
    session.end();
  }
}

Deno.test("wasm scanner equals the TS scanner on hunk-shaped inputs", () => {
  fc.assert(
    fc.property(
      hunkish,
      fc.nat(50),
      fc.nat(30),
      fc.nat(30),
      (bytes, startSeed, oldLines, newLines) => {
        const start = bytes.length === 0 ? 0 : startSeed % (bytes.length + 1);
        const { wasm, ts } = scanBoth(bytes, start, oldLines, newLines);
        assert.deepEqual({ ...wasm }, { ...ts });
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("wasm scanner equals the TS scanner on arbitrary bytes", () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: 300 }),
      fc.nat(300),
      fc.nat(40),
      fc.nat(40),
      (bytes, startSeed, oldLines, newLines) => {
        const start = startSeed % (bytes.length + 1);
        const { wasm, ts } = scanBoth(bytes, start, oldLines, newLines);
        assert.deepEqual({ ...wasm }, { ...ts });
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("parser gives the same model with the WASM scanner on real diffs", async () => {
  const root = new URL("../../", import.meta.url);
  const out = await new Deno.Command("git", {
    args: ["log", "-p", "--full-index", "--binary", "-M", "--max-count=200"],
    cwd: root,
    stdout: "piped",
    stderr: "null",
  }).output();
  assert.ok(out.success);
  const summary = (bytes: Uint8Array, useWasm: boolean) =>
    parseGitDiff(bytes, useWasm ? { scanner: wasm } : {}).files.map((f) => ({
      path: f.newPath ?? f.oldPath,
      status: f.status,
      additions: f.additions,
      deletions: f.deletions,
      hunks: f.hunks.map((h) => [h.bodyStart, h.bodyEnd, h.additions, h.deletions]),
    }));
  const ts = summary(out.stdout, false);
  assert.ok(ts.length > 0);
  assert.deepEqual(summary(out.stdout, true), ts);
});

Deno.test("parser fails identically with either scanner on mutated real diffs", () => {
  const base = enc.encode(
    "diff --git a/x b/x\nindex 1234567..89abcde 100644\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n d\n\\ No newline at end of file\n",
  );
  fc.assert(
    fc.property(fc.nat(base.length - 1), fc.integer({ min: 0, max: 255 }), (at, byte) => {
      const bytes = base.slice();
      bytes[at] = byte;
      const viaTs = tryParseGitDiff(bytes);
      const viaWasm = tryParseGitDiff(bytes, { scanner: wasm });
      assert.equal(viaWasm.ok, viaTs.ok);
      if (!viaTs.ok && !viaWasm.ok) {
        assert.deepEqual([viaWasm.error.code, viaWasm.error.line], [
          viaTs.error.code,
          viaTs.error.line,
        ]);
      }
    }),
    { numRuns: 300 },
  );
});
