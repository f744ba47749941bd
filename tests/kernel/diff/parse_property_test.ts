/**
 * Property tests: generated valid git diffs round-trip through the parser;
 * arbitrary and mutated bytes only ever fail with DiffParseError and respect
 * the line budget; the UTF-8 decoder matches TextDecoder.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  DiffParseError,
  type DiffStatus,
  parseGitDiff,
  tryParseGitDiff,
} from "../../../kernel/diff/mod.ts";
import { decodeUtf8 } from "../../../kernel/text/utf8.ts";
import { scanHunkBody } from "../../../kernel/diff/scan.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

interface GenLine {
  kind: "context" | "added" | "deleted";
  text: string;
}
interface GenHunk {
  oldStart: number;
  newStart: number;
  lines: GenLine[];
  noNewline: boolean;
}
interface GenFile {
  status: DiffStatus;
  oldName: string;
  newName: string;
  mode: "100644" | "100755" | "120000";
  hunks: GenHunk[];
}

const component = fc.oneof(
  fc.stringMatching(/^[a-z0-9_.-]{1,8}$/).filter((s) => s !== "." && s !== ".."),
  fc.constantFrom("with space", "tab\there", 'q"uote', "back\\slash", "ünï", "日本", "a b c"),
);
const pathArb = fc.array(component, { minLength: 1, maxLength: 3 }).map((c) => c.join("/"));

const lineText = fc.oneof(
  fc.string({ maxLength: 12 }).map((s) => s.replaceAll("\n", "")),
  fc.constantFrom("", "diff --git a/x b/x", "+++ b/x", "--- a/x", "@@ -1 +1 @@", "x\r", "\u2028"),
);

const hunkArb = (kinds: readonly GenLine["kind"][]): fc.Arbitrary<GenHunk> =>
  fc.record({
    oldStart: fc.integer({ min: 1, max: 5000 }),
    newStart: fc.integer({ min: 1, max: 5000 }),
    lines: fc.array(fc.record({ kind: fc.constantFrom(...kinds), text: lineText }), {
      minLength: 1,
      maxLength: 12,
    }).filter((ls) => ls.some((l) => l.kind !== "context")),
    noNewline: fc.boolean(),
  });

const fileArb: fc.Arbitrary<GenFile> = fc.oneof(
  fc.record({
    status: fc.constant<DiffStatus>("modified"),
    oldName: pathArb,
    mode: fc.constantFrom("100644", "100755", "120000"),
    hunks: fc.array(hunkArb(["context", "added", "deleted"]), { minLength: 1, maxLength: 3 }),
  }).map((f) => ({ ...f, newName: f.oldName })),
  fc.record({
    status: fc.constant<DiffStatus>("added"),
    oldName: pathArb,
    mode: fc.constantFrom("100644", "100755", "120000"),
    hunks: hunkArb(["added"]).map((h) => [{ ...h, oldStart: 0, newStart: 1 }]),
  }).map((f) => ({ ...f, newName: f.oldName })),
  fc.record({
    status: fc.constant<DiffStatus>("deleted"),
    oldName: pathArb,
    mode: fc.constantFrom("100644", "100755"),
    hunks: hunkArb(["deleted"]).map((h) => [{ ...h, oldStart: 1, newStart: 0 }]),
  }).map((f) => ({ ...f, newName: f.oldName })),
  fc.record({
    status: fc.constantFrom<DiffStatus>("renamed", "copied"),
    oldName: pathArb,
    newName: pathArb,
    mode: fc.constant("100644" as const),
    hunks: fc.array(hunkArb(["context", "added", "deleted"]), { maxLength: 2 }),
  }).filter((f) => f.oldName !== f.newName),
  fc.record({
    status: fc.constant<DiffStatus>("mode-only"),
    oldName: pathArb,
    mode: fc.constant("100755" as const),
    hunks: fc.constant<GenHunk[]>([]),
  }).map((f) => ({ ...f, newName: f.oldName })),
);

/** git's quoting of a whole `a/<name>` token (quote.c, quotePath=true). */
function quote(prefixed: string): string {
  const bytes = enc.encode(prefixed);
  const esc: Record<number, string> = { 9: "\\t", 10: "\\n", 13: "\\r", 0x22: '\\"', 0x5c: "\\\\" };
  let out = "";
  let needs = false;
  for (const b of bytes) {
    if (esc[b] !== undefined) {
      out += esc[b];
      needs = true;
    } else if (b < 0x20 || b >= 0x7f) {
      out += "\\" + b.toString(8).padStart(3, "0");
      needs = true;
    } else out += String.fromCharCode(b);
  }
  return needs ? `"${out}"` : out;
}

