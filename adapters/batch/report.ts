/**
 * The batch report: SWE-bench's run-report keys (`resolved_ids`,
 * `unresolved_ids`, `error_ids`, `empty_patch_ids`, `completed_ids`, ... and
 * their counts) over candidate ids, plus vouch's record (reason, listed tests
 * before/after, artefacts) of every candidate. Built the same way from a local
 * run, a queue's results or merged shards, so they compare equal. Pure.
 *
 * @module
 */
import { VouchError } from "../../kernel/errors/mod.ts";
import type { Shard } from "./plan.ts";
import type { BatchReport, CandidateRecord } from "./schema.ts";

/** Stable codes of {@linkcode MergeError}. */
export type MergeErrorCode = "shards_mismatch" | "shards_incomplete" | "shards_overlap";

/** Shard reports that do not make one batch. */
export class MergeError extends VouchError<MergeErrorCode> {}

const sorted = (ids: Iterable<string>) => [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** Codes that say a suite's result was not the patch's to answer for (inconclusive runs). */
const AMBIGUOUS_CODES = ["tests_exit_without_failures", "tests_none_ran"];

/**
 * A failure that does not clearly rest on the patch: the task's own lists
 * contradict its base (`contract_invalid`), or the suite's run was
 * inconclusive (it exited non-zero showing no failing test, or ran none).
 */
function isAmbiguous(c: CandidateRecord): boolean {
  if (c.status === "resolved" || c.status === "empty_patch") return false;
  return c.reason === "contract_invalid" ||
    c.reasons.some((r) => AMBIGUOUS_CODES.includes(r)) || /\(inconclusive\)/.test(c.detail);
}

/**
 * Builds the report from the batch's input summary and the judged candidates.
 *
 * @example
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * import { buildReport } from "./report.ts";
 * const r = buildReport({ tasks: "t", predictions: "p", task_ids: ["a", "b"], candidate_ids: ["a"], unpredicted_task_ids: ["b"] }, [], null);
 * deepEqual(r.incomplete_ids, ["a", "b"]);
 * equal(r.total_instances, 2);
 * ```
 */
export function buildReport(
  input: BatchReport["input"],
  records: readonly CandidateRecord[],
  shard: Shard | null,
): BatchReport {
  const candidates = [...records].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const ids = (status: CandidateRecord["status"]) =>
    candidates.filter((c) => c.status === status).map((c) => c.id);
  const resolved = ids("resolved");
  const unresolved = ids("unresolved");
  const judged = new Set(candidates.map((c) => c.id));
  const reasons: Record<string, number> = {};
  for (const c of candidates) reasons[c.reason] = (reasons[c.reason] ?? 0) + 1;
  const completed = sorted([...resolved, ...unresolved]);
  const empty = ids("empty_patch");
  const errors = ids("error");
  const failureReasons: Record<string, string> = {};
  for (const c of candidates) {
    if (c.status !== "resolved") failureReasons[c.id] = `${c.reason}: ${c.detail}`;
  }
  return {
    schema_version: 2,
    vouch_batch_report: 1,
    total_instances: input.task_ids.length,
    submitted_instances: input.candidate_ids.length,
    completed_instances: completed.length,
    resolved_instances: resolved.length,
    unresolved_instances: unresolved.length,
    empty_patch_instances: empty.length,
    error_instances: errors.length,
    completed_ids: completed,
    incomplete_ids: sorted([
      ...input.candidate_ids.filter((id) => !judged.has(id)),
      ...input.unpredicted_task_ids,
    ]),
    empty_patch_ids: empty,
    submitted_ids: sorted(input.candidate_ids),
    resolved_ids: resolved,
    unresolved_ids: unresolved,
    error_ids: errors,
    failure_reasons: failureReasons,
    infra_failure_ids: candidates.filter((c) => c.reason === "could_not_run").map((c) => c.id),
    ambiguous_failure_ids: candidates.filter(isAmbiguous).map((c) => c.id),
    input,
    shard: shard === null ? null : { index: shard.index, count: shard.count },
    reasons: Object.fromEntries(Object.entries(reasons).sort(([a], [b]) => (a < b ? -1 : 1))),
    candidates,
  };
}

/**
 * Combines the reports of shards `1/N` … `N/N` of one batch into the report
 * the unsharded batch writes. Refuses reports of different inputs, missing or
 * repeated shards.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { buildReport, mergeReports } from "./report.ts";
 * const input = { tasks: "t", predictions: "p", task_ids: [], candidate_ids: [], unpredicted_task_ids: [] };
 * deepEqual(
 *   mergeReports([buildReport(input, [], { index: 2, count: 2 }), buildReport(input, [], { index: 1, count: 2 })]),
 *   buildReport(input, [], null),
 * );
 * ```
 */
export function mergeReports(reports: readonly BatchReport[]): BatchReport {
  const first = reports[0];
  if (first === undefined) throw new MergeError("shards_incomplete", "Cannot merge: no reports");
  const same = JSON.stringify(first.input);
  const seen = new Set<number>();
  let count: number | null = null;
  for (const r of reports) {
    if (JSON.stringify(r.input) !== same) {
      throw new MergeError("shards_mismatch", "Cannot merge: the reports are of different inputs");
    }
    const shard = r.shard ?? { index: 1, count: 1 };
    if (count !== null && shard.count !== count) {
      throw new MergeError(
        "shards_mismatch",
        "Cannot merge: the reports use different shard counts",
      );
    }
    count = shard.count;
    if (seen.has(shard.index)) {
      throw new MergeError("shards_overlap", `Cannot merge: shard ${shard.index}/${count} twice`);
    }
    seen.add(shard.index);
  }
  if (seen.size !== count) {
    const missing = Array.from({ length: count! }, (_, i) => i + 1).filter((i) => !seen.has(i));
    throw new MergeError(
      "shards_incomplete",
      `Cannot merge: missing shard(s) ${missing.map((i) => `${i}/${count}`).join(", ")}`,
    );
  }
  return buildReport(first.input, reports.flatMap((r) => r.candidates), null);
}
