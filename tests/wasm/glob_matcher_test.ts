import assert from "node:assert/strict";
import fc from "fast-check";
import { compileGlobs, GlobError } from "../../kernel/glob/mod.ts";
import { wasmGlobEngine } from "../../wasm/glob_matcher.ts";

const PIECES = [
  "a",
  "b",
  ".",
  "*",
  "**",
  "?",
  "[ab]",
  "[!a]",
  "[a-b]",
  "[é-ü]",
  "\\*",
  "/",
  "-",
  "é",
  "\u{1F600}",
];
const pattern = fc.tuple(
  fc.boolean(),
  fc.boolean(),
  fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 8 }),
  fc.boolean(),
).map(([neg, lead, body, trail]) =>
  (neg ? "!" : "") + (lead ? "/" : "") + body.join("") + (trail ? "/" : "")
);
const path = fc.oneof(
  fc.array(fc.constantFrom("a", "b", "ab", ".a", "a.b", "é", "ü", "\u{1F600}", "a-b"), {
    minLength: 1,
    maxLength: 6,
  }).map((s) => s.join("/")),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 }),
);

function bothEngines(patterns: string[]) {
  try {
    return [compileGlobs(patterns), compileGlobs(patterns, { engine: wasmGlobEngine })] as const;
  } catch (e) {
    assert.ok(e instanceof GlobError);
    return null;
  }
}

Deno.test("property: WASM and TypeScript matchers agree on random patterns and paths", () => {
  fc.assert(
    fc.property(fc.array(pattern, { minLength: 1, maxLength: 5 }), fc.array(path), (ps, paths) => {
      const engines = bothEngines(ps);
      if (engines === null) return;
      const [ts, wasm] = engines;
      for (const p of paths) assert.equal(wasm.lastMatch(p), ts.lastMatch(p), `${ps} vs ${p}`);
    }),
    { numRuns: 1000 },
  );
});

Deno.test("property: long patterns (several NFA words) agree too", () => {
  const long = fc.array(fc.constantFrom("a/", "*/", "**/", "?", "b", "[ab]"), {
    minLength: 30,
    maxLength: 60,
  }).map((x) => x.join("") + "c");
  const longPath = fc.array(fc.constantFrom("a", "b", "ab", "c"), { minLength: 10, maxLength: 60 })
    .map((x) => x.join("/"));
  fc.assert(
    fc.property(long, fc.array(longPath, { maxLength: 5 }), (p, paths) => {
      const engines = bothEngines([p]);
      if (engines === null) return;
      for (const x of paths) assert.equal(engines[1].lastMatch(x), engines[0].lastMatch(x));
    }),
    { numRuns: 200 },
  );
});

async function realPaths(): Promise<string[]> {
  const out = await new Deno.Command("git", {
    args: ["ls-files", "-z"],
    cwd: new URL("../..", import.meta.url),
    stdout: "piped",
    stderr: "null",
  }).output();
  assert.equal(out.code, 0, "git ls-files failed");
  const paths = new TextDecoder().decode(out.stdout).split("\0").filter((p) => p !== "");
  assert.ok(paths.length > 20, "too few tracked files");
  return paths;
}

Deno.test("WASM and TypeScript agree on this repository's real paths, one by one and in batch", async () => {
  const paths = await realPaths();
  const sets = [
    ["*.ts", "!*_test.ts"],
    ["kernel/**", "!kernel/diff/"],
    ["**/mod.ts", "docs/", "/README.md"],
    ["[a-k]*/**/*.ts", "tests/**/[!r]*_test.ts"],
    ["*"],
    ["**/_gen/**", "*.wat"],
  ];
  const encoder = new TextEncoder();
  const batch = encoder.encode(paths.join("\0"));
  let matched = 0;
  for (const patterns of sets) {
    const ts = compileGlobs(patterns);
    const wasmRunner = wasmGlobEngine.bind(ts.program);
    const results = wasmRunner.matchBatch(batch);
    assert.equal(results.length, paths.length);
    paths.forEach((p, i) => {
      const expected = ts.lastMatch(p);
      if (expected >= 0) matched++;
      assert.equal(wasmRunner.lastMatch(p), expected, `${patterns} vs ${p}`);
      assert.equal(wasmRunner.lastMatchBytes(encoder.encode(p)), expected, p);
      assert.equal(results[i], expected, `batch: ${patterns} vs ${p}`);
    });
  }
  assert.ok(matched > paths.length, "the real-path corpus matched too little to be a test");
});

Deno.test("the WASM runner grows its buffers for long paths and big batches", () => {
  const runner = wasmGlobEngine.bind(compileGlobs(["**/z"]).program);
  const long = "a/".repeat(10_000) + "z";
  assert.equal(runner.lastMatch(long), 0);
  assert.equal(runner.lastMatch(long + "q"), -1);
  const many = new TextEncoder().encode(
    Array.from({ length: 5000 }, (_, i) => `d${i}/z`).join("\0"),
  );
  const results = runner.matchBatch(many);
  assert.equal(results.length, 5000);
  assert.ok(results.every((r) => r === 0));
  assert.deepEqual([...runner.matchBatch(new Uint8Array(0))], []);
});

Deno.test("property: WASM byte-level literal shortcuts agree with the TypeScript ones", () => {
  const shapes = fc.tuple(
    fc.constantFrom("", "/", "**/", "a/", "/a/"),
    fc.array(fc.constantFrom("a", "b", ".", "-", "é", "/", "\u{1F600}"), {
      minLength: 1,
      maxLength: 4,
    }),
    fc.constantFrom("", "*", "/**", "**", "?", "[ab]"),
    fc.constantFrom("", "/"),
  ).map(([lead, lit, tail, dir]) => lead + lit.join("") + tail + dir);
  fc.assert(
    fc.property(fc.array(shapes, { minLength: 1, maxLength: 3 }), fc.array(path), (ps, paths) => {
      const engines = bothEngines(ps);
      if (engines === null) return;
      for (const p of paths) assert.equal(engines[1].lastMatch(p), engines[0].lastMatch(p));
    }),
    { numRuns: 500 },
  );
});
