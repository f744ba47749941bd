import { open } from "node:fs/promises";
import type { MacKey } from "../keys/mac_key.ts";
import type { LogIssue } from "../log/errors.ts";
import { LOG_KINDS } from "../log/kinds.ts";
import { GENESIS_HASH, type LogHead, type LogRecord } from "../log/record.ts";
import { type ReplayKernel, replayKernelRecords, type ReplayResult } from "../log/replay.ts";
import { readLogFile } from "../log/store.ts";
import {
  type ReceiptIssue,
  verifyLogReceipts,
  verifyReceiptsAgainstLog,
} from "../receipts/chain.ts";
import { VerifiedPatchError } from "../verified_patch/errors.ts";
import { verifyVerifiedPatchJson } from "../verified_patch/verified_patch.ts";
import { checkEvidenceBinding, type EvidenceReport } from "./evidence_binding.ts";
import { lifecycleReplayKernel } from "./kernel_replay.ts";
import { buildTimelines, type TaskTimeline } from "./timeline.ts";

/**
 * Verdict of an audit of the LOG (never of a task: each task's own verdict is
 * in its timeline).
 */
export type InspectVerdict =
  /** Chain, receipts, patches, evidence binding and replay all check out. */
  | "verified"
  /**
   * Something was changed: the chain, a receipt, a patch MAC, an anchor, the
   * expected head, or a result event claims what its receipts do not show.
   */
  | "tampered"
  /** The kernel emits different actions than were recorded. */
  | "divergent"
  /** The log was written under other kernel semantics; its replay cannot be checked here. */
  | "other_kernel"
  /** The chain is intact, but receipts or patches are present and no key was available. */
  | "unauthenticated"
  /** No record at all: an empty file, or bytes that are not a vouch log. */
  | "not_a_log";

/**
 * The words for each {@link InspectVerdict}, kept apart from any task's verdict.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { INSPECT_SUMMARY } from "./audit_log.ts";
 * equal(INSPECT_SUMMARY.unauthenticated, "chain intact, evidence unauthenticated");
 * ```
 */
export const INSPECT_SUMMARY: Readonly<Record<InspectVerdict, string>> = {
  verified: "log intact, evidence authenticated and bound, replay reproduces",
  tampered: "log tampered",
  divergent: "log intact, but replay diverges",
  other_kernel: "log intact, but written by another kernel version (replay not run)",
  unauthenticated: "chain intact, evidence unauthenticated",
  not_a_log: "not a vouch log",
};

/** The bytes read to tell a vouch log whose first line was damaged from a file that is none. */
const SNIFF_BYTES = 1024 * 1024;

/**
 * Whether a file with no verifying record could still be a (damaged) vouch
 * log: its first line failed for another reason than not being a log record
 * (a broken hash, a bad seq), or some line of its first MiB looks like a
 * record (`v`, `seq`, `prev`, `hash`). A `.diff` or any other text has none:
 * it is "not a vouch log", never "tampered".
 */
async function mayBeVouchLog(path: string, read: Awaited<ReturnType<typeof readLogFile>>) {
  if (read.status !== "tampered") return false;
  if (
    read.issue.line !== 1 || (read.issue.reason !== "not_json" && read.issue.reason !== "schema")
  ) {
    return true;
  }
  let text: string;
  try {
    const file = await open(path, "r");
    try {
      const buf = new Uint8Array(SNIFF_BYTES);
      const { bytesRead } = await file.read(buf, 0, SNIFF_BYTES, 0);
      text = new TextDecoder().decode(buf.subarray(0, bytesRead));
    } finally {
      await file.close();
    }
  } catch {
    return true;
  }
  return text.split("\n").some((line) => {
    try {
      const v = JSON.parse(line);
      return typeof v === "object" && v !== null && "seq" in v && "prev" in v && "hash" in v;
    } catch {
      return false;
    }
  });
}

/** Options of {@linkcode inspectLog}. */
export interface InspectOptions {
  /** The MAC key for receipts and patches; null when unavailable. */
  readonly key: MacKey | null;
  /** A head the log must contain. */
  readonly expectHead?: LogHead;
  /** The kernel to replay with. @default lifecycleReplayKernel */
  // deno-lint-ignore no-explicit-any
  readonly kernel?: ReplayKernel<any, any, any>;
}

