/**
 * The task lifecycle as data. Every status change `step` makes is one row of
 * {@linkcode TRANSITIONS}; `step` refuses (and fails the task with
 * `contradictory_event`) any move that is not a row. `docs/kernel.md` renders
 * this table.
 *
 * Triggers are either event-triggered (derived from an event and the task,
 * e.g. `verification_fail`) or state-triggered (checked on entering a status,
 * e.g. `budget_exhausted`, `policy_allow`), as in h11's two tables.
 *
 * @module
 */
import type { LifecycleReason, TaskStatus } from "./codes.ts";

/**
 * Transition triggers, written out as stable strings.
 *
 * @example
 * ```ts
 * import { TRIGGER } from "./transitions.ts";
 * const t: string = TRIGGER.verification_fail; // "verification_fail"
 * ```
 */
export const TRIGGER = {
  submit: "submit",
  worktree_ready: "worktree_ready",
  worktree_failed: "worktree_failed",
  backend_started: "backend_started",
  backend_ok: "backend_ok",
  backend_error: "backend_error",
  backend_timed_out: "backend_timed_out",
  backend_cancelled: "backend_cancelled",
  patch_extracted: "patch_extracted",
  patch_empty: "patch_empty",
  patch_empty_after_error: "patch_empty_after_error",
  scope_accept: "scope_accept",
  scope_reject: "scope_reject",
  sensitive_denied: "sensitive_denied",
  baseline_ok: "baseline_ok",
  baseline_unavailable: "baseline_unavailable",
  verification_pass: "verification_pass",
  verification_fail: "verification_fail",
  policy_allow: "policy_allow",
  policy_deny: "policy_deny",
  approval_granted: "approval_granted",
  approval_denied: "approval_denied",
  integrated_ok: "integrated_ok",
  integrated_failed: "integrated_failed",
  budget_exhausted: "budget_exhausted",
  resume: "resume",
  kill: "kill",
  contradictory_event: "contradictory_event",
} as const;

/** A trigger string. */
export type TransitionTrigger = typeof TRIGGER[keyof typeof TRIGGER];

/** One row of the lifecycle table. */
export interface TransitionRow {
  readonly from: TaskStatus | null;
  readonly on: TransitionTrigger;
  readonly to: TaskStatus;
  /** `event` rows fire on an event; `state` rows fire on entering `from`. */
  readonly by: "event" | "state";
  /** Default reason recorded (budget rows record the specific budget instead). */
  readonly reason: LifecycleReason;
  /** One line for the docs. */
  readonly note: string;
}

/** Statuses whose entry starts work and is therefore budget-checked. */
export const WORK_STATUSES: readonly TaskStatus[] = [
  "submitted",
  "worktree_ready",
  "extracting",
  "patch_proposed",
  "scope_checked",
  "verifying",
];

/** Statuses a paused task can resume to (its entry action is re-issued). */
export const RESUMABLE_STATUSES: readonly TaskStatus[] = WORK_STATUSES;

/** Statuses in which a task waits on an in-flight effect. */
export const WAITING_STATUSES: readonly TaskStatus[] = [
  "submitted",
  "worktree_ready",
  "backend_running",
  "extracting",
  "patch_proposed",
  "scope_checked",
  "verifying",
  "integrating",
];

/** Statuses from which a task can be killed (every non-terminal status). */
export const LIVE_STATUSES: readonly TaskStatus[] = [
  "submitted",
  "worktree_ready",
  "backend_running",
  "extracting",
  "patch_proposed",
  "scope_checked",
  "verifying",
  "verified",
  "integrating",
  "paused",
];

