/**
 * The task lifecycle as data. {@linkcode TRANSITIONS} is keyed by
 * (status, trigger) and gives the one destination and reason; `step` derives
 * one trigger from (task, event), looks the row up and applies it. A
 * (status, trigger) pair with no row contradicts the lifecycle: the task fails
 * with `contradictory_event`. {@linkcode ENTRY} gives what entering each
 * status does. `docs/kernel.md` renders both tables (a test keeps them equal).
 *
 * @module
 */
import type { LifecycleReason, NotifyLevel, TaskStatus } from "./codes.ts";

/**
 * Transition triggers. Event triggers are derived from an event and the task
 * (e.g. `verification_fail`); `budget_exhausted` also fires on entering a
 * budgeted status; `policy_*` are derived from the policy once the verified
 * patch is minted; `backend_unrecoverable` replaces a repair-round trigger
 * after the backend said retrying cannot help.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { TRIGGERS } from "./transitions.ts";
 * equal(TRIGGERS.includes("verification_fail"), true);
 * ```
 */
export const TRIGGERS = [
  "submit",
  "worktree_ready",
  "worktree_ready_no_baseline",
  "worktree_ready_start_backend",
  "worktree_failed",
  "backend_ready",
  "backend_ready_no_baseline",
  "backend_unavailable",
  "baseline_ok",
  "baseline_unusable",
  "baseline_unavailable",
  "backend_started",
  "backend_ok",
  "backend_error",
  "backend_timed_out",
  "backend_cancelled",
  "backend_unrecoverable",
  "patch_extracted",
  "patch_empty",
  "patch_empty_after_error",
  "scope_accept",
  "scope_reject",
  "scope_retry",
  "sensitive_denied",
  "verification_pass",
  "verification_fail",
  "policy_allow",
  "policy_deny",
  "policy_ask",
  "approval_granted",
  "approval_denied",
  "approval_expired",
  "integrated_ok",
  "integrated_failed",
  "effect_failed",
  "budget_exhausted",
  "resume_submitted",
  "resume_starting_backend",
  "resume_baselining",
  "resume_worktree_ready",
  "resume_extracting",
  "resume_patch_proposed",
  "resume_verifying",
  "kill",
  "contradictory_event",
] as const;

/** A trigger string. */
export type TransitionTrigger = typeof TRIGGERS[number];

/** One row: where a (status, trigger) pair leads. */
export interface Transition {
  /** The status the task moves to. */
  readonly to: TaskStatus;
  /** Reason recorded (a budget pause records the specific budget instead). */
  readonly reason: LifecycleReason;
  /** Set on rows that start a new backend round: why that round runs (its feedback reason). */
  readonly round?: LifecycleReason;
}

/** The "status" before a task exists (the row of `task_submitted`). */
export const NEW_TASK = "new" as const;

/** Rows by status, then trigger. */
export type TransitionTable = {
  readonly [S in TaskStatus | typeof NEW_TASK]: { readonly [T in TransitionTrigger]?: Transition };
};

/** Reasons of rounds that ended as the backend's own failure (counted per task). */
export const BACKEND_FAULT_REASONS: readonly LifecycleReason[] = [
  "backend_failed",
  "backend_error_no_change",
];

const KILL: Transition = { to: "killed", reason: "killed" };
const CONTRADICTORY: Transition = { to: "failed", reason: "contradictory_event" };
const EFFECT_FAILED: Transition = { to: "failed", reason: "effect_failed" };
const PAUSE: Transition = { to: "paused", reason: "budget_wall_time" };
const UNRECOVERABLE: Transition = { to: "failed", reason: "backend_failed" };

/** What every status that waits on an effect also accepts. */
const WAITING = {
  kill: KILL,
  contradictory_event: CONTRADICTORY,
  effect_failed: EFFECT_FAILED,
} as const;

/** What a budgeted status also accepts. */
const BUDGETED = { ...WAITING, budget_exhausted: PAUSE } as const;

