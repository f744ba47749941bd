/**
 * Stable string forms of every persisted lifecycle enum. Each value is written
 * out by hand so renaming an identifier can never change what lands in a log.
 *
 * @module
 */

/**
 * Task statuses. `completed`, `rejected`, `failed` and `killed` are terminal.
 *
 * @example
 * ```ts
 * import { TASK_STATUS } from "./codes.ts";
 * const s: string = TASK_STATUS.backend_running; // "backend_running"
 * ```
 */
export const TASK_STATUS = {
  submitted: "submitted",
  worktree_ready: "worktree_ready",
  backend_running: "backend_running",
  extracting: "extracting",
  patch_proposed: "patch_proposed",
  scope_checked: "scope_checked",
  verifying: "verifying",
  verified: "verified",
  integrating: "integrating",
  completed: "completed",
  rejected: "rejected",
  paused: "paused",
  failed: "failed",
  killed: "killed",
} as const;

/** A task status string. */
export type TaskStatus = typeof TASK_STATUS[keyof typeof TASK_STATUS];

/** Every status, in lifecycle order. */
export const TASK_STATUSES: readonly TaskStatus[] = [
  "submitted",
  "worktree_ready",
  "backend_running",
  "extracting",
  "patch_proposed",
  "scope_checked",
  "verifying",
  "verified",
  "integrating",
  "completed",
  "rejected",
  "paused",
  "failed",
  "killed",
];

/** Terminal statuses: they absorb every later event (at most an audit record). */
export const TERMINAL_STATUSES: readonly TaskStatus[] = [
  "completed",
  "rejected",
  "failed",
  "killed",
];

/**
 * Whether a status is terminal.
 *
 * @example
 * ```ts
 * import { isTerminalStatus } from "./codes.ts";
 * isTerminalStatus("killed"); // true
 * ```
 */
export function isTerminalStatus(status: TaskStatus): boolean {
  return status === "completed" || status === "rejected" || status === "failed" ||
    status === "killed";
}

/** Event kinds (the `kind` field of a {@linkcode KernelEvent}). */
export const EVENT_KIND = {
  task_submitted: "task_submitted",
  worktree_ready: "worktree_ready",
  worktree_failed: "worktree_failed",
  backend_started: "backend_started",
  backend_finished: "backend_finished",
  patch_extracted: "patch_extracted",
  scope_checked: "scope_checked",
  baseline_result: "baseline_result",
  verification_result: "verification_result",
  approval_granted: "approval_granted",
  approval_denied: "approval_denied",
  integrated: "integrated",
  cleanup_done: "cleanup_done",
  kill_requested: "kill_requested",
  budget_extended: "budget_extended",
  timer_tick: "timer_tick",
} as const;

/** An event kind string. */
export type EventKind = typeof EVENT_KIND[keyof typeof EVENT_KIND];

/** Action kinds (the `kind` field of a {@linkcode KernelAction}). */
export const ACTION_KIND = {
  create_worktree: "create_worktree",
  run_backend: "run_backend",
  cancel_effect: "cancel_effect",
  extract_diff: "extract_diff",
  check_scope: "check_scope",
  run_contract: "run_contract",
  request_approval: "request_approval",
  integrate: "integrate",
  cleanup: "cleanup",
  append_log: "append_log",
  notify: "notify",
} as const;

/** An action kind string. */
export type ActionKind = typeof ACTION_KIND[keyof typeof ACTION_KIND];

/** Action kinds that are tool effects (everything but `append_log`). */
export const TOOL_ACTION_KINDS: readonly ActionKind[] = [
  "create_worktree",
  "run_backend",
  "cancel_effect",
  "extract_diff",
  "check_scope",
  "run_contract",
  "request_approval",
  "integrate",
  "cleanup",
  "notify",
];

/** Effects a policy rules on, including ones the kernel does not emit yet (push, PR). */
export const GATED_EFFECT = {
  integrate: "integrate",
  push: "push",
  open_pr: "open_pr",
} as const;

/** An effect kind the policy gates. */
export type GatedEffect = typeof GATED_EFFECT[keyof typeof GATED_EFFECT];

/** Risk profiles of a {@linkcode PolicySnapshot}. */
export const RISK_PROFILE = {
  readonly: "readonly",
  supervised: "supervised",
  full: "full",
} as const;

/** A risk profile string. */
export type RiskProfile = typeof RISK_PROFILE[keyof typeof RISK_PROFILE];

/** Reversibility of an effect. */
export const REVERSIBILITY = {
  reversible: "reversible",
  irreversible: "irreversible",
} as const;

