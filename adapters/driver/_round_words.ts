/**
 * A round's reasons and details, read from its evidence (never kept beside
 * it): the backend's stop, an extraction that failed, an empty patch, the
 * scope check's violations, the policy's denial, the clean verification's
 * refusals and failing checks, in that order.
 *
 * @module
 */
import { violationDetail } from "../verification/check_detail.ts";
import type { CheckSummary } from "./outcome.ts";
import type { PromptRound } from "./round_prompt.ts";
import type { RoundState, TaskRun } from "./_task_run.ts";

/** Whether the backend stopped before there was anything to judge. */
function stopped(r: RoundState): "timed_out" | "cancelled" | null {
  const status = r.backend?.status;
  return status === "timed_out" || status === "cancelled" ? status : null;
}

/** The round's stable reason codes, in the order its evidence arose (may repeat). */
export function roundReasons(r: RoundState): string[] {
  const stop = stopped(r);
  const cannotStart = r.run?.cannotStart ?? [];
  return [
    ...(stop !== null ? [`backend_${stop}`] : []),
    ...(r.extractFailed ? ["extract_failed"] : []),
    ...(r.changes === 0
      ? [r.backend?.status === "error" ? "backend_error_no_change" : "empty_patch"]
      : []),
    ...r.violations.map((v) => v.code),
    ...(r.denied !== null ? [`policy_denied:${r.denied}`] : []),
    ...(r.run?.refusals ?? []),
    ...(cannotStart.length > 0 ? ["verify_command_cannot_start"] : []),
  ];
}

/** Why the round was rejected, one sentence each (see `RoundSummary.details`). */
export function roundDetails(run: TaskRun, r: RoundState): string[] {
  const stop = stopped(r);
  return [
    ...(stop !== null ? [`the backend ${stop.replace("_", " ")}; nothing to judge`] : []),
    ...(r.changes === 0 ? [run.o.source.emptyDetail] : []),
    ...r.violations.map((v) => violationDetail(v, run.o.rules)),
    ...(r.run?.why !== undefined ? [r.run.why] : []),
    ...roundChecks(r).filter((c) => !c.passed).map((c) =>
      `check "${c.name}": ${c.detail ?? c.outcome}`
    ),
  ];
}

/** Per-check results of the round's clean re-verification (empty if it never got there). */
export function roundChecks(r: RoundState): CheckSummary[] {
  return [...(r.run?.summaries ?? [])];
}

/** The part of a round the next round's prompt is built from. */
export function promptRound(r: RoundState): PromptRound {
  return { round: r.round, reasons: roundReasons(r), checks: roundChecks(r), backend: r.backend };
}
