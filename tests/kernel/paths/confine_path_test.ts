import assert from "node:assert/strict";
import fc from "fast-check";
import {
  confinePath,
  PATH_REJECTION_CODES,
  pathKey,
  stripIgnorables,
} from "../../../kernel/paths/mod.ts";
import { decodeUtf8Strict } from "../../../kernel/text/mod.ts";

const REJECT: readonly [string, string][] = [
  ["", "empty"],
  ["a\0b", "nul_byte"],
  ["a\nb", "control_char"],
  ["a\rb", "control_char"],
  ["a\x7fb", "control_char"],
  ["a\u0085b", "control_char"],
  ["a\u2028b", "control_char"],
  ["/etc/passwd", "absolute"],
  ["\\x", "absolute"],
  ["//x", "unc_path"],
  ["\\\\srv\\share", "unc_path"],
  ["\\\\?\\C:\\x", "unc_path"],
  ["-rf", "option_like"],
  ["--upload-pack=x", "option_like"],
  ["!important.txt", "option_like"],
  ["C:x", "drive_letter"],
  ["c:/x", "drive_letter"],
  ["a:b", "drive_letter"],
  ["src/a:b", "colon"],
  ["x/.git::$INDEX_ALLOCATION", "colon"],
  ["a\\b", "backslash"],
  [".github\\workflows\\x", "backslash"],
  ["a//b", "empty_component"],
  ["./x", "dot_component"],
  ["a/./b", "dot_component"],
  ["../x", "dotdot_component"],
  ["a/../../z", "dotdot_component"],
  ["..", "dotdot_component"],
  ["x/", "trailing_slash"],
  ["foo.", "trailing_dot_or_space"],
  ["foo ", "trailing_dot_or_space"],
  ["COM1 ", "trailing_dot_or_space"],
  ["PRN./abc", "trailing_dot_or_space"],
  ["win32.", "trailing_dot_or_space"],
  ["hello.txt. . .", "trailing_dot_or_space"],
  [".github./x", "trailing_dot_or_space"],
  ["GITHUB~1/x", "short_name"],
  ["GITMOD~1", "short_name"],
  ["foo~12.txt", "short_name"],
  ["NUL", "device_name"],
  ["Nul", "device_name"],
  ["con.txt", "device_name"],
  ["con.tar.gz", "device_name"],
  ["src/aux.c", "device_name"],
  ["lpt8", "device_name"],
  ["com9.c", "device_name"],
  ["com0.c", "device_name"],
  ["com\u00b9", "device_name"],
  ["LPT\u00b3.txt", "device_name"],
  ["CONIN$", "device_name"],
  ["conout$.log", "device_name"],
  ["con .txt", "device_name"],
  [".git", "dot_git"],
  [".git/config", "dot_git"],
  ["sub/.GIT/hooks/pre-commit", "dot_git"],
  [".Git", "dot_git"],
  [".git.", "dot_git"],
  [".git ", "dot_git"],
  [".git . .", "dot_git"],
  ["git~1/config", "dot_git"],
  ["GIT~1", "dot_git"],
  [".g\u200cit/config", "dot_git"],
  ["\u200c.Git", "dot_git"],
  [".gI\u200cT", "dot_git"],
  [".git\ufeff", "dot_git"],
  [".\u206agit\u202e", "dot_git"],
  ["x".repeat(256), "component_too_long"],
  ["\u00e9".repeat(128), "component_too_long"],
  [("a".repeat(200) + "/").repeat(21) + "b", "path_too_long"],
  ["a\ud800b", "invalid_utf8"],
  ["a\udc00", "invalid_utf8"],
];

const ACCEPT: readonly string[] = [
  "a",
  "src/main.ts",
  ".gitignore",
  ".gitmodules",
  ".github/workflows/ci.yml",
  ".gitx",
  "git",
  "a.git",
  "conout.c",
  "console.log",
  "com10",
  "lpt",
  "auxiliary/x",
  "file~",
  "a~b",
  "~x",
  "...x",
  "a b/c d.txt",
  "caf\u00e9/\u{1F600}.md",
  "x".repeat(255),
  ("a".repeat(200) + "/").repeat(20) + "b",
  "$(id)",
  ";id;.txt",
  "src/-rf",
  "a/!b",
];

Deno.test("confinePath rejects every hostile vector with its stable code", () => {
  for (const [raw, code] of REJECT) {
    const result = confinePath(raw);
    assert.equal(result.ok, false, `accepted ${JSON.stringify(raw)}`);
    if (!result.ok) {
      assert.equal(result.code, code, `code for ${JSON.stringify(raw)}: ${result.detail}`);
      assert.ok(result.detail.length > 0);
    }
  }
});