/** A backend run's end, from `worktree_ready` (no start event seen) or `backend_running`. */
const BACKEND_END = {
  backend_ok: { to: "extracting", reason: "backend_done" },
  backend_error: { to: "extracting", reason: "backend_reported_error" },
  backend_timed_out: { to: "worktree_ready", reason: "repair_round", round: "backend_failed" },
  backend_cancelled: { to: "failed", reason: "backend_cancelled" },
  backend_unrecoverable: UNRECOVERABLE,
} as const;

/**
 * The lifecycle table. Terminal statuses (`completed`, `rejected`, `failed`,
 * `killed`) have no rows: they absorb every event.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { TRANSITIONS } from "./transitions.ts";
 * equal(TRANSITIONS.verifying.verification_pass?.to, "verified");
 * equal(TRANSITIONS.completed.kill, undefined);
 * ```
 */
export const TRANSITIONS: TransitionTable = {
  new: { submit: { to: "submitted", reason: "submitted" } },
  submitted: {
    ...BUDGETED,
    worktree_ready: { to: "baselining", reason: "worktree_created" },
    worktree_ready_no_baseline: { to: "worktree_ready", reason: "worktree_created" },
    // An agent is started in the worktree (and found unable to) before any check runs.
    worktree_ready_start_backend: { to: "starting_backend", reason: "worktree_created" },
    worktree_failed: { to: "failed", reason: "worktree_failed" },
  },
  starting_backend: {
    ...BUDGETED,
    backend_ready: { to: "baselining", reason: "backend_ready" },
    backend_ready_no_baseline: { to: "worktree_ready", reason: "backend_ready" },
    backend_unavailable: { to: "failed", reason: "backend_unavailable" },
  },
  baselining: {
    ...BUDGETED,
    baseline_ok: { to: "worktree_ready", reason: "baseline_recorded" },
    baseline_unusable: { to: "rejected", reason: "contract_unusable" },
    baseline_unavailable: { to: "failed", reason: "baseline_unavailable" },
  },
  worktree_ready: {
    ...BUDGETED,
    ...BACKEND_END,
    backend_started: { to: "backend_running", reason: "backend_started" },
  },
  backend_running: { ...BUDGETED, ...BACKEND_END },
  extracting: {
    ...BUDGETED,
    patch_extracted: { to: "patch_proposed", reason: "patch_extracted" },
    patch_empty: { to: "worktree_ready", reason: "repair_round", round: "empty_patch" },
    patch_empty_after_error: {
      to: "worktree_ready",
      reason: "repair_round",
      round: "backend_error_no_change",
    },
    backend_unrecoverable: UNRECOVERABLE,
  },
  patch_proposed: {
    ...BUDGETED,
    scope_accept: { to: "verifying", reason: "scope_accepted" },
    scope_reject: { to: "rejected", reason: "scope_violation" },
    // Rounds left: the backend gets the violation as feedback, as for a failing check.
    scope_retry: { to: "worktree_ready", reason: "repair_round", round: "scope_violation" },
    sensitive_denied: { to: "rejected", reason: "policy_denied" },
  },
  verifying: {
    ...BUDGETED,
    verification_pass: { to: "verified", reason: "verification_passed" },
    verification_fail: {
      to: "worktree_ready",
      reason: "repair_round",
      round: "verification_failed",
    },
    backend_unrecoverable: UNRECOVERABLE,
  },
  verified: {
    ...WAITING,
    policy_allow: { to: "integrating", reason: "integration_allowed" },
    policy_deny: { to: "completed", reason: "verified_not_integrated" },
    policy_ask: { to: "awaiting_approval", reason: "approval_required" },
  },
  awaiting_approval: {
    kill: KILL,
    approval_granted: { to: "integrating", reason: "approval_granted" },
    approval_denied: { to: "rejected", reason: "approval_denied" },
    approval_expired: { to: "awaiting_approval", reason: "approval_expired" },
  },
  integrating: {
    ...WAITING,
    integrated_ok: { to: "completed", reason: "integrated" },
    integrated_failed: { to: "failed", reason: "integrate_failed" },
  },
  paused: {
    kill: KILL,
    resume_submitted: { to: "submitted", reason: "resumed" },
    resume_starting_backend: { to: "starting_backend", reason: "resumed" },
    resume_baselining: { to: "baselining", reason: "resumed" },
    resume_worktree_ready: { to: "worktree_ready", reason: "resumed" },
    resume_extracting: { to: "extracting", reason: "resumed" },
    resume_patch_proposed: { to: "patch_proposed", reason: "resumed" },
    resume_verifying: { to: "verifying", reason: "resumed" },
  },
  completed: {},
  rejected: {},
  failed: {},
  killed: {},
};

