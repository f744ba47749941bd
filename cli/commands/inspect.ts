/**
 * `vouch inspect`: verifies an event log (chain, receipts, minted patches, an
 * optional known head), replays it through the kernel and prints per-task
 * timelines.
 *
 * @module
 */
import { visible } from "../../adapters/text/mod.ts";
import { JSON_FLAG, parseCommandLine } from "./_flags.ts";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { type CliCommand, EXIT, UsageError } from "../command.ts";
import { listedCommand } from "./_listed.ts";
import { INSPECT_SUMMARY, inspectLog, type InspectReport } from "../../adapters/audit/mod.ts";
import {
  findRepositoryRoot,
  KeyError,
  loadOrCreateMacKey,
  type MacKey,
  processKeyEnv,
} from "../../adapters/keys/mod.ts";
import type { LogHead } from "../../adapters/log/mod.ts";
import { defaultLogPath } from "../log_location.ts";
import { jsonDocument } from "../json_document.ts";
import { VERDICTS } from "../../adapters/driver/verdicts.ts";
import type { TaskTimeline } from "../../adapters/audit/timeline.ts";

/** A task's verdict as the verdict table labels it (`rejected`, `could not run`, `cancelled`). */
function taskLabel(t: TaskTimeline): string {
  if (t.verdict !== null) return VERDICTS[t.verdict].label;
  return t.status === null ? "(no kernel status)" : `unfinished (kernel status ${t.status})`;
}

/** The audit verdict's word: the verdict table's where it has one. */
function auditWord(verdict: InspectReport["verdict"]): string {
  return verdict === "verified" || verdict === "tampered" || verdict === "not_a_log"
    ? VERDICTS[verdict].word
    : verdict.toUpperCase();
}

const HELP = `vouch inspect: verify and replay an event log

Usage:
  vouch inspect [LOG] [--json] [--expect-head SEQ:HASH] [--key-file FILE]

Audits every line of LOG (default .vouch/events.jsonl): canonical JSON, hash
chain, sequence; every tool receipt (MAC, receipt chain, log anchor); every
minted VerifiedPatch (MAC, anchor, receipts present); every baseline and
verification result against the receipts it names (each check's outcome is
re-derived from its MAC'd receipt); then replays the recorded kernel events
through the kernel and compares the actions it emits with the recorded ones.
Prints a timeline per task (phases, rounds, checks, the task's own verdict,
durations); transcripts are shown with secret-looking values masked.

The audit verdict is about the LOG ("log intact, evidence authenticated"), never
about a task: a verified log of a rejected task says "task t-... rejected".
Without the key, a log holding receipts or patches is never VERIFIED: the chain
may be intact, but the evidence is unauthenticated.

The receipt key is the repository's key from $XDG_STATE_HOME/vouch/keys (or
VOUCH_KEY_FILE); --key-file names it explicitly. A copy of a log kept outside
every repository has no repository key: only --key-file (or VOUCH_KEY_FILE)
authenticates it.

Examples:
  vouch inspect
  vouch inspect .vouch/events.jsonl --json
  vouch inspect --expect-head 42:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
`;

function parseHead(text: string): LogHead {
  const m = /^(\d{1,15}):([0-9a-f]{64})$/.exec(text);
  if (!m) throw new UsageError(`Cannot parse --expect-head "${text}": expected SEQ:HASH (64 hex)`);
  return { seq: Number(m[1]), hash: m[2]! };
}

async function loadKey(logPath: string, keyFile: string | undefined): Promise<MacKey | null> {
  const root = findRepositoryRoot(dirname(resolve(logPath)));
  const env = keyFile !== undefined
    ? { ...processKeyEnv(), VOUCH_KEY_FILE: keyFile }
    : processKeyEnv();
  // A log kept outside every repository (a copy in HOME, say) has no repository key: only a key
  // file named (--key-file, VOUCH_KEY_FILE) authenticates it, and no repository holds that file.
  const repoRoot = existsSync(join(root, ".git")) ? root : null;
  if (repoRoot === null && !env.VOUCH_KEY_FILE) return null;
  try {
    return await loadOrCreateMacKey({ repoRoot, env, create: false });
  } catch (error) {
    if (error instanceof KeyError && error.code === "io" && keyFile === undefined) return null;
    throw error;
  }
}

/**
 * What a reused (cached) baseline is, in words: whose run it was, where its
 * receipts are, and whether they bind (MACs under the key, of that task,
 * outcomes re-derived: the evidence binding).
 */
