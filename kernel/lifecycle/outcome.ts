/**
 * The final state of a task, as a pure function of its record: what the
 * driver reports and the CLI turns into an exit code. No string parsing: the
 * stop reason the kernel recorded decides, through {@linkcode FINAL_STATE_OF}.
 *
 * @module
 */
import type { LifecycleReason } from "./codes.ts";
import type { TaskRecord } from "./state.ts";

/** How a task ended. Stable strings: persisted in logs and `--json` output. */
export const FINAL_STATES = [
  "verified",
  "rejected",
  "budget_exhausted",
  "backend_failed",
  "could_not_run",
  "killed",
] as const;

/** A final state string. */
export type FinalState = typeof FINAL_STATES[number];

/** Reasons a task can stop with (the terminal transition's, or a pause's budget). */
export const STOP_REASONS = [
  "integrated",
  "verified_not_integrated",
  "scope_violation",
  "policy_denied",
  "approval_denied",
  "contract_unusable",
  "integrate_failed",
  "budget_repair_rounds",
  "budget_wall_time",
  "budget_output_bytes",
  "budget_cost_units",
  "backend_failed",
  "backend_unavailable",
  "backend_cancelled",
  "worktree_failed",
  "baseline_unavailable",
  "effect_failed",
  "contradictory_event",
  "killed",
] as const;

/** A stop reason. */
export type StopReason = typeof STOP_REASONS[number];

/**
 * The final state of each stop reason. `budget_repair_rounds` is a rejection
 * (no round passed); it becomes `backend_failed` only when every round was the
 * backend's own failure (see {@linkcode taskOutcome}).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { FINAL_STATE_OF } from "./outcome.ts";
 * equal(FINAL_STATE_OF.backend_cancelled, "backend_failed");
 * equal(FINAL_STATE_OF.baseline_unavailable, "could_not_run");
 * ```
 */
export const FINAL_STATE_OF: { readonly [R in StopReason]: FinalState } = {
  integrated: "verified",
  verified_not_integrated: "verified",
  scope_violation: "rejected",
  policy_denied: "rejected",
  approval_denied: "rejected",
  contract_unusable: "rejected",
  integrate_failed: "rejected",
  budget_repair_rounds: "rejected",
  budget_wall_time: "budget_exhausted",
  budget_output_bytes: "budget_exhausted",
  budget_cost_units: "budget_exhausted",
  backend_failed: "backend_failed",
  backend_unavailable: "backend_failed",
  backend_cancelled: "backend_failed",
  worktree_failed: "could_not_run",
  baseline_unavailable: "could_not_run",
  effect_failed: "could_not_run",
  contradictory_event: "could_not_run",
  killed: "killed",
};

/** A task's final state and the stop reason behind it. */
export interface TaskOutcome {
  /** The final state. */
  readonly state: FinalState;
  /** The stop reason behind it. */
  readonly reason: StopReason;
}

function isStopReason(reason: LifecycleReason | null): reason is StopReason {
  return reason !== null && Object.hasOwn(FINAL_STATE_OF, reason);
}

/**
 * The final state of a task, or `null` while it is still live. A paused task
 * (and one killed while paused) ends with the budget that paused it; out of
 * repair rounds with every round the backend's own failure is `backend_failed`.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { taskOutcome } from "./outcome.ts";
 * import type { TaskRecord } from "./state.ts";
 * const task = { status: "killed", reason: "killed", budgetStop: "budget_wall_time",
 *   round: 0, backendFaults: 0 } as TaskRecord;
 * deepEqual(taskOutcome(task), { state: "budget_exhausted", reason: "budget_wall_time" });
 * ```
 */
export function taskOutcome(task: TaskRecord): TaskOutcome | null {
  const status = task.status;
  const stop = status === "paused" || status === "killed"
    ? task.budgetStop ?? (status === "killed" ? task.reason : null)
    : status === "completed" || status === "rejected" || status === "failed"
    ? task.reason
    : null;
  if (!isStopReason(stop)) {
    return status === "paused" || status === "killed" || status === "completed" ||
        status === "rejected" || status === "failed"
      ? { state: "could_not_run", reason: "contradictory_event" }
      : null;
  }
  if (stop === "budget_repair_rounds" && task.round > 0 && task.backendFaults >= task.round) {
    return { state: "backend_failed", reason: "backend_failed" };
  }
  return { state: FINAL_STATE_OF[stop], reason: stop };
}

/**
 * Kernel reasons that end a round on a judgement of it (a rejection or the
 * backend's own failure), as opposed to vouch stopping (an effect failed, the
 * user's kill, a budget).
 */
const JUDGED: ReadonlySet<LifecycleReason> = new Set<LifecycleReason>([
  "verification_failed",
  "scope_violation",
  "policy_denied",
  "empty_patch",
  "backend_error_no_change",
  "backend_cancelled",
  "backend_failed",
]);

/**
 * How the kernel ended round `round` of a task, read from its record, or
 * `null` while it has not: `verified` when the task reached `verified`,
 * `rejected` when the kernel started a later round or stopped the task on a
 * judgement of this one.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { roundEnding } from "./outcome.ts";
 * import type { TaskRecord } from "./state.ts";
 * const at = (status: string, round: number, reason: string | null) =>
 *   ({ status, round, reason }) as unknown as TaskRecord;
 * equal(roundEnding(at("verified", 1, null), 1), "verified");
 * equal(roundEnding(at("verifying", 2, null), 1), "rejected");
 * equal(roundEnding(at("rejected", 1, "scope_violation"), 1), "rejected");
 * equal(roundEnding(at("killed", 0, "killed"), 1), null);
 * ```
 */
export function roundEnding(task: TaskRecord, round: number): "verified" | "rejected" | null {
  if (task.status === "verified") return "verified";
  if (task.round >= round || (task.reason !== null && JUDGED.has(task.reason))) return "rejected";
  return null;
}