/** A reversibility string. */
export type Reversibility = typeof REVERSIBILITY[keyof typeof REVERSIBILITY];

/** Sensitive-path classes a scope check reports for changed files. */
export const SENSITIVE_CLASS = {
  ci_workflow: "ci_workflow",
  dependency_manifest: "dependency_manifest",
  lockfile: "lockfile",
  secrets: "secrets",
  executable: "executable",
  symlink: "symlink",
} as const;

/** A sensitive-path class string. */
export type SensitiveClass = typeof SENSITIVE_CLASS[keyof typeof SENSITIVE_CLASS];

/** Every sensitive class. */
export const SENSITIVE_CLASSES: readonly SensitiveClass[] = [
  "ci_workflow",
  "dependency_manifest",
  "lockfile",
  "secrets",
  "executable",
  "symlink",
];

/** A policy decision. */
export const POLICY_DECISION = {
  allow: "allow",
  deny: "deny",
  require_approval: "require_approval",
} as const;

/** A policy decision string. */
export type PolicyDecision = typeof POLICY_DECISION[keyof typeof POLICY_DECISION];

/** Outcome of a single check in a contract run. `inconclusive` counts as a failure. */
export const ROUND_CHECK_OUTCOME = {
  pass: "pass",
  fail: "fail",
  inconclusive: "inconclusive",
} as const;

/** A check outcome string. */
export type RoundCheckOutcome = typeof ROUND_CHECK_OUTCOME[keyof typeof ROUND_CHECK_OUTCOME];

/** How a backend run ended. */
export const BACKEND_OUTCOME = {
  ok: "ok",
  error: "error",
  cancelled: "cancelled",
  timed_out: "timed_out",
} as const;

/** A backend outcome string. */
export type BackendOutcome = typeof BACKEND_OUTCOME[keyof typeof BACKEND_OUTCOME];

/**
 * Reason codes: why a task moved, paused, stopped, or why an event was
 * ignored or judged risky. Stable strings, persisted in audit records.
 *
 * @example
 * ```ts
 * import { LIFECYCLE_REASON } from "./codes.ts";
 * const r: string = LIFECYCLE_REASON.budget_repair_rounds; // "budget_repair_rounds"
 * ```
 */
export const LIFECYCLE_REASON = {
  // progress
  submitted: "submitted",
  worktree_created: "worktree_created",
  backend_started: "backend_started",
  backend_done: "backend_done",
  backend_reported_error: "backend_reported_error",
  patch_extracted: "patch_extracted",
  scope_accepted: "scope_accepted",
  baseline_recorded: "baseline_recorded",
  verification_passed: "verification_passed",
  verification_failed: "verification_failed",
  repair_round: "repair_round",
  approval_required: "approval_required",
  approval_granted: "approval_granted",
  integration_allowed: "integration_allowed",
  integrated: "integrated",
  verified_not_integrated: "verified_not_integrated",
  resumed: "resumed",
  budget_extended: "budget_extended",
  // pauses (budget)
  budget_wall_time: "budget_wall_time",
  budget_repair_rounds: "budget_repair_rounds",
  budget_output_bytes: "budget_output_bytes",
  budget_cost_units: "budget_cost_units",
  budget_still_exhausted: "budget_still_exhausted",
  // stops
  worktree_failed: "worktree_failed",
  backend_failed: "backend_failed",
  backend_error_no_change: "backend_error_no_change",
  backend_cancelled: "backend_cancelled",
  empty_patch: "empty_patch",
  scope_violation: "scope_violation",
  policy_denied: "policy_denied",
  baseline_unavailable: "baseline_unavailable",
  approval_denied: "approval_denied",
  integrate_failed: "integrate_failed",
  killed: "killed",
  // risks and anomalies
  contradictory_event: "contradictory_event",
  stale_result: "stale_result",
  unknown_task: "unknown_task",
  duplicate_task: "duplicate_task",
  invalid_task_id: "invalid_task_id",
  approval_unknown: "approval_unknown",
  approval_mismatch: "approval_mismatch",
  approval_expired: "approval_expired",
  approval_reused: "approval_reused",
  terminal_absorbed: "terminal_absorbed",
} as const;

/** A reason code string. */
export type LifecycleReason = typeof LIFECYCLE_REASON[keyof typeof LIFECYCLE_REASON];

/** Every reason code (for docs and exhaustive tests). */
export const LIFECYCLE_REASONS: readonly LifecycleReason[] = Object.values(LIFECYCLE_REASON);