/** Everything `vouch inspect` reports. */
export interface InspectReport {
  /** Path of the audited log. */
  readonly path: string;
  /** The overall verdict. */
  readonly verdict: InspectVerdict;
  /** The hash chain: status, record count, head and the first bad line. */
  readonly log: {
    readonly status: "ok" | "torn" | "tampered";
    readonly records: number;
    readonly head: LogHead;
    readonly issue: LogIssue | null;
    /** Bytes after the last newline (a crash's torn write, recovered on next open). */
    readonly tornBytes: number;
  };
  /** Tool receipts: how many the log holds and how many verified. */
  readonly receipts: {
    readonly present: number;
    readonly verified: number;
    /** Whether a key was available to check them. */
    readonly checked: boolean;
    readonly issue: ReceiptIssue | null;
  };
  /** VerifiedPatch records: how many the log holds and how many verified. */
  readonly patches: {
    readonly present: number;
    readonly verified: number;
    readonly issue: { readonly seq: number; readonly code: string; readonly detail: string } | null;
  };
  /** Each result event's check outcomes re-derived from the receipts it names. */
  readonly evidence: EvidenceReport;
  /** The kernel's replay of the log's events. */
  readonly replay: ReplayResult;
  /** Each task's timeline. */
  readonly tasks: readonly TaskTimeline[];
}

async function checkPatches(
  records: readonly LogRecord[],
  key: MacKey,
): Promise<InspectReport["patches"]> {
  let present = 0;
  let verified = 0;
  const first = records[0]?.seq ?? 1;
  for (const r of records) {
    if (r.kind !== LOG_KINDS.verifiedPatchMinted) continue;
    present++;
    try {
      const patch = await verifyVerifiedPatchJson(r.body, key);
      const anchor = patch.logAnchor;
      const at = anchor.seq === 0 ? { hash: GENESIS_HASH } : records[anchor.seq - first];
      if (anchor.seq >= r.seq || !at || at.hash !== anchor.hash) {
        return {
          present,
          verified,
          issue: { seq: r.seq, code: "anchor_mismatch", detail: "patch log anchor not in the log" },
        };
      }
      const issue = await verifyReceiptsAgainstLog(patch.receipts, records, key);
      if (issue) return { present, verified, issue: { ...issue, seq: r.seq } };
      verified++;
    } catch (error) {
      if (error instanceof VerifiedPatchError) {
        return {
          present,
          verified,
          issue: { seq: r.seq, code: error.code, detail: error.message },
        };
      }
      throw error;
    }
  }
  return { present, verified, issue: null };
}

/**
 * Audits a log file end to end and replays it: the hash chain (and an
 * expected head), every receipt (MAC, chain, anchor), every minted patch (MAC,
 * anchor, its receipts present in the log), every result event's check
 * outcomes against the receipts it names, then folds the kernel events through
 * the kernel and compares actions. Also builds per-task timelines. Without a
 * key, a log holding receipts or patches is never `verified`.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { equal } from "node:assert/strict";
 * import { inspectLog } from "./audit_log.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-"));
 * writeFileSync(`${dir}/events.jsonl`, "");
 * const report = await inspectLog(`${dir}/events.jsonl`, { key: null });
 * equal(report.verdict, "not_a_log");
 * rmSync(dir, { recursive: true, force: true });
 * ```
 */
export async function inspectLog(path: string, options: InspectOptions): Promise<InspectReport> {
  const read = await readLogFile(
    path,
    options.expectHead ? { expectHead: options.expectHead } : {},
  );
  const records = read.records;
  const log: InspectReport["log"] = {
    status: read.status,
    records: records.length,
    head: read.head,
    issue: read.status === "tampered" ? read.issue : null,
    tornBytes: read.status === "torn" ? read.tornBytes : 0,
  };
  const receiptCount = records.filter((r) => r.kind === LOG_KINDS.toolReceipt).length;
  let receipts: InspectReport["receipts"] = {
    present: receiptCount,
    verified: 0,
    checked: false,
    issue: null,
  };
  let patches: InspectReport["patches"] = {
    present: records.filter((r) => r.kind === LOG_KINDS.verifiedPatchMinted).length,
    verified: 0,
    issue: null,
  };
  if (options.key) {
    const report = await verifyLogReceipts(records, options.key);
    receipts = {
      present: receiptCount,
      verified: report.verified,
      checked: true,
      issue: report.issue,
    };
    patches = await checkPatches(records, options.key);
  }
  const evidence = checkEvidenceBinding(records);
  const replay = replayKernelRecords(records, options.kernel ?? lifecycleReplayKernel);
  const tasks = buildTimelines(records);
  let verdict: InspectVerdict = "verified";
  if (records.length === 0 && !(await mayBeVouchLog(path, read))) verdict = "not_a_log";
  else if (log.status === "tampered" || receipts.issue || patches.issue) verdict = "tampered";
  else if (records.length === 0) verdict = "not_a_log";
  // Result events of other kernel semantics cannot be bound by this one's rules.
  else if (replay.status === "other_kernel") verdict = "other_kernel";
  else if (evidence.issue) verdict = "tampered";
  else if (replay.status === "divergent") verdict = "divergent";
  else if (!options.key && (receipts.present > 0 || patches.present > 0)) {
    verdict = "unauthenticated";
  }
  return { path, verdict, log, receipts, patches, evidence, replay, tasks };
}