function reuseWords(
  reuse: NonNullable<TaskTimeline["baselineReused"]>,
  report: InspectReport,
): string {
  const seqs = reuse.receiptSeqs.length > 0
    ? `receipts seq ${reuse.receiptSeqs.join(", ")}`
    : "its receipts are not in this log";
  const at = reuse.ranAt !== null ? ` at ${new Date(reuse.ranAt).toISOString()}` : "";
  const bind = report.evidence.issue !== null || report.receipts.issue !== null
    ? "they do NOT bind (see TAMPERED above)"
    : !report.receipts.checked
    ? "UNCHECKED: no key to verify their MACs (use --key-file)"
    : "they bind: MACs verify under the key, they are that task's, outcomes re-derived";
  return `reused, not run again: task ${reuse.from}'s baseline run${at} (${seqs}); ${bind}`;
}

const short = (hash: string) => hash.slice(0, 12);
const secs = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

/** The report of a file that holds no vouch log record at all. */
function notALogLines(report: InspectReport): string[] {
  const { log } = report;
  const why = log.issue !== null
    ? `line ${log.issue.line} is not a vouch log record (${log.issue.reason}), nor is any other line`
    : log.tornBytes > 0
    ? `${log.tornBytes} bytes that are not a vouch log (no complete line)`
    : "the file is empty";
  return [
    `vouch inspect ${report.path}`,
    `log       ${VERDICTS.not_a_log.word}  no record: ${why}`,
    `audit     ${VERDICTS.not_a_log.word}  ${INSPECT_SUMMARY.not_a_log}`,
  ];
}

/** The hash chain: intact (maybe with a torn tail) or where it broke. */
function logLines(log: InspectReport["log"]): string[] {
  if (log.status === "tampered" && log.issue) {
    const i = log.issue;
    return [
      `log       TAMPERED  ${i.reason} at line ${i.line}${
        i.seq === null ? "" : ` (seq ${i.seq})`
      }: ${i.detail}`,
      `          ${log.records} records verified before it`,
    ];
  }
  const lines = [
    `log       intact    ${log.records} records, head ${log.head.seq}:${log.head.hash}`,
  ];
  if (log.status === "torn") {
    lines.push(
      `          torn tail: ${log.tornBytes} bytes after the last newline (a crashed write; recovered on next open)`,
    );
  }
  return lines;
}

/** The receipts' and minted patches' MACs (unchecked without the key). */
function receiptLines(report: InspectReport, keyId: string | null): string[] {
  const { receipts, patches } = report;
  if (!receipts.checked) {
    return [
      receipts.present + patches.present === 0
        ? "receipts  none"
        : `receipts  UNCHECKED ${receipts.present} receipts, ${patches.present} patches: no key, evidence unauthenticated (use --key-file)`,
    ];
  }
  return [
    receipts.issue
      ? `receipts  TAMPERED  ${receipts.issue.code} at seq ${receipts.issue.seq}: ${receipts.issue.detail}`
      : `receipts  ok        ${receipts.verified}/${receipts.present} verified (key ${keyId})`,
    patches.issue
      ? `patches   TAMPERED  ${patches.issue.code} at seq ${patches.issue.seq}: ${patches.issue.detail}`
      : `patches   ok        ${patches.verified}/${patches.present} verified`,
  ];
}

/** Whether the recorded check outcomes match their receipts (nothing when none were recorded). */
function evidenceLines(report: InspectReport): string[] {
  const ev = report.evidence;
  const checked = report.receipts.checked;
  if (ev.issue) {
    return [
      `evidence  TAMPERED  ${ev.issue.code} at line ${ev.issue.line} (seq ${ev.issue.seq}): ${ev.issue.detail}`,
    ];
  }
  if (ev.events === 0) return [];
  return [
    `evidence  ${
      checked ? "ok       " : "UNCHECKED"
    } ${ev.checks} check outcome(s) in ${ev.events} result event(s) match their receipts${
      checked ? "" : " (receipts unauthenticated)"
    }`,
  ];
}

/** Whether replaying the kernel events reproduces the recorded actions. */
function replayLine(replay: InspectReport["replay"]): string {
  if (replay.status === "divergent") {
    return `replay    DIVERGENT at seq ${replay.seq} (${replay.reason}): ${replay.detail}`;
  }
  if (replay.status === "other_kernel") {
    return `replay    NOT RUN   seq ${replay.seq} was written by ${replay.recorded}; this vouch runs ${replay.running}`;
  }
  const note = replay.interrupted.length > 0
    ? `; ${replay.interrupted.length} step(s) interrupted by a crash (seq ${
      replay.interrupted.join(", ")
    })`
    : "";
  return `replay    ok        ${replay.steps} kernel steps reproduce the recorded actions${note}`;
}