const CORE_ROWS: readonly TransitionRow[] = [
  {
    from: null,
    on: "submit",
    to: "submitted",
    by: "event",
    reason: "submitted",
    note: "task_submitted: emit create_worktree",
  },
  {
    from: "submitted",
    on: "worktree_ready",
    to: "worktree_ready",
    by: "event",
    reason: "worktree_created",
    note: "emit run_backend (round 0)",
  },
  {
    from: "submitted",
    on: "worktree_failed",
    to: "failed",
    by: "event",
    reason: "worktree_failed",
    note: "emit cleanup, notify",
  },
  {
    from: "worktree_ready",
    on: "backend_started",
    to: "backend_running",
    by: "event",
    reason: "backend_started",
    note: "informational",
  },
  {
    from: "worktree_ready",
    on: "backend_ok",
    to: "extracting",
    by: "event",
    reason: "backend_done",
    note: "finished without a start event: emit extract_diff",
  },
  {
    from: "backend_running",
    on: "backend_ok",
    to: "extracting",
    by: "event",
    reason: "backend_done",
    note: "account output/cost; emit extract_diff",
  },
  {
    from: "worktree_ready",
    on: "backend_error",
    to: "extracting",
    by: "event",
    reason: "backend_reported_error",
    note: "a failure claim decides nothing (recorded): emit extract_diff, the real diff is judged",
  },
  {
    from: "backend_running",
    on: "backend_error",
    to: "extracting",
    by: "event",
    reason: "backend_reported_error",
    note: "a failure claim decides nothing (recorded): emit extract_diff, the real diff is judged",
  },
  {
    from: "worktree_ready",
    on: "backend_timed_out",
    to: "worktree_ready",
    by: "event",
    reason: "repair_round",
    note: "stopped mid-work: spends a round, emit run_backend (round + 1)",
  },
  {
    from: "backend_running",
    on: "backend_timed_out",
    to: "worktree_ready",
    by: "event",
    reason: "repair_round",
    note: "stopped mid-work: spends a round, emit run_backend (round + 1)",
  },
  {
    from: "worktree_ready",
    on: "backend_cancelled",
    to: "failed",
    by: "event",
    reason: "backend_cancelled",
    note: "cancelled by someone else",
  },
  {
    from: "backend_running",
    on: "backend_cancelled",
    to: "failed",
    by: "event",
    reason: "backend_cancelled",
    note: "cancelled by someone else",
  },
  {
    from: "extracting",
    on: "patch_extracted",
    to: "patch_proposed",
    by: "event",
    reason: "patch_extracted",
    note: "emit check_scope",
  },
  {
    from: "extracting",
    on: "patch_empty",
    to: "worktree_ready",
    by: "event",
    reason: "repair_round",
    note: "backend changed nothing: emit run_backend (round + 1)",
  },
  {
    from: "extracting",
    on: "patch_empty_after_error",
    to: "worktree_ready",
    by: "event",
    reason: "repair_round",
    note: "reported failure, changed nothing: failed round (`backend_error_no_change`), round + 1",
  },
  {
    from: "patch_proposed",
    on: "scope_accept",
    to: "scope_checked",
    by: "event",
    reason: "scope_accepted",
    note: "emit run_contract (baseline first, then the round)",
  },
  {
    from: "patch_proposed",
    on: "scope_reject",
    to: "rejected",
    by: "event",
    reason: "scope_violation",
    note: "violations recorded; emit cleanup, notify",
  },
  {
    from: "patch_proposed",
    on: "sensitive_denied",
    to: "rejected",
    by: "event",
    reason: "policy_denied",
    note: "a changed file's sensitive class is denied by policy",
  },
  {
    from: "scope_checked",
    on: "baseline_ok",
    to: "verifying",
    by: "event",
    reason: "baseline_recorded",
    note: "emit run_contract (round)",
  },
  {
    from: "scope_checked",
    on: "baseline_unavailable",
    to: "failed",
    by: "event",
    reason: "baseline_unavailable",
    note: "fail closed: no baseline, no verdict",
  },
  {
    from: "scope_checked",
    on: "verification_pass",
    to: "verified",
    by: "event",
    reason: "verification_passed",
    note: "repair round (baseline already known)",
  },
  {
    from: "verifying",
    on: "verification_pass",
    to: "verified",
    by: "event",
    reason: "verification_passed",
    note: "every check passed",
  },
  {
    from: "scope_checked",
    on: "verification_fail",
    to: "worktree_ready",
    by: "event",
    reason: "repair_round",
    note: "emit run_backend (round + 1) with the failing checks",
  },
  {
    from: "verifying",
    on: "verification_fail",
    to: "worktree_ready",
    by: "event",
    reason: "repair_round",
    note: "emit run_backend (round + 1) with the failing checks",
  },
  {
    from: "verified",
    on: "policy_allow",
    to: "integrating",
    by: "state",
    reason: "integration_allowed",
    note: "reversible integrate under `full`: emit integrate with a token",
  },
  {
    from: "verified",
    on: "policy_deny",
    to: "completed",
    by: "state",
    reason: "verified_not_integrated",
    note: "`readonly` profile: the verified patch is the result",
  },
  {
    from: "verified",
    on: "approval_granted",
    to: "integrating",
    by: "event",
    reason: "approval_granted",
    note: "matching, unexpired, unused approval: emit integrate with a token",
  },
  {
    from: "verified",
    on: "approval_denied",
    to: "rejected",
    by: "event",
    reason: "approval_denied",
    note: "emit cleanup, notify",
  },
  {
    from: "integrating",
    on: "integrated_ok",
    to: "completed",
    by: "event",
    reason: "integrated",
    note: "emit cleanup, notify",
  },
  {
    from: "integrating",
    on: "integrated_failed",
    to: "failed",
    by: "event",
    reason: "integrate_failed",
    note: "emit cleanup, notify",
  },
];

