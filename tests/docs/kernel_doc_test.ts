/**
 * Keeps `docs/kernel.md` honest: its transition and entry tables are exactly
 * `TRANSITIONS` and `ENTRY`, its final-state table is `FINAL_STATE_OF`, it
 * lists every reason code, and its demo timeline is what
 * `kernelDemoTimeline()` prints. The docs are the behaviour.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  ENTRY,
  FINAL_STATE_OF,
  LIFECYCLE_REASONS,
  TASK_STATUSES,
  transitionRows,
} from "../../kernel/mod.ts";
import { kernelDemoTimeline } from "../../cli/commands/demo_kernel_timeline.ts";
import { RUN_EXIT_CODES } from "../../adapters/driver/outcome.ts";

const DOC = join(dirname(fileURLToPath(import.meta.url)), "../../docs/kernel.md");

/** A table row as trimmed cells (the formatter pads columns). */
function cells(line: string): string[] {
  return line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim());
}

/** The rows (lines starting with "| `") of the section that starts with `heading`. */
function section(doc: string, heading: string): string[][] {
  const start = doc.indexOf(heading);
  const end = doc.indexOf("\n#", start + heading.length);
  assert.ok(start > 0 && end > start, `no section ${heading}`);
  return doc.slice(start, end).split("\n").filter((l) => l.startsWith("| `")).map(cells);
}

const code = (s: string) => `\`${s}\``;

/** The transition table as the doc renders it. */
export function renderTransitions(): string[][] {
  return transitionRows().map((r) => [
    code(r.from),
    code(r.on),
    code(r.to),
    code(r.reason),
    r.round === undefined ? "" : code(r.round),
  ]);
}

/** The entry table as the doc renders it. */
export function renderEntries(): string[][] {
  return TASK_STATUSES.map((s) => [
    code(s),
    code(ENTRY[s].action),
    ENTRY[s].budgeted ? "yes" : "",
    ENTRY[s].notify === null ? "" : code(ENTRY[s].notify!),
    ENTRY[s].resumeAs === null ? "" : code(ENTRY[s].resumeAs!),
  ]);
}

/** The final-state table as the doc renders it. */
export function renderFinalStates(): string[][] {
  return Object.entries(FINAL_STATE_OF).map(([reason, state]) => [
    code(reason),
    code(state),
    String(RUN_EXIT_CODES[state]),
  ]);
}

Deno.test("docs/kernel.md renders the transition table exactly", async () => {
  const doc = await Deno.readTextFile(DOC);
  assert.deepEqual(section(doc, "### Transition table"), renderTransitions());
});

Deno.test("docs/kernel.md renders the entry table exactly", async () => {
  const doc = await Deno.readTextFile(DOC);
  assert.deepEqual(section(doc, "### Entry table"), renderEntries());
});

Deno.test("docs/kernel.md renders the final-state table exactly", async () => {
  const doc = await Deno.readTextFile(DOC);
  assert.deepEqual(section(doc, "### Final states"), renderFinalStates());
});

Deno.test("docs/kernel.md lists every reason code and the current demo timeline", async () => {
  const doc = await Deno.readTextFile(DOC);
  for (const c of LIFECYCLE_REASONS) assert.ok(doc.includes(code(c)), c);
  const squash = (t: string) => t.split("\n").map((l) => l.trim()).join("\n");
  const expected = squash(kernelDemoTimeline().join("\n"));
  assert.ok(squash(doc).includes(expected), "demo timeline out of date");
});

/** `deno run tests/docs/kernel_doc_test.ts`: prints the three tables as markdown. */
if (import.meta.main) {
  const table = (head: string[], rows: string[][]) =>
    [
      `| ${head.join(" | ")} |`,
      `| ${head.map(() => "---").join(" | ")} |`,
      ...rows.map((r) => `| ${r.join(" | ")} |`),
    ].join("\n");
  console.log(
    table(["from", "on", "to", "reason", "starts a round (feedback reason)"], renderTransitions()),
  );
  console.log();
  console.log(
    table(["status", "entry action", "budgeted", "notify", "pause resumes as"], renderEntries()),
  );
  console.log();
  console.log(table(["stop reason", "final state", "exit code"], renderFinalStates()));
}
