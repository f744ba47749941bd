/**
 * Doc examples are tests (`deno task test` runs them), so each one must be
 * able to fail: every ```ts block in a JSDoc comment or a Markdown doc that is
 * not marked `ignore` must assert something (node:assert, or a `throw`), not
 * only show values in comments (`expr; // "value"`).
 */
import assert from "node:assert/strict";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = normalize(join(dirname(fileURLToPath(import.meta.url)), "../.."));
const SOURCES = ["mod.ts", "kernel", "adapters", "cli", "wasm", "docs", "README.md"];
/** Nothing is exempt (kernel/lifecycle/ examples assert since the v3 reducer). */
const EXEMPT_PREFIXES: readonly string[] = [];

const ASSERTS =
  /\b(?:assert\w*|equal|deepEqual|strictEqual|notEqual|ok|match|doesNotMatch|rejects|throws)\s*\(|\bthrow\b/;

async function* files(path: string): AsyncGenerator<string> {
  const info = await Deno.stat(path);
  if (info.isFile) {
    yield path;
    return;
  }
  for await (const entry of Deno.readDir(path)) {
    if (entry.name === "_gen" || entry.name === "assembly" || entry.name === "node_modules") {
      continue;
    }
    yield* files(join(path, entry.name));
  }
}

/** A runnable code block: where it starts and its text. */
interface Example {
  readonly line: number;
  readonly code: string;
}

/** The runnable (`ts`/`typescript`, not `ignore`) code blocks of a source or Markdown text. */
export function runnableExamples(text: string, markdown: boolean): Example[] {
  const fence = markdown
    ? /^```(ts|typescript)([^\n]*)\n([\s\S]*?)^```/gm
    : /^\s*\* ```(ts|typescript)([^\n]*)\n([\s\S]*?)^\s*\* ```/gm;
  const out: Example[] = [];
  for (const m of text.matchAll(fence)) {
    if (/\bignore\b/.test(m[2]!)) continue;
    const code = markdown ? m[3]! : m[3]!.replace(/^\s*\* ?/gm, "");
    out.push({ line: text.slice(0, m.index).split("\n").length, code });
  }
  return out;
}

Deno.test("every runnable doc example asserts", async () => {
  const silent: string[] = [];
  let examples = 0;
  for (const source of SOURCES) {
    for await (const file of files(join(ROOT, source))) {
      const rel = relative(ROOT, file);
      const markdown = rel.endsWith(".md");
      if (!markdown && !rel.endsWith(".ts")) continue;
      if (EXEMPT_PREFIXES.some((p) => rel.startsWith(p))) continue;
      for (const example of runnableExamples(await Deno.readTextFile(file), markdown)) {
        examples++;
        if (!ASSERTS.test(example.code)) silent.push(`${rel}:${example.line}`);
      }
    }
  }
  assert.ok(examples > 150, `only ${examples} examples found: the scanner is broken`);
  assert.deepEqual(
    silent,
    [],
    "these examples assert nothing: make them assert or mark them ignore",
  );
});

Deno.test("the example scanner finds JSDoc and Markdown blocks and skips ignored ones (self-test)", () => {
  const jsdoc = [
    "/**",
    " * @example",
    " * ```ts",
    " * f(); // 1",
    " * ```",
    " * ```ts ignore",
    " * g();",
    " * ```",
    " */",
  ].join("\n");
  assert.deepEqual(runnableExamples(jsdoc, false), [{ line: 3, code: "f(); // 1\n" }]);
  assert.ok(!ASSERTS.test("f(); // 1\n"));
  assert.ok(ASSERTS.test("equal(f(), 1);"));
  assert.ok(ASSERTS.test('if (f() !== 1) throw new Error("x");'));
  const md = "text\n```ts\nassert.ok(x);\n```\n```ts ignore\ny;\n```\n```json\n{}\n```\n";
  assert.deepEqual(runnableExamples(md, true), [{ line: 2, code: "assert.ok(x);\n" }]);
});
