import assert from "node:assert/strict";
import fc from "fast-check";
import {
  buildGlobProgram,
  compileGlobs,
  decideByShortcut,
  GLOB_ERROR_CODES,
  GlobError,
  globShortcut,
  parseGlob,
  runGlobPattern,
} from "../../../kernel/glob/mod.ts";
import { referenceLastMatch, referenceMatchOne } from "./reference_matcher.ts";

const CASES: readonly [string, string, boolean][] = [
  ["*.ts", "a.ts", true],
  ["*.ts", "src/deep/a.ts", true],
  ["*.ts", "src/a.tsx", false],
  ["*.ts", ".ts", true],
  ["*", ".hidden", true],
  ["*", "a/.b/c", true],
  [".*", ".env", true],
  [".*", "a/.env", true],
  ["src/*.ts", "src/a.ts", true],
  ["src/*.ts", "src/x/a.ts", false],
  ["src/*.ts", "lib/src/a.ts", false],
  ["src/*", "src/.env", true],
  ["src/**", "src/x/a.ts", true],
  ["src/**", "src", false],
  ["src/**", "srcx/a", false],
  ["**/foo", "foo", true],
  ["**/foo", "a/b/foo", true],
  ["**/foo", "afoo", false],
  ["**/foo/bar", "x/foo/bar", true],
  ["a/**/b", "a/b", true],
  ["a/**/b", "a/x/y/b", true],
  ["a/**/b", "a/xb", false],
  ["a/**/b", "ab", false],
  ["build/", "build/x", true],
  ["build/", "x/build/y", true],
  ["build/", "build", false],
  ["build", "build", true],
  ["build", "x/build", true],
  ["build", "x/build/y", true],
  ["/build", "x/build", false],
  ["/build", "build/x", true],
  ["doc/frotz/", "doc/frotz/a", true],
  ["doc/frotz/", "a/doc/frotz/b", false],
  ["[a-c]?.js", "b1.js", true],
  ["[!a-c]?.js", "b1.js", false],
  ["[^a-c]?.js", "d1.js", true],
  ["[]]", "]", true],
  ["[!]]", "a", true],
  ["[a-]", "-", true],
  ["a[/]b", "a/b", false],
  ["a?b", "a/b", false],
  ["a*b", "a/b", false],
  ["a\\*b", "a*b", true],
  ["a\\*b", "axb", false],
  ["\\!x", "!x", true],
  ["a**b", "a/b", false],
  ["a**b", "axxb", true],
  [".git*", ".github/workflows/x.yml", true],
  ["caf\u00e9", "x/caf\u00e9", true],
  ["?", "\u{1F600}", true],
  ["??", "\u{1F600}", false],
  ["[\u{1F600}-\u{1F64F}]", "\u{1F610}", true],
  ["**", "anything/at/all", true],
  ["/**", "x", true],
];

Deno.test("glob vectors (gitignore semantics)", () => {
  for (const [pattern, path, expected] of CASES) {
    assert.equal(compileGlobs([pattern]).matches(path), expected, `${pattern} vs ${path}`);
    assert.equal(referenceMatchOne(pattern, path), expected, `reference: ${pattern} vs ${path}`);
  }
});

Deno.test("ordered negation: the last matching pattern decides", () => {
  const set = compileGlobs(["src/**", "!src/gen/", "src/gen/keep.ts"]);
  assert.equal(set.matches("src/a.ts"), true);
  assert.equal(set.matches("src/gen/x.ts"), false);
  assert.equal(set.matches("src/gen/keep.ts"), true);
  assert.equal(set.lastMatch("src/gen/x.ts"), 1);
  assert.equal(set.lastMatch("lib/x"), -1);
  assert.equal(compileGlobs([]).matches("a"), false);
  assert.equal(compileGlobs(["!a"]).matches("a"), false);
});

Deno.test("malformed patterns fail with stable codes", () => {
  const bad: [string, string][] = [
    ["", "empty_pattern"],
    ["!", "empty_pattern"],
    ["/", "empty_pattern"],
    ["a//b", "empty_segment"],
    ["x//", "empty_segment"],
    ["a\\", "trailing_backslash"],
    ["[ab", "unclosed_class"],
    ["[z-a]", "bad_range"],
    ["[[:alpha:]]", "unsupported_class"],
    ["x".repeat(5000), "pattern_too_long"],
  ];
  for (const [pattern, code] of bad) {
    assert.throws(() => compileGlobs([pattern]), (e: unknown) => {
      assert.ok(e instanceof GlobError);
      assert.equal(e.code, code, pattern);
      return true;
    });
  }
});