const marker = (prefixed: string) => {
  const q = quote(prefixed);
  return q.startsWith('"') || !prefixed.includes(" ") ? q : q + "\t";
};

function render(files: readonly GenFile[]): string {
  let out = "";
  for (const f of files) {
    out += `diff --git ${quote("a/" + f.oldName)} ${quote("b/" + f.newName)}\n`;
    if (f.status === "added") out += `new file mode ${f.mode}\nindex 0000000..1234567\n`;
    else if (f.status === "deleted") out += `deleted file mode ${f.mode}\nindex 1234567..0000000\n`;
    else if (f.status === "mode-only") out += "old mode 100644\nnew mode 100755\n";
    else if (f.status === "renamed" || f.status === "copied") {
      const word = f.status === "renamed" ? "rename" : "copy";
      out += `similarity index 77%\n${word} from ${quote(f.oldName)}\n${word} to ${
        quote(f.newName)
      }\n`;
      if (f.hunks.length > 0) out += `index 1234567..89abcde ${f.mode}\n`;
    } else out += `index 1234567..89abcde ${f.mode}\n`;
    if (f.hunks.length === 0) continue;
    out += `--- ${f.status === "added" ? "/dev/null" : marker("a/" + f.oldName)}\n`;
    out += `+++ ${f.status === "deleted" ? "/dev/null" : marker("b/" + f.newName)}\n`;
    for (const h of f.hunks) {
      const oldLines = h.lines.filter((l) => l.kind !== "added").length;
      const newLines = h.lines.filter((l) => l.kind !== "deleted").length;
      const range = (start: number, n: number) => (n === 1 ? `${start}` : `${start},${n}`);
      out += `@@ -${range(oldLines === 0 ? 0 : h.oldStart, oldLines)} +${
        range(newLines === 0 ? 0 : h.newStart, newLines)
      } @@\n`;
      for (const l of h.lines) {
        out += (l.kind === "context" ? " " : l.kind === "added" ? "+" : "-") + l.text + "\n";
      }
      if (h.noNewline) out += "\\ No newline at end of file\n";
    }
  }
  return out;
}

Deno.test("generated git diffs round-trip through the parser", () => {
  fc.assert(
    fc.property(fc.array(fileArb, { minLength: 1, maxLength: 4 }), (files) => {
      const parsed = parseGitDiff(enc.encode(render(files))).files;
      assert.equal(parsed.length, files.length);
      files.forEach((g, i) => {
        const p = parsed[i]!;
        assert.equal(p.status, g.status);
        assert.equal(p.oldPath, g.status === "added" ? null : g.oldName);
        assert.equal(p.newPath, g.status === "deleted" ? null : g.newName);
        const lines = g.hunks.flatMap((h) => h.lines);
        assert.equal(p.additions, lines.filter((l) => l.kind === "added").length);
        assert.equal(p.deletions, lines.filter((l) => l.kind === "deleted").length);
        assert.equal(p.hunks.length, g.hunks.length);
        g.hunks.forEach((gh, k) => {
          const got = p.hunks[k]!.lines();
          assert.deepEqual(
            got.map((l) => [l.kind, dec.decode(l.content), l.noNewlineAtEnd]),
            gh.lines.map((l, n) => [l.kind, l.text, gh.noNewline && n === gh.lines.length - 1]),
          );
        });
        if (g.status !== "mode-only" && g.hunks.length > 0) {
          assert.equal(p.isSymlink, g.mode === "120000");
        }
      });
    }),
    { numRuns: 200 },
  );
});