/** One task's timeline: phases, checks by round, baseline reuse, oracle, receipts, transcripts. */
function taskLines(t: TaskTimeline, report: InspectReport): string[] {
  const lines = [
    "",
    `task ${t.task}  ${taskLabel(t)}, ${
      secs(t.durationMs)
    }, ${t.rounds} round(s), seq ${t.firstSeq}-${t.lastSeq}`,
  ];
  if (t.phases.length > 0) {
    const start = t.phases[0]!.at;
    lines.push(`  phases    ${t.phases.map((p) => `${p.to} +${secs(p.at - start)}`).join(" -> ")}`);
  }
  const groups = new Map<string, string[]>();
  for (const c of t.checks) {
    const key = c.phase === "baseline" ? "baseline" : `round ${c.round ?? "?"}`;
    groups.set(key, [
      ...(groups.get(key) ?? []),
      `${c.id} ${c.outcome === "pass" ? "pass" : c.outcome.toUpperCase()}`,
    ]);
  }
  for (const [key, checks] of groups) lines.push(`  checks    ${key}: ${checks.join(", ")}`);
  if (t.baselineReused !== null) {
    lines.push(`  baseline  ${reuseWords(t.baselineReused, report)}`);
  }
  for (const [i, s] of t.oracle.entries()) {
    lines.push(`  ${i === 0 ? "tests    " : "         "} ${s}`);
  }
  for (const r of t.receipts) {
    lines.push(
      `  receipt   seq ${r.seq} ${r.tool} exit ${r.exit}${r.timedOut ? " (timed out)" : ""} ${
        secs(r.durationMs)
      }${r.sandbox === "none" ? " UNSANDBOXED (--sandbox none)" : ""}`,
    );
  }
  if (t.verifiedPatch) lines.push(`  patch     verified ${t.verifiedPatch}`);
  if (t.testOutput) lines.push(`  output    ${t.testOutput}`);
  for (const x of t.transcripts) {
    const text = x.text.length > 400 ? `${x.text.slice(0, 400)}...` : x.text;
    lines.push(`  transcript seq ${x.seq}: ${text.replaceAll("\n", "\n             ")}`);
  }
  return lines;
}

/** Renders an inspection report as text. */
export function renderInspectReport(report: InspectReport, keyId: string | null): string {
  if (report.verdict === "not_a_log") return notALogLines(report).join("\n") + "\n";
  const { log } = report;
  const lines = [
    `vouch inspect ${report.path}`,
    ...logLines(log),
    ...receiptLines(report, keyId),
    ...evidenceLines(report),
    replayLine(report.replay),
    `audit     ${auditWord(report.verdict)}  ${INSPECT_SUMMARY[report.verdict]}`,
  ];
  if (report.tasks.length > 0) {
    lines.push(`tasks     ${report.tasks.map((t) => `task ${t.task} ${taskLabel(t)}`).join(", ")}`);
  }
  for (const t of report.tasks) lines.push(...taskLines(t, report));
  if (report.verdict === "verified" && log.records > 0) {
    lines.push(
      "",
      `head ${log.head.seq}:${
        short(log.head.hash)
      }… (pass --expect-head ${log.head.seq}:${log.head.hash} to pin it)`,
    );
  }
  return lines.join("\n") + "\n";
}

/** `vouch inspect`. */
export const inspectCommand: CliCommand = {
  ...listedCommand("inspect", HELP, {
    0: "verified",
    1: "tampered, divergent, unauthenticated (no key), not a vouch log, or from another kernel version",
  }, ["verified", "tampered", "not_a_log"]),
  async run(argv, io) {
    const { values, positionals } = parseCommandLine(argv, {
      ...JSON_FLAG,
      "expect-head": { type: "string" },
      "key-file": { type: "string" },
    });
    if (positionals.length > 1) {
      throw new UsageError(`Cannot inspect more than one log: ${positionals.join(" ")}`);
    }
    // From any subdirectory: the log at the top of the repository the user stands in.
    const path = positionals[0] ?? defaultLogPath();
    const expectHead = values["expect-head"] !== undefined
      ? parseHead(values["expect-head"])
      : undefined;
    let key: MacKey | null;
    try {
      key = await loadKey(path, values["key-file"]);
    } catch (error) {
      if (error instanceof KeyError) {
        io.err(`vouch inspect: ${error.message} (${error.code})\n`);
        return EXIT.rejected;
      }
      throw error;
    }
    // An unreadable log (missing, a directory, no permission) is an EventLogError("io"):
    // cli/main.ts prints it as one line and exits 5 (could not run).
    const report: InspectReport = await inspectLog(path, {
      key,
      ...(expectHead ? { expectHead } : {}),
    });
    if (values.json) {
      // `audit` is the log's verdict; each task's own verdict is `tasks[].verdict`.
      const { verdict, ...rest } = report;
      const json = { audit: verdict, summary: INSPECT_SUMMARY[verdict], ...rest };
      io.out(
        JSON.stringify(jsonDocument({ ...json, keyId: key?.keyId ?? null }), null, 2) + "\n",
      );
    } else {
      io.out(visible(renderInspectReport(report, key?.keyId ?? null)));
    }
    return report.verdict === "verified" ? EXIT.ok : EXIT.rejected;
  },
};