/** What entering a status does (`none`: the effect already in flight is still awaited). */
export const ENTRY_ACTIONS = [
  "create_worktree",
  "start_backend",
  "run_baseline",
  "run_backend",
  "extract_diff",
  "check_scope",
  "run_round",
  "mint",
  "request_approval",
  "integrate",
  "cancel",
  "cleanup",
  "none",
] as const;

/** An entry action. */
export type EntryAction = typeof ENTRY_ACTIONS[number];

/** One row of {@linkcode ENTRY}. */
export interface Entry {
  /** The action emitted on entry. */
  readonly action: EntryAction;
  /** Entry starts work: a spent budget pauses the task instead (`budget_exhausted`). */
  readonly budgeted: boolean;
  /** A `notify` emitted on entry (reason: the transition's), or `null`. */
  readonly notify: NotifyLevel | null;
  /** Where a pause in this status resumes (`null`: not pausable). */
  readonly resumeAs: TaskStatus | null;
}

/**
 * The entry table: what entering each status emits.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { ENTRY } from "./transitions.ts";
 * equal(ENTRY.verified.action, "mint");
 * equal(ENTRY.killed.notify, "warn");
 * ```
 */
export const ENTRY: { readonly [S in TaskStatus]: Entry } = {
  submitted: { action: "create_worktree", budgeted: true, notify: null, resumeAs: "submitted" },
  starting_backend: {
    action: "start_backend",
    budgeted: true,
    notify: null,
    resumeAs: "starting_backend",
  },
  baselining: { action: "run_baseline", budgeted: true, notify: null, resumeAs: "baselining" },
  worktree_ready: {
    action: "run_backend",
    budgeted: true,
    notify: null,
    resumeAs: "worktree_ready",
  },
  backend_running: { action: "none", budgeted: false, notify: null, resumeAs: "worktree_ready" },
  extracting: { action: "extract_diff", budgeted: true, notify: null, resumeAs: "extracting" },
  patch_proposed: {
    action: "check_scope",
    budgeted: true,
    notify: null,
    resumeAs: "patch_proposed",
  },
  verifying: { action: "run_round", budgeted: true, notify: null, resumeAs: "verifying" },
  verified: { action: "mint", budgeted: false, notify: null, resumeAs: null },
  awaiting_approval: {
    action: "request_approval",
    budgeted: false,
    notify: "action_required",
    resumeAs: null,
  },
  integrating: { action: "integrate", budgeted: false, notify: null, resumeAs: null },
  paused: { action: "cancel", budgeted: false, notify: "warn", resumeAs: null },
  completed: { action: "cleanup", budgeted: false, notify: "info", resumeAs: null },
  rejected: { action: "cleanup", budgeted: false, notify: "warn", resumeAs: null },
  failed: { action: "cleanup", budgeted: false, notify: "warn", resumeAs: null },
  killed: { action: "cleanup", budgeted: false, notify: "warn", resumeAs: null },
};

/** One row of the table as a flat record (for docs and tests). */
export interface TransitionRow extends Transition {
  /** The status the row starts from (or a new task). */
  readonly from: TaskStatus | typeof NEW_TASK;
  /** The trigger. */
  readonly on: TransitionTrigger;
}

/**
 * Every row of {@linkcode TRANSITIONS}, flattened in table order.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { transitionRows } from "./transitions.ts";
 * const row = transitionRows().find((r) => r.from === "baselining" && r.on === "baseline_ok");
 * equal(row?.to, "worktree_ready");
 * ```
 */
export function transitionRows(): TransitionRow[] {
  const rows: TransitionRow[] = [];
  for (const [from, byTrigger] of Object.entries(TRANSITIONS)) {
    for (const [on, row] of Object.entries(byTrigger)) {
      rows.push({ from: from as TransitionRow["from"], on: on as TransitionTrigger, ...row });
    }
  }
  return rows;
}
