/**
 * Progress text of a batch: a bar with counts by class and an ETA (for a
 * terminal, redrawn in place) and one line per judged candidate (otherwise).
 * Pure.
 *
 * @module
 */
import { visibleLine } from "../text/mod.ts";
import { candidateVerdict } from "./classify.ts";
import type { CandidateRecord, CandidateStatus } from "./schema.ts";

/** What the bar shows. */
export interface ProgressState {
  /** Candidates with a verdict (cached included). */
  readonly done: number;
  /** Candidates in this batch (shard). */
  readonly total: number;
  /** Verdicts by class. */
  readonly counts: Readonly<Record<CandidateStatus, number>>;
  /** Milliseconds since judging started. */
  readonly elapsedMs: number;
  /** Verdicts judged in this run (not cached): the ETA's rate. */
  readonly judged: number;
}

function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s` : `${s}s`;
}

/**
 * One progress bar line.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { progressBar } from "./progress.ts";
 * equal(
 *   progressBar({ done: 5, total: 10, judged: 5, elapsedMs: 10_000, counts: { resolved: 2, unresolved: 2, error: 1, empty_patch: 0 } }, 10),
 *   "[#####.....] 5/10 resolved 2 unresolved 2 error 1 empty 0 | ETA 10s",
 * );
 * ```
 */
export function progressBar(state: ProgressState, width = 24): string {
  const filled = state.total === 0 ? width : Math.round((state.done / state.total) * width);
  const left = state.total - state.done;
  const eta = state.judged > 0 ? duration((state.elapsedMs / state.judged) * left) : "?";
  const c = state.counts;
  return `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${state.done}/${state.total} ` +
    `resolved ${c.resolved} unresolved ${c.unresolved} error ${c.error} empty ${c.empty_patch} | ETA ${eta}`;
}

/**
 * One line per judged candidate: the verdict table's word (what `vouch
 * verify` says of the same patch), then the SWE-bench class and reason.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { candidateLine } from "./progress.ts";
 * equal(candidateLine({ id: "t1", status: "unresolved", reason: "failed_tests", detail: "failToPass not passing: adds" }, 3, 9), "[3/9] t1: REJECTED, unresolved (failed_tests: failToPass not passing: adds)");
 * ```
 */
export function candidateLine(
  c: Pick<CandidateRecord, "id" | "status" | "reason" | "detail" | "verdict">,
  done: number,
  total: number,
): string {
  const why = c.status === "resolved"
    ? ""
    : ` (${c.reason}${c.detail !== c.reason ? `: ${c.detail}` : ""})`;
  return visibleLine(`[${done}/${total}] ${c.id}: ${candidateVerdict(c).word}, ${c.status}${why}`);
}
