/**
 * The report for people and CI dashboards: a Markdown summary (totals, a table
 * per task, a table per reason) and JUnit XML (one test case per candidate:
 * unresolved is a failure, error an error, empty patch skipped). Pure.
 *
 * @module
 */
import { markdownText } from "../text/mod.ts";
import { candidateVerdict } from "./classify.ts";
import type { BatchReport, CandidateRecord } from "./schema.ts";

/** A table cell: no raw HTML, no control characters, no Markdown links or code spans, one line. */
function cell(text: string): string {
  return markdownText(text.replace(/\r?\n/g, " ").slice(0, 300))
    .replace(/[\\`*_[\]|]/g, (c) => `\\${c}`);
}

function byTask(report: BatchReport): Map<string, CandidateRecord[]> {
  const out = new Map<string, CandidateRecord[]>();
  for (const c of report.candidates) {
    const list = out.get(c.instance_id) ?? [];
    list.push(c);
    out.set(c.instance_id, list);
  }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/**
 * The Markdown summary.
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { buildReport } from "./report.ts";
 * import { reportMarkdown } from "./render.ts";
 * const md = reportMarkdown(buildReport({ tasks: "t", predictions: "p", task_ids: [], candidate_ids: [], unpredicted_task_ids: [] }, [], null));
 * ok(md.includes("| resolved | 0 |"));
 * ```
 */
export function reportMarkdown(report: BatchReport): string {
  const lines: string[] = ["# vouch batch report", ""];
  if (report.shard !== null) lines.push(`Shard ${report.shard.index}/${report.shard.count}.`, "");
  lines.push("| total | count |", "| --- | --- |");
  for (
    const [name, n] of [
      ["tasks", report.total_instances],
      ["candidates", report.submitted_instances],
      ["resolved", report.resolved_instances],
      ["unresolved", report.unresolved_instances],
      ["error", report.error_instances],
      ["empty patch", report.empty_patch_instances],
      ["not judged", report.submitted_instances - report.candidates.length],
    ] as const
  ) lines.push(`| ${name} | ${n} |`);
  lines.push("", "## By reason", "", "| reason | candidates |", "| --- | --- |");
  for (const [reason, n] of Object.entries(report.reasons)) lines.push(`| ${reason} | ${n} |`);
  lines.push("", "## By task");
  for (const [task, list] of byTask(report)) {
    const resolved = list.filter((c) => c.status === "resolved").length;
    lines.push("", `### ${cell(task)} (${resolved}/${list.length} resolved)`, "");
    lines.push(
      "| candidate | model | verdict | status | reason | detail |",
      "| --- | --- | --- | --- | --- | --- |",
    );
    for (const c of list) {
      lines.push(
        `| ${cell(c.id)} | ${cell(c.model_name_or_path)} | ${
          candidateVerdict(c).word
        } | ${c.status} | ${c.reason} | ${cell(c.detail)} |`,
      );
    }
  }
  return lines.join("\n") + "\n";
}

function xml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
    // deno-lint-ignore no-control-regex
    .replace(/[\x00-\x08\x0b\x0c\x0e-\x1f]/g, "");
}

/**
 * JUnit XML: a test suite per task, a test case per candidate.
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { buildReport } from "./report.ts";
 * import { reportJunit } from "./render.ts";
 * const x = reportJunit(buildReport({ tasks: "t", predictions: "p", task_ids: [], candidate_ids: [], unpredicted_task_ids: [] }, [], null));
 * ok(x.startsWith('<?xml version="1.0" encoding="UTF-8"?>'));
 * ```
 */
export function reportJunit(report: BatchReport): string {
  const count = (list: CandidateRecord[], status: CandidateRecord["status"]) =>
    list.filter((c) => c.status === status).length;
  const time = (list: CandidateRecord[]) =>
    (list.reduce((t, c) => t + (c.duration_s ?? 0), 0)).toFixed(3);
  const all = report.candidates;
  // junit-10.xsd (Jenkins): `skipped` is a testsuite attribute, never a testsuites one.
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="vouch batch" tests="${all.length}" failures="${
      count(all, "unresolved")
    }" errors="${count(all, "error")}" time="${time(all)}">`,
  ];
  for (const [task, list] of byTask(report)) {
    out.push(
      `  <testsuite name="${xml(task)}" tests="${list.length}" failures="${
        count(list, "unresolved")
      }" errors="${count(list, "error")}" skipped="${count(list, "empty_patch")}" time="${
        time(list)
      }">`,
    );
    for (const c of list) {
      const open = `    <testcase classname="${xml(task)}" name="${xml(c.id)}" time="${
        (c.duration_s ?? 0).toFixed(3)
      }">`;
      const body = c.status === "resolved"
        ? ""
        : c.status === "empty_patch"
        ? `<skipped message="empty patch"/>`
        : `<${c.status === "error" ? "error" : "failure"} type="${c.reason}" message="${
          xml(c.detail)
        }">${xml([c.reason, ...c.reasons].join("\n"))}</${
          c.status === "error" ? "error" : "failure"
        }>`;
      out.push(`${open}${body}</testcase>`);
    }
    out.push("  </testsuite>");
  }
  out.push("</testsuites>");
  return out.join("\n") + "\n";
}
