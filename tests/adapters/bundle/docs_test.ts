import assert from "node:assert/strict";
import { BUNDLE_REASONS } from "../../../kernel/bundle/reasons.ts";

Deno.test("docs/bundles.md lists every bundle reason code with its recommendation", async () => {
  const doc = await Deno.readTextFile(new URL("../../../docs/bundles.md", import.meta.url));
  for (const [code, info] of Object.entries(BUNDLE_REASONS)) {
    assert.ok(
      doc.includes(`| \`${code}\` | ${info.outcome} | ${info.category} |`),
      `docs/bundles.md lacks a row for ${code}`,
    );
  }
});