function lineCount(bytes: Uint8Array): number {
  let n = 0;
  for (const b of bytes) if (b === 10) n++;
  return bytes.length > 0 && bytes[bytes.length - 1] !== 10 ? n + 1 : n;
}

function outcome(bytes: Uint8Array, maxLines: number): string {
  try {
    parseGitDiff(bytes, { maxLines, maxBytes: 1 << 16 });
    return "ok";
  } catch (error) {
    if (error instanceof DiffParseError) return error.code;
    throw error; // anything else fails the property
  }
}

Deno.test("arbitrary bytes: only DiffParseError, and the line budget holds", () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: 400 }),
      fc.integer({ min: 1, max: 40 }),
      (bytes, max) => {
        const result = outcome(bytes, max);
        if (lineCount(bytes) > max + 1) assert.notEqual(result, "ok");
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("mutated valid diffs: only DiffParseError, never a wrong success shape", () => {
  const mutation = fc.record({
    at: fc.nat(),
    kind: fc.constantFrom("flip", "cut", "dup", "insert"),
    byte: fc.constantFrom(0x0a, 0x0d, 0x20, 0x2b, 0x2d, 0x40, 0x5c, 0x22, 0x00, 0x2f, 0x09, 0xe2),
  });
  fc.assert(
    fc.property(
      fc.array(fileArb, { minLength: 1, maxLength: 3 }),
      fc.array(mutation, { maxLength: 3 }),
      (files, muts) => {
        let bytes = enc.encode(render(files));
        for (const m of muts) {
          const at = bytes.length === 0 ? 0 : m.at % bytes.length;
          if (m.kind === "flip") {
            bytes = bytes.slice();
            bytes[at] = m.byte;
          } else if (m.kind === "cut") bytes = bytes.slice(0, at);
          else if (m.kind === "dup") {
            const end = bytes.indexOf(10, at);
            const stop = end < 0 ? bytes.length : end + 1;
            bytes = new Uint8Array([
              ...bytes.slice(0, stop),
              ...bytes.slice(at, stop),
              ...bytes.slice(stop),
            ]);
          } else bytes = new Uint8Array([...bytes.slice(0, at), m.byte, ...bytes.slice(at)]);
        }
        const result = tryParseGitDiff(bytes);
        if (result.ok) {
          for (const f of result.diff.files) {
            for (const h of f.hunks) {
              const lines = h.lines();
              assert.equal(lines.filter((l) => l.kind === "added").length, h.additions);
              assert.equal(lines.filter((l) => l.kind !== "added").length, h.oldLines);
              assert.equal(lines.filter((l) => l.kind !== "deleted").length, h.newLines);
            }
          }
        }
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("decodeUtf8 matches TextDecoder on arbitrary bytes", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
      assert.equal(decodeUtf8(bytes), dec.decode(bytes));
    }),
    { numRuns: 500 },
  );
  const utf8 = fc.string({ unit: "binary", maxLength: 30 });
  fc.assert(
    fc.property(utf8, (s) => assert.equal(decodeUtf8(enc.encode(s)), dec.decode(enc.encode(s)))),
  );
});

Deno.test("the word-at-a-time LF search equals the byte loop", () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: 200 }).map((b) => b.map((x) => (x % 3 === 0 ? 10 : x))),
      fc.nat(200),
      fc.nat(20),
      fc.nat(20),
      (bytes, startSeed, oldLines, newLines) => {
        const start = startSeed % (bytes.length + 1);
        const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        assert.deepEqual(
          scanHunkBody(bytes, start, oldLines, newLines, view),
          scanHunkBody(bytes, start, oldLines, newLines, null),
        );
      },
    ),
    { numRuns: 300 },
  );
});