Deno.test("confinePath accepts ordinary names unchanged", () => {
  for (const raw of ACCEPT) {
    assert.deepEqual(confinePath(raw), { ok: true, path: raw }, JSON.stringify(raw));
  }
});

Deno.test("confinePath decodes bytes strictly", () => {
  const enc = new TextEncoder();
  assert.deepEqual(confinePath(enc.encode("caf\u00e9")), { ok: true, path: "caf\u00e9" });
  for (
    const bytes of [
      [0xff],
      [0x61, 0xc3],
      [0xc0, 0xaf],
      [0xe0, 0x80, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0x80],
    ]
  ) {
    const r = confinePath(new Uint8Array(bytes));
    assert.equal(r.ok ? "ok" : r.code, "invalid_utf8", bytes.join(","));
  }
  const long = new Uint8Array(5000).fill(0x61);
  const r = confinePath(long);
  assert.equal(r.ok ? "ok" : r.code, "path_too_long");
});

Deno.test("every code constant is a distinct snake_case string", () => {
  const values = Object.values(PATH_REJECTION_CODES);
  assert.equal(new Set(values).size, values.length);
  for (const v of values) assert.match(v, /^[a-z0-9_]+$/);
});

Deno.test("property: confinePath never throws and accepted paths re-confine to themselves", () => {
  const segment = fc.oneof(
    fc.constantFrom("a", "b", ".", "..", "", ".git", "GIT~1", "con", "x.", "x ", "\u200c", "\\"),
    fc.string({ maxLength: 6 }),
    fc.string({ unit: "binary", maxLength: 6 }),
  );
  const path = fc.oneof(
    fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => s.join("/")),
    fc.string({ unit: "binary", maxLength: 40 }),
  );
  fc.assert(
    fc.property(path, (raw) => {
      const r = confinePath(raw);
      if (!r.ok) {
        assert.ok(Object.values(PATH_REJECTION_CODES).includes(r.code));
        return;
      }
      assert.equal(r.path, raw);
      assert.deepEqual(confinePath(r.path), r);
      assert.deepEqual(confinePath(new TextEncoder().encode(r.path)), r);
      for (const c of r.path.split("/")) {
        assert.ok(c !== "" && c !== "." && c !== "..", `bad component in ${raw}`);
        assert.notEqual(stripIgnorables(c).toLowerCase().replace(/[. ]+$/, ""), ".git");
      }
    }),
    { numRuns: 2000 },
  );
});

Deno.test("property: confinePath on arbitrary bytes never throws", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
      const r = confinePath(bytes);
      if (r.ok) assert.deepEqual(new TextEncoder().encode(r.path), bytes);
    }),
    { numRuns: 2000 },
  );
});

Deno.test("property: decodeUtf8Strict agrees with a fatal TextDecoder", () => {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const bytes = fc.oneof(
    fc.uint8Array({ maxLength: 16 }),
    fc.string({ unit: "grapheme", maxLength: 8 }).map((s) => new TextEncoder().encode(s)),
  );
  fc.assert(
    fc.property(bytes, (b) => {
      let expected: string | null;
      try {
        expected = decoder.decode(b);
      } catch {
        expected = null;
      }
      assert.equal(decodeUtf8Strict(b), expected);
    }),
    { numRuns: 3000 },
  );
});

Deno.test("pathKey folds case, NFC and HFS-ignorable code points", () => {
  assert.equal(pathKey("README.md"), "readme.md");
  assert.equal(pathKey("caf\u00e9"), pathKey("cafe\u0301"));
  assert.equal(pathKey(".Git\u200cHub/workflows/X.yml"), ".github/workflows/x.yml");
  assert.equal(pathKey("Stra\u00dfe"), pathKey("STRASSE"));
  assert.notEqual(pathKey("a"), pathKey("b"));
});

Deno.test("property: pathKey is idempotent and case-insensitive", () => {
  fc.assert(
    fc.property(fc.string({ unit: "grapheme", maxLength: 12 }), (s) => {
      const k = pathKey(s);
      assert.equal(pathKey(k), k);
      assert.equal(pathKey(s.toUpperCase()), pathKey(s.toLowerCase()));
    }),
    { numRuns: 1000 },
  );
});

Deno.test("pathKey is idempotent and case-blind on every BMP character", () => {
  const bad: string[] = [];
  for (let c = 0; c < 0x10000; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    const s = "a" + String.fromCharCode(c);
    const k = pathKey(s);
    if (pathKey(k) !== k || pathKey(s.toUpperCase()) !== pathKey(s.toLowerCase())) {
      bad.push(c.toString(16));
    }
  }
  assert.deepEqual(bad, []);
  assert.equal(pathKey("\u1e9e"), pathKey("ss"));
});