Deno.test("long patterns (many NFA words) and pathological stars stay linear", () => {
  const deep = "x/" + "y/".repeat(40) + "z";
  assert.ok(parseGlob(deep).tokens.length > 64);
  assert.equal(compileGlobs([deep]).matches(deep), true);
  assert.equal(compileGlobs([deep]).matches(deep + "/below"), true);
  assert.equal(compileGlobs([deep]).matches(deep.slice(0, -1) + "q"), false);
  const starry = "a" + "*a".repeat(60) + "b";
  assert.equal(compileGlobs([starry]).matches("a".repeat(5000)), false);
  assert.equal(compileGlobs([starry]).matches("a".repeat(5000) + "b"), true);
  const globstars = "**/a".repeat(30) + "/b";
  assert.equal(compileGlobs([globstars]).matches("a/".repeat(2000) + "c"), false);
});

const PIECES = ["a", "b", ".", "*", "**", "?", "[ab]", "[!a]", "[a-b]", "\\*", "/", "-", "é"];
const pattern = fc.tuple(
  fc.boolean(),
  fc.boolean(),
  fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 7 }),
  fc.boolean(),
).map(([neg, lead, body, trail]) =>
  (neg ? "!" : "") + (lead ? "/" : "") + body.join("") + (trail ? "/" : "")
);
const path = fc.array(fc.constantFrom("a", "b", "ab", ".a", "a.b", "*", "ba", "é", "a-b"), {
  minLength: 1,
  maxLength: 5,
}).map((s) => s.join("/"));

Deno.test("property: compiled matcher agrees with the reference matcher", () => {
  fc.assert(
    fc.property(fc.array(pattern, { minLength: 1, maxLength: 4 }), path, (patterns, p) => {
      let set;
      try {
        set = compileGlobs(patterns);
      } catch (e) {
        assert.ok(e instanceof GlobError && GLOB_ERROR_CODES.includes(e.code));
        return;
      }
      assert.equal(set.lastMatch(p), referenceLastMatch(patterns, p), `${patterns} vs ${p}`);
    }),
    { numRuns: 3000 },
  );
});

Deno.test("property: compileGlobs and matching never throw anything but GlobError", () => {
  fc.assert(
    fc.property(
      fc.array(fc.string({ unit: "binary", maxLength: 12 }), { maxLength: 4 }),
      fc.string({ unit: "binary", maxLength: 30 }),
      (patterns, p) => {
        try {
          const set = compileGlobs(patterns);
          set.matches(p);
        } catch (e) {
          assert.ok(e instanceof GlobError, String(e));
        }
      },
    ),
    { numRuns: 2000 },
  );
});

Deno.test("property: every literal shortcut agrees with the automaton it replaces", () => {
  const shapes = fc.tuple(
    fc.constantFrom("", "/", "**/", "a/", "/a/"),
    fc.array(fc.constantFrom("a", "b", ".", "-", "é", "/"), { minLength: 1, maxLength: 4 }),
    fc.constantFrom("", "*", "/**", "**"),
    fc.constantFrom("", "/"),
  ).map(([lead, lit, tail, dir]) => lead + lit.join("") + tail + dir);
  fc.assert(
    fc.property(shapes, path, (p, x) => {
      let program;
      try {
        program = buildGlobProgram([parseGlob(p)]);
      } catch (e) {
        assert.ok(e instanceof GlobError);
        return;
      }
      const shortcut = globShortcut(program, 0);
      const decided = decideByShortcut(shortcut, x);
      const automaton = runGlobPattern(program, 0, x);
      if (decided === undefined) assert.equal(shortcut.kind, "automaton");
      else assert.equal(decided, automaton, `${p} (${shortcut.kind}) vs ${x}`);
      assert.equal(referenceMatchOne(p, x), automaton, `reference: ${p} vs ${x}`);
    }),
    { numRuns: 3000 },
  );
});
