/**
 * Evidence binding: every baseline and verification result the kernel was fed
 * names the receipts its checks rest on; this re-derives each check's outcome
 * from those receipts (the outcome sealed in the MAC'd receipt, its tool, its
 * task) and reports the first event that claims what its receipts do not show.
 *
 * @module
 */
import { canonicalJson } from "../canonical_json/canonical_json.ts";
import { sha256Hex } from "../digest/sha256.ts";
import { LOG_KINDS } from "../log/kinds.ts";
import type { LogRecord } from "../log/record.ts";
import { type ToolReceipt, ToolReceiptSchema } from "../receipts/receipt.ts";

/** Stable codes of an evidence-binding problem. */
export const EVIDENCE_ISSUE_CODES = [
  /** An event names a receipt digest no `tool.receipt` record of the log has. */
  "receipt_missing",
  /** A named receipt is of another task, or of another check or phase than the one citing it. */
  "receipt_mismatch",
  /** The outcome the event claims differs from the one its receipt shows. */
  "outcome_mismatch",
  /** A check is claimed to pass with no receipt at all (a check that never ran cannot pass). */
  "outcome_without_receipt",
  /** A result event whose checks cannot be read (not the kernel's shape). */
  "malformed_result",
] as const;

/** One of {@link EVIDENCE_ISSUE_CODES}. */
export type EvidenceIssueCode =
  | "receipt_missing"
  | "receipt_mismatch"
  | "outcome_mismatch"
  | "outcome_without_receipt"
  | "malformed_result";
// The union above is exactly the list's words (checked by the compiler).
type _CodesAreExact = AssertTrue<Same<typeof EVIDENCE_ISSUE_CODES[number], EvidenceIssueCode>>;
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true
  : false;
type AssertTrue<T extends true> = T;

/** The first result event its receipts do not support. */
export interface EvidenceIssue {
  /** What is wrong, as a stable code. */
  readonly code: EvidenceIssueCode;
  /** Seq of the `kernel.event` record. */
  readonly seq: number;
  /** 1-based line of that record in the log file. */
  readonly line: number;
  /** What is wrong, for humans. */
  readonly detail: string;
}

/** What the binding check found. */
export interface EvidenceReport {
  /** Result events checked (`baseline_result`, `verification_result`). */
  readonly events: number;
  /** Check outcomes re-derived from their receipts. */
  readonly checks: number;
  /** The first problem, or null. */
  readonly issue: EvidenceIssue | null;
}

interface Claim {
  readonly id: string;
  readonly outcome: string;
  readonly receipts: readonly string[];
}

const PHASE = { baseline_result: "baseline", verification_result: "round" } as const;

function strings(v: unknown): readonly string[] | null {
  return Array.isArray(v) && v.every((x) => typeof x === "string") ? v : null;
}

function claims(v: unknown): Claim[] | null {
  if (!Array.isArray(v)) return null;
  const out: Claim[] = [];
  for (const c of v) {
    if (typeof c !== "object" || c === null) return null;
    const o = c as Record<string, unknown>;
    // A check that names no receipt list names none (it can then only fail).
    const receipts = o.receipts === undefined ? [] : strings(o.receipts);
    if (typeof o.id !== "string" || typeof o.outcome !== "string" || receipts === null) return null;
    out.push({ id: o.id, outcome: o.outcome, receipts });
  }
  return out;
}

/**
 * Whether a receipt contradicts a claimed outcome: it sealed another outcome, or
 * (a receipt from before outcomes were sealed) the claim is a pass and the
 * command did not exit 0 cleanly.
 */
function contradiction(r: ToolReceipt, claimed: string): string | null {
  if (r.outcome !== undefined) return r.outcome === claimed ? null : r.outcome;
  const clean = r.exit.code === 0 && !r.exit.timedOut && r.exit.signal === null;
  return claimed === "pass" && !clean ? "fail" : null;
}

