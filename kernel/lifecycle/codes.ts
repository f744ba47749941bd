/**
 * Stable string forms of every persisted lifecycle enum. Each enum is ONE
 * `as const` array (its type is derived from it), written out by hand so
 * renaming an identifier can never change what lands in a log.
 *
 * @module
 */

/**
 * Task statuses, in lifecycle order. `completed`, `rejected`, `failed` and
 * `killed` are terminal.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { TASK_STATUSES } from "./codes.ts";
 * equal(TASK_STATUSES[0], "submitted");
 * equal(TASK_STATUSES.includes("baselining"), true);
 * ```
 */
export const TASK_STATUSES = [
  "submitted",
  "starting_backend",
  "baselining",
  "worktree_ready",
  "backend_running",
  "extracting",
  "patch_proposed",
  "verifying",
  "verified",
  "awaiting_approval",
  "integrating",
  "completed",
  "rejected",
  "paused",
  "failed",
  "killed",
] as const;

/** A task status string. */
export type TaskStatus = typeof TASK_STATUSES[number];

/** Terminal statuses: they absorb every later event (at most an audit record). */
export const TERMINAL_STATUSES = ["completed", "rejected", "failed", "killed"] as const;

/**
 * Whether a status is terminal.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { isTerminalStatus } from "./codes.ts";
 * equal(isTerminalStatus("killed"), true);
 * equal(isTerminalStatus("paused"), false);
 * ```
 */
export function isTerminalStatus(status: TaskStatus): boolean {
  return status === "completed" || status === "rejected" || status === "failed" ||
    status === "killed";
}

/** Event kinds (the `kind` field of a `KernelEvent`). */
export const EVENT_KINDS = [
  "task_submitted",
  "worktree_ready",
  "worktree_failed",
  "backend_ready",
  "baseline_result",
  "backend_started",
  "backend_finished",
  "patch_extracted",
  "scope_checked",
  "verification_result",
  "patch_minted",
  "approval_granted",
  "approval_denied",
  "integrated",
  "effect_failed",
  "cleanup_done",
  "kill_requested",
  "budget_extended",
  "timer_tick",
] as const;

/** An event kind string. */
export type EventKind = typeof EVENT_KINDS[number];

/** Action kinds (the `kind` field of a `KernelAction`). */
export const ACTION_KINDS = [
  "create_worktree",
  "start_backend",
  "run_backend",
  "cancel_effect",
  "extract_diff",
  "check_scope",
  "run_contract",
  "mint_verified_patch",
  "request_approval",
  "integrate",
  "cleanup",
  "append_log",
  "notify",
] as const;

/** An action kind string. */
export type ActionKind = typeof ACTION_KINDS[number];

/** Effects a policy rules on, including ones the kernel does not emit yet (push, PR). */
export const GATED_EFFECTS = ["integrate", "push", "open_pr"] as const;

/** An effect kind the policy gates. */
export type GatedEffect = typeof GATED_EFFECTS[number];

/** Risk profiles of a `PolicySnapshot`. */
export const RISK_PROFILES = ["readonly", "supervised", "full"] as const;

/** A risk profile string. */
export type RiskProfile = typeof RISK_PROFILES[number];

/** Reversibility of an effect. */
export const REVERSIBILITIES = ["reversible", "irreversible"] as const;

/** A reversibility string. */
export type Reversibility = typeof REVERSIBILITIES[number];

/** Sensitive-path classes a scope check reports for changed files. */
export const SENSITIVE_CLASSES = [
  "ci_workflow",
  "dependency_manifest",
  "lockfile",
  "secrets",
  "executable",
  "symlink",
] as const;

/** A sensitive-path class string. */
export type SensitiveClass = typeof SENSITIVE_CLASSES[number];

/** A policy decision. */
export const POLICY_DECISIONS = ["allow", "deny", "require_approval"] as const;

/** A policy decision string. */
export type PolicyDecision = typeof POLICY_DECISIONS[number];

/** Outcome of a single check in a contract run. `inconclusive` counts as a failure. */
export const ROUND_CHECK_OUTCOMES = ["pass", "fail", "inconclusive"] as const;

/** A check outcome string. */
export type RoundCheckOutcome = typeof ROUND_CHECK_OUTCOMES[number];

/** How a backend run ended. */
export const BACKEND_OUTCOMES = ["ok", "error", "cancelled", "timed_out"] as const;

/** A backend outcome string. */
export type BackendOutcome = typeof BACKEND_OUTCOMES[number];

/** Levels of a `notify` action. */
export const NOTIFY_LEVELS = ["info", "warn", "action_required"] as const;

/** A notify level string. */
export type NotifyLevel = typeof NOTIFY_LEVELS[number];

/**
 * Reason codes: why a task moved, paused, stopped, or why an event was
 * ignored or judged risky. Stable strings, persisted in audit records.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { LIFECYCLE_REASONS } from "./codes.ts";
 * equal(LIFECYCLE_REASONS.includes("budget_repair_rounds"), true);
 * ```
 */
export const LIFECYCLE_REASONS = [
  // progress
  "submitted",
  "worktree_created",
  "baseline_recorded",
  "backend_ready",
  "backend_started",
  "backend_done",
  "backend_reported_error",
  "patch_extracted",
  "scope_accepted",
  "verification_passed",
  "verification_failed",
  "repair_round",
  "patch_minted",
  "approval_required",
  "approval_granted",
  "integration_allowed",
  "integrated",
  "verified_not_integrated",
  "resumed",
  "budget_extended",
  // pauses (budget)
  "budget_wall_time",
  "budget_repair_rounds",
  "budget_output_bytes",
  "budget_cost_units",
  "budget_still_exhausted",
  // stops
  "worktree_failed",
  "baseline_unavailable",
  "contract_unusable",
  "backend_failed",
  "backend_unavailable",
  "backend_error_no_change",
  "backend_cancelled",
  "empty_patch",
  "scope_violation",
  "policy_denied",
  "approval_denied",
  "integrate_failed",
  "effect_failed",
  "killed",
  // risks and anomalies
  "contradictory_event",
  "stale_result",
  "unknown_task",
  "duplicate_task",
  "invalid_task_id",
  "approval_unknown",
  "approval_mismatch",
  "approval_expired",
  "approval_reused",
  "terminal_absorbed",
] as const;

/** A reason code string. */
export type LifecycleReason = typeof LIFECYCLE_REASONS[number];
