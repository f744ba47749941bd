/**
 * Keeps `docs/kernel.md` honest: its transition table is exactly
 * `TRANSITIONS`, it lists every reason code, and its demo timeline is what
 * `kernelDemoTimeline()` prints.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { LIFECYCLE_REASONS, TRANSITIONS } from "../../kernel/mod.ts";
import { kernelDemoTimeline } from "../../cli/commands/demo_kernel_timeline.ts";

const DOC = join(dirname(fileURLToPath(import.meta.url)), "../../docs/kernel.md");

/** A table row as trimmed cells (the formatter pads columns). */
function cells(line: string): string[] {
  return line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim());
}

function renderRow(r: typeof TRANSITIONS[number]): string[] {
  return [
    `\`${r.from ?? "(new)"}\``,
    `\`${r.on}\``,
    `\`${r.to}\``,
    r.by,
    `\`${r.reason}\``,
    r.note.replaceAll("|", "\\|"),
  ];
}

Deno.test("docs/kernel.md renders the transition table exactly", async () => {
  const doc = await Deno.readTextFile(DOC);
  const start = doc.indexOf("### Transition table");
  const end = doc.indexOf("\n## ", start);
  assert.ok(start > 0 && end > start, "no transition table section");
  const rows = doc.slice(start, end).split("\n").filter((l) => l.startsWith("| `")).map(cells);
  assert.deepEqual(rows, TRANSITIONS.map(renderRow));
});

Deno.test("docs/kernel.md lists every reason code and the current demo timeline", async () => {
  const doc = await Deno.readTextFile(DOC);
  for (const code of LIFECYCLE_REASONS) assert.ok(doc.includes(`\`${code}\``), code);
  const squash = (t: string) => t.split("\n").map((l) => l.trim()).join("\n");
  const expected = squash(kernelDemoTimeline().join("\n"));
  assert.ok(squash(doc).includes(expected), "demo timeline out of date");
});