/**
 * Re-derives every result event's check outcomes from the receipts it names.
 * Pure over the records; pair it with MAC verification of the receipts
 * (`verifyLogReceipts`): without the key, a receipt could itself be forged.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { frameRecord, GENESIS_HASH } from "../log/record.ts";
 * import { checkEvidenceBinding } from "./evidence_binding.ts";
 * const event = { kind: "verification_result", taskId: "t1", round: 0, setupReceipts: [],
 *   checks: [{ id: "unit", outcome: "pass", receipts: ["sha256:" + "a".repeat(64)] }] };
 * const { record } = frameRecord({ seq: 0, hash: GENESIS_HASH },
 *   { task: "t1", kind: "kernel.event", body: event }, 0);
 * deepEqual(checkEvidenceBinding([record]).issue?.code, "receipt_missing");
 * ```
 */
export function checkEvidenceBinding(records: readonly LogRecord[]): EvidenceReport {
  const byDigest = new Map<string, ToolReceipt>();
  for (const r of records) {
    if (r.kind !== LOG_KINDS.toolReceipt) continue;
    const parsed = ToolReceiptSchema.safeParse(r.body);
    if (parsed.success) byDigest.set(sha256Hex(canonicalJson(r.body as never)), parsed.data);
  }
  let events = 0;
  let checks = 0;
  const first = records[0]?.seq ?? 1;
  for (const r of records) {
    if (r.kind !== LOG_KINDS.kernelEvent) continue;
    const body = r.body as Record<string, unknown> | null;
    const kind = typeof body === "object" && body !== null ? body.kind : undefined;
    if (kind !== "baseline_result" && kind !== "verification_result") continue;
    events++;
    const phase = PHASE[kind];
    const at = { seq: r.seq, line: r.seq - first + 1 };
    const fail = (code: EvidenceIssueCode, detail: string): EvidenceReport => ({
      events,
      checks,
      issue: { code, ...at, detail: `${kind} seq ${r.seq}: ${detail}` },
    });
    const list = claims(body!.checks);
    const setup = body!.setupReceipts === undefined ? [] : strings(body!.setupReceipts);
    // A cached baseline cites the receipts of the task whose baseline ran (same log).
    const reused = kind === "baseline_result" ? body!.reusedFrom : undefined;
    const task = reused === undefined ? body!.taskId : reused;
    if (list === null || setup === null || typeof task !== "string") {
      return fail("malformed_result", "its checks are not a list of {id, outcome, receipts}");
    }
    const lookup = (digest: string, what: string): ToolReceipt | string => {
      const receipt = byDigest.get(digest);
      if (receipt === undefined) return `${what} names receipt ${digest}, which is not in the log`;
      if (receipt.task !== task) {
        return `${what} names a receipt of task ${JSON.stringify(receipt.task)}`;
      }
      return receipt;
    };
    const anyPass = list.some((c) => c.outcome === "pass");
    for (const digest of setup) {
      const receipt = lookup(digest, "setup");
      if (typeof receipt === "string") {
        return fail(
          receipt.endsWith("not in the log") ? "receipt_missing" : "receipt_mismatch",
          receipt,
        );
      }
      if (!receipt.tool.startsWith(`${phase}:setup:`)) {
        return fail("receipt_mismatch", `setup names the receipt of ${receipt.tool}`);
      }
      if (anyPass && (receipt.exit.code !== 0 || receipt.exit.timedOut)) {
        return fail(
          "outcome_mismatch",
          `a check passes, but setup command ${receipt.tool} exited ${receipt.exit.code}`,
        );
      }
    }
    for (const c of list) {
      checks++;
      if (c.outcome === "pass" && c.receipts.length === 0) {
        return fail(
          "outcome_without_receipt",
          `check ${JSON.stringify(c.id)} passes with no receipt`,
        );
      }
      for (const digest of c.receipts) {
        const receipt = lookup(digest, `check ${JSON.stringify(c.id)}`);
        if (typeof receipt === "string") {
          return fail(
            receipt.endsWith("not in the log") ? "receipt_missing" : "receipt_mismatch",
            receipt,
          );
        }
        if (receipt.tool !== `${phase}:${c.id}`) {
          return fail(
            "receipt_mismatch",
            `check ${JSON.stringify(c.id)} names the receipt of ${receipt.tool}`,
          );
        }
        const shown = contradiction(receipt, c.outcome);
        if (shown !== null) {
          return fail(
            "outcome_mismatch",
            `check ${
              JSON.stringify(c.id)
            } claims ${c.outcome}, its receipt shows ${shown} (exit ${receipt.exit.code})`,
          );
        }
      }
    }
  }
  return { events, checks, issue: null };
}
