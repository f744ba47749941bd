/**
 * Parser-level hostile patches: every `tests/redteam/diff/*.diff` fixture must
 * fail with exactly the code in `expected.json` (or parse, when the code is
 * "ok", into the stated number of files), with both the TS and WASM scanners,
 * and through `judgePatch` (the one judgement run, verify, scope and evaluate
 * share) as `unparsable_patch` carrying that code.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type ParseGitDiffOptions, tryParseGitDiff } from "../../kernel/diff/mod.ts";
import { judgePatch } from "../../kernel/scope/mod.ts";
import { createWasmDiffScanner } from "../../wasm/mod.ts";

interface Expectation {
  code: string;
  why: string;
  files?: number;
  options?: ParseGitDiffOptions;
}

const DIR = join(import.meta.dirname!, "diff");
const expected: Record<string, Expectation> = JSON.parse(
  await Deno.readTextFile(join(DIR, "expected.json")),
);
const fixtures: string[] = [];
for await (const entry of Deno.readDir(DIR)) {
  if (entry.name.endsWith(".diff")) fixtures.push(entry.name.slice(0, -5));
}
fixtures.sort();

Deno.test("every diff fixture has an expectation and every expectation a fixture", () => {
  assert.deepEqual(fixtures, Object.keys(expected).sort());
  assert.ok(fixtures.length >= 40);
});

const wasm = createWasmDiffScanner();
for (const name of fixtures) {
  const want = expected[name]!;
  Deno.test(`redteam diff ${name}: ${want.code} (${want.why})`, async () => {
    const bytes = await Deno.readFile(join(DIR, `${name}.diff`));
    for (const scanner of [undefined, wasm]) {
      const options = { ...want.options, ...(scanner ? { scanner } : {}) };
      const result = tryParseGitDiff(bytes, options);
      if (want.code === "ok") {
        assert.ok(result.ok, result.ok ? "" : result.error.message);
        assert.equal(result.diff.files.length, want.files);
      } else {
        assert.equal(result.ok, false, `${name} parsed but should fail with ${want.code}`);
        if (!result.ok) assert.equal(result.error.code, want.code, result.error.message);
      }
      if (want.code !== "ok") {
        const judged = judgePatch(bytes, {}, want.options ? { parse: options } : {});
        assert.deepEqual(judged.reasons, ["unparsable_patch"]);
        assert.equal(judged.parseError?.code, want.code);
      }
      // The same input without the tightened budget must not hit the budget.
      if (want.options !== undefined) {
        const relaxed = tryParseGitDiff(bytes);
        assert.ok(relaxed.ok || relaxed.error.code !== "budget_exceeded");
      }
    }
  });
}
