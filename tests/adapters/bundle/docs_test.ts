import assert from "node:assert/strict";
import { BUNDLE_REASONS } from "../../../kernel/bundle/reasons.ts";

Deno.test("docs/bundles.md lists every bundle reason code with its recommendation", async () => {
  const doc = await Deno.readTextFile(new URL("../../../docs/bundles.md", import.meta.url));
  const rows = new Map<string, string[]>();
  for (const line of doc.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    if (cells.length >= 5 && cells[1]!.startsWith("`")) rows.set(cells[1]!.slice(1, -1), cells);
  }
  for (const [code, info] of Object.entries(BUNDLE_REASONS)) {
    const row = rows.get(code);
    assert.ok(row !== undefined, `docs/bundles.md lacks a row for ${code}`);
    assert.deepEqual(row.slice(2, 4), [info.outcome, info.category], code);
  }
});
