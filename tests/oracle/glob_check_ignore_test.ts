/**
 * Oracle: vouch's glob engine against git's own `.gitignore` matcher
 * (`git check-ignore --no-index -v -n --stdin`). Random pattern lists (no `!`:
 * vouch deliberately lets `!` re-include below an excluded directory, git does
 * not) and random paths; every path must be selected exactly when git ignores
 * it. (Which line is reported may differ: git names the outermost ignored
 * directory, vouch the last pattern matching the path or any of its directories.)
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { compileGlobs, GlobError } from "../../kernel/glob/mod.ts";

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
  "/",
  "-",
  "\\*",
  "é",
  "[/a]",
  "\\/",
  "[!/]",
];
const pattern = fc.tuple(
  fc.boolean(),
  fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 6 }),
  fc.boolean(),
).map(([lead, body, trail]) => (lead ? "/" : "") + body.join("") + (trail ? "/" : ""));
// ASCII names: git's wildmatch counts bytes, so `?` and classes treat a
// non-ASCII character as several; vouch counts code points (documented).
const path = fc.array(fc.constantFrom("a", "b", "ab", ".a", "a.b", "ba", "a-b", "*", "a.*"), {
  minLength: 1,
  maxLength: 4,
}).map((s) => s.join("/"));

async function gitLastMatches(patterns: string[], paths: string[]): Promise<number[]> {
  const dir = await Deno.makeTempDir();
  try {
    const git = (args: string[], stdin?: string) => {
      const child = new Deno.Command("git", {
        args: ["-c", "core.quotePath=false", ...args],
        cwd: dir,
        env: { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
        stdin: stdin === undefined ? "null" : "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      if (stdin !== undefined) {
        const w = child.stdin.getWriter();
        void w.write(new TextEncoder().encode(stdin)).then(() => w.close());
      }
      return child.output();
    };
    await git(["init", "-q", "."]);
    await Deno.writeTextFile(`${dir}/.gitignore`, patterns.join("\n") + "\n");
    const out = await git(
      ["check-ignore", "--no-index", "-v", "-n", "-z", "--stdin"],
      paths.join("\0"),
    );
    // -z -v -n: source NUL line NUL pattern NUL path NUL, per path.
    const fields = new TextDecoder().decode(out.stdout).split("\0");
    const result: number[] = [];
    for (let i = 0; i + 3 < fields.length; i += 4) {
      result.push(fields[i] === "" ? -1 : Number(fields[i + 1]) - 1);
    }
    assert.equal(result.length, paths.length, new TextDecoder().decode(out.stderr));
    return result;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("glob semantics agree with git check-ignore on random patterns and paths", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(pattern, { minLength: 1, maxLength: 6 }),
      fc.uniqueArray(path, { minLength: 1, maxLength: 25 }),
      async (patterns, paths) => {
        let set;
        try {
          set = compileGlobs(patterns);
        } catch (e) {
          assert.ok(e instanceof GlobError);
          return;
        }
        const expected = await gitLastMatches(patterns, paths);
        paths.forEach((p, i) => {
          assert.equal(set.matches(p), expected[i]! >= 0, `${JSON.stringify(patterns)} vs ${p}`);
        });
      },
    ),
    { numRuns: 60, seed: 20261130 },
  );
});

Deno.test("git check-ignore vectors: directories, anchoring, globstars", async () => {
  const patterns = [
    "build/",
    "*.o",
    "a/**/b",
    "/top",
    "doc/*.txt",
    "**/x",
    ".env*",
    "*é/",
    "k[/a]",
    "p\\/q",
  ];
  const paths = [
    "build/x/y",
    "src/build/z",
    "build",
    "q/w.o",
    "w.o/z",
    "a/b",
    "a/c/b",
    "a/cb",
    "top/k",
    "sub/top",
    "doc/a.txt",
    "doc/s/a.txt",
    "m/x/n",
    "cfg/.env.local",
    "café/menu",
    "ka",
    "d/ka",
    "p/q",
    "d/p/q",
  ];
  const expected = await gitLastMatches(patterns, paths);
  const set = compileGlobs(patterns);
  assert.deepEqual(paths.map((p) => set.matches(p)), expected.map((e) => e >= 0));
  // Single patterns report the same line.
  for (const [i, p] of patterns.entries()) {
    const one = compileGlobs([p]);
    const git = await gitLastMatches([p], paths);
    assert.deepEqual(paths.map((x) => one.lastMatch(x)), git, `pattern ${i}: ${p}`);
  }
  assert.ok(expected.filter((e) => e >= 0).length >= 10);
});
