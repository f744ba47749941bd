/**
 * Every stable code is snake_case: the literals of each `...Code` / `...Reason`
 * type (directly, or through the `as const` array it is `typeof X[number]` of),
 * and the first argument of every `new SomethingError("...")` that is a word
 * (not a message). Also: every
 * error class in the repository extends `VouchError`.
 */
import assert from "node:assert/strict";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { ERROR_CODE_PATTERN } from "../../kernel/errors/mod.ts";

const ROOT = normalize(join(dirname(fileURLToPath(import.meta.url)), "../.."));
const SOURCES = ["kernel", "adapters", "cli"];

async function* tsFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory && entry.name !== "_gen") yield* tsFiles(path);
    else if (entry.isFile && path.endsWith(".ts")) yield path;
  }
}

/** Drops comments so documented examples of old codes do not count. */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/[^\n]*/g, "$1");
}

const TYPE_RE = /export type (\w+(?:Code|Reason))\s*=([^;]+);/g;
const TYPEOF_RE = /^\s*\(?typeof (\w+)\)?\[number\]\s*$/;
const NEW_ERROR_RE = /new (\w+Error)\(\s*"([^"]*)"/g;
// Every class with its parent: an error class is one named `...Error` or one whose chain reaches
// a built-in error (`class BackendUnavailable extends Error` is one, whatever its name).
const CLASS_RE = /class (\w+)(?:<[^>]*>)?\s+extends\s+(\w+)/g;
const BUILTIN_ERRORS = new Set([
  "Error",
  "TypeError",
  "RangeError",
  "SyntaxError",
  "AggregateError",
]);

interface Found {
  readonly code: string;
  readonly where: string;
}

/** Every code literal found in one source text. */
export function codesIn(source: string, where: string): Found[] {
  const code = withoutComments(source);
  const found: Found[] = [];
  const literals = (text: string) => [...text.matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
  for (const m of code.matchAll(TYPE_RE)) {
    if (m[1] === "ExitCode") continue;
    const typeOf = TYPEOF_RE.exec(m[2]!);
    let body = m[2]!;
    if (typeOf) {
      const array = new RegExp(`const ${typeOf[1]}\\b[^=]*=\\s*\\[([^\\]]*)\\]`).exec(code);
      if (array === null) continue; // defined in another file: that file's scan covers it
      body = array[1]!;
    }
    for (const c of literals(body)) found.push({ code: c, where: `${where} ${m[1]}` });
  }
  for (const m of code.matchAll(NEW_ERROR_RE)) {
    if (m[1] === "Error" || m[1]!.endsWith("TypeError") || m[1] === "RangeError") continue;
    if (!/^[\w-]+$/.test(m[2]!)) continue; // a message (an error with a fixed code), not a code
    found.push({ code: m[2]!, where: `${where} new ${m[1]}` });
  }
  return found;
}

Deno.test("every stable code is snake_case", async () => {
  const bad: string[] = [];
  let total = 0;
  for (const dir of SOURCES) {
    for await (const file of tsFiles(join(ROOT, dir))) {
      for (const f of codesIn(await Deno.readTextFile(file), relative(ROOT, file))) {
        total++;
        if (!ERROR_CODE_PATTERN.test(f.code)) bad.push(`${f.where}: "${f.code}"`);
      }
    }
  }
  assert.ok(total > 150, `only ${total} codes found: the scanner is broken`);
  assert.deepEqual(bad, []);
});

Deno.test("every error class extends VouchError (directly or through another one)", async () => {
  const parents = new Map<string, { parent: string; where: string }>();
  for (const dir of SOURCES) {
    for await (const file of tsFiles(join(ROOT, dir))) {
      const code = withoutComments(await Deno.readTextFile(file));
      for (const m of code.matchAll(CLASS_RE)) {
        parents.set(m[1]!, { parent: m[2]!, where: relative(ROOT, file) });
      }
    }
  }
  assert.ok(parents.size >= 15, `only ${parents.size} error classes found`);
  const bad: string[] = [];
  for (const [name, { where }] of parents) {
    if (name === "VouchError") continue;
    let at = name;
    const seen = new Set<string>();
    while (at !== "VouchError" && parents.has(at) && !seen.has(at)) {
      seen.add(at);
      at = parents.get(at)!.parent;
    }
    const isError = name.endsWith("Error") || BUILTIN_ERRORS.has(at);
    if (isError && at !== "VouchError") bad.push(`${where}: ${name} extends ${at}`);
  }
  assert.deepEqual(bad, []);
});

Deno.test("the code scanner sees unions, as-const arrays and thrown codes (self-test)", () => {
  const source = [
    'export type AErrorCode = | "one_two" | "three-four";',
    'export const B_CODES = ["five", "six-seven"] as const;',
    "export type BReason = typeof B_CODES[number];",
    'throw new CError("eight-nine", "message");',
    '// new DError("in-a-comment", "x")',
  ].join("\n");
  assert.deepEqual(codesIn(source, "x.ts").map((f) => f.code), [
    "one_two",
    "three-four",
    "five",
    "six-seven",
    "eight-nine",
  ]);
  assert.ok(ERROR_CODE_PATTERN.test("one_two"));
  assert.ok(!ERROR_CODE_PATTERN.test("three-four"));
  assert.ok(!ERROR_CODE_PATTERN.test("Upper"));
});
