import assert from "node:assert/strict";
import fc from "fast-check";
import { evaluateBundleInProcess } from "../../../adapters/bundle/evaluate.ts";
import { VerificationResultSchema } from "../../../adapters/bundle/schemas.ts";
import { BUNDLE_REASONS } from "../../../kernel/bundle/reasons.ts";
import { BUNDLE_FIXTURES, materializeFixture } from "./fixtures.ts";

const good = BUNDLE_FIXTURES.find((f) => f.name === "good")!;

function mutate(text: string, edits: { at: number; char: string }[]): string {
  const chars = [...text];
  for (const { at, char } of edits) chars[at % chars.length] = char;
  return chars.join("");
}

Deno.test("fuzz: mutated manifests and arbitrary patch bytes never escape as exceptions", async () => {
  const base = await Deno.makeTempDir({ prefix: "vouch-bundle-fuzz-" });
  let run = 0;
  try {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            at: fc.nat(),
            char: fc.constantFrom('"', "{", "}", ",", ":", "\\", "0", "x", "\u0000", "\ufeff"),
          }),
          { maxLength: 4 },
        ),
        fc.option(fc.uint8Array({ maxLength: 300 }), { nil: undefined }),
        async (edits, patch) => {
          const dir = `${base}/${run++}`;
          const fixture = {
            ...good,
            manifestText: (json: string) => mutate(json, edits),
            ...(patch === undefined
              ? {}
              : { files: { "changes.patch": patch, "stdout.txt": "", "stderr.txt": "" } }),
          };
          const paths = await materializeFixture(fixture, dir);
          const started = performance.now();
          const result = await evaluateBundleInProcess(paths);
          // A bound for hangs (a runaway loop), far past a busy machine's delay; speed is the benches'.
          assert.ok(performance.now() - started < 60_000, "evaluation must finish");
          assert.ok(VerificationResultSchema.safeParse(result).success);
          const d = result.decision_support;
          for (const c of d.reason_codes) assert.ok(c in BUNDLE_REASONS, c);
          assert.equal(d.recommendation === "accept_candidate", d.reason_codes.length === 0);
          if (patch !== undefined && d.recommendation === "accept_candidate") {
            // Only a patch that really carries the required line can be accepted.
            assert.ok(new TextDecoder().decode(patch).includes("\n+vouch smoke marker: ok"));
          }
          await Deno.remove(dir, { recursive: true });
        },
      ),
      { numRuns: 60 },
    );
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