function generatedRows(): TransitionRow[] {
  const rows: TransitionRow[] = [];
  for (const from of WORK_STATUSES) {
    rows.push({
      from,
      on: "budget_exhausted",
      to: "paused",
      by: "state",
      reason: "budget_wall_time",
      note: "on entry or timer tick: a budget is spent (reason names which)",
    });
  }
  rows.push({
    from: "backend_running",
    on: "budget_exhausted",
    to: "paused",
    by: "event",
    reason: "budget_wall_time",
    note: "timer tick past the deadline: emit cancel_effect",
  });
  for (const to of RESUMABLE_STATUSES) {
    rows.push({
      from: "paused",
      on: "resume",
      to,
      by: "event",
      reason: "resumed",
      note: "budget_extended makes every budget fit again: re-issue the entry action",
    });
  }
  for (const from of LIVE_STATUSES) {
    rows.push({
      from,
      on: "kill",
      to: "killed",
      by: "event",
      reason: "killed",
      note: "emit cleanup (cancelling anything running), notify",
    });
  }
  for (const from of WAITING_STATUSES) {
    rows.push({
      from,
      on: "contradictory_event",
      to: "failed",
      by: "event",
      reason: "contradictory_event",
      note: "a result contradicts the effect it names (wrong kind, round, or repeat)",
    });
  }
  return rows;
}

/**
 * The lifecycle table. Terminal statuses (`completed`, `rejected`, `failed`,
 * `killed`) have no outgoing rows: they absorb every event.
 *
 * @example
 * ```ts
 * import { TRANSITIONS } from "./transitions.ts";
 * const row = TRANSITIONS.find((r) => r.from === "verifying" && r.on === "verification_pass");
 * row?.to; // "verified"
 * ```
 */
export const TRANSITIONS: readonly TransitionRow[] = [...CORE_ROWS, ...generatedRows()];

const INDEX: Record<string, Record<string, TaskStatus[]>> = buildIndex();

function buildIndex(): Record<string, Record<string, TaskStatus[]>> {
  const index: Record<string, Record<string, TaskStatus[]>> = {};
  for (const row of TRANSITIONS) {
    const from = row.from ?? "";
    const byOn = index[from] ?? (index[from] = {});
    (byOn[row.on] ?? (byOn[row.on] = [])).push(row.to);
  }
  return index;
}

/**
 * Whether the table has the row `from --on--> to`.
 *
 * @example
 * ```ts
 * import { isTransition } from "./transitions.ts";
 * isTransition("verified", "approval_granted", "integrating"); // true
 * isTransition("completed", "kill", "killed"); // false: terminal
 * ```
 */
export function isTransition(
  from: TaskStatus | null,
  on: TransitionTrigger,
  to: TaskStatus,
): boolean {
  const tos = INDEX[from ?? ""]?.[on];
  return tos !== undefined && tos.includes(to);
}
