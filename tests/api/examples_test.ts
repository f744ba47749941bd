/**
 * Every exported function and class of every entry point (deno.json `exports`)
 * carries an `@example`; tests/layering/doc_examples_test.ts checks that each
 * example asserts, and `deno test --doc` runs them. Read from `deno doc --json`,
 * the same view JSR and the HTML reference have.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { entryPoints } from "../../tools/api_snapshot.ts";
import { ROOT } from "../../tools/build_npm.ts";

interface DocDeclaration {
  readonly kind: string;
  readonly jsDoc?: { readonly tags?: readonly { readonly kind: string }[] };
}
interface DocSymbol {
  readonly name: string;
  readonly declarations: readonly DocDeclaration[];
}

Deno.test("every exported function and class has an @example", () => {
  const missing: string[] = [];
  let checked = 0;
  for (const [entry, file] of Object.entries(entryPoints())) {
    const out = execFileSync(Deno.execPath(), ["doc", "--json", file], {
      cwd: ROOT,
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
    });
    const doc = JSON.parse(out) as { nodes: Record<string, { symbols: DocSymbol[] }> };
    for (const node of Object.values(doc.nodes)) {
      for (const symbol of node.symbols) {
        if (!symbol.declarations.some((d) => d.kind === "function" || d.kind === "class")) continue;
        checked++;
        const hasExample = symbol.declarations.some((d) =>
          (d.jsDoc?.tags ?? []).some((t) => t.kind === "example")
        );
        if (!hasExample) missing.push(`${entry}: ${symbol.name}`);
      }
    }
  }
  assert.ok(checked > 60, `only ${checked} functions and classes found: the reader is broken`);
  assert.deepEqual(missing, [], "these public functions and classes have no @example");
});
