/**
 * Kernel events: everything the kernel learns arrives as one of these values.
 * Time (`at`, milliseconds), ids and results come from outside; the kernel
 * never reads a clock. Every event has `v: 1`, a unique `id`, and a `seq` that
 * strictly increases across the whole event stream (the event log's sequence).
 *
 * @module
 */
import type { BackendOutcome, GatedEffect, RoundCheckOutcome, SensitiveClass } from "./codes.ts";
import type { PolicySnapshot } from "./policy_types.ts";

/** Fields every event carries. */
export interface KernelEventBase {
  /** Schema version of the event. */
  readonly v: 1;
  /** Unique event id (assigned by the driver or the log). */
  readonly id: string;
  /** Strictly increasing position in the event stream; a repeat is a redelivery. */
  readonly seq: number;
  /** Event time in milliseconds since the epoch; the kernel's only clock. */
  readonly at: number;
}

/** An event that answers one of the kernel's effect actions (it names the action's `effectId`). */
export interface EffectResultEventBase extends KernelEventBase {
  /** The task this event belongs to. */
  readonly taskId: string;
  /** The `effectId` of the action this event answers (a stale or unknown one is ignored). */
  readonly effectId: string;
}

/** Budgets of one task. All limits are inclusive. */
export interface TaskBudget {
  /** Wall time from submission, in milliseconds (waiting for a human is not counted). */
  readonly wallTimeMs: number;
  /** Repair rounds allowed after the first backend attempt. */
  readonly repairRounds: number;
  /** Total backend output bytes. */
  readonly outputBytes: number;
  /** Total backend cost units (tokens, cents: whatever the backend reports). */
  readonly costUnits: number;
}

/** The result of one check in a contract run. */
export interface RoundCheckResult {
  /** Check id from the contract. */
  readonly id: string;
  /** `inconclusive` counts as a failure (fail closed). */
  readonly outcome: RoundCheckOutcome;
  /**
   * The receipts this outcome rests on: the `receiptDigest` of every MAC'd
   * receipt of the commands the check ran (empty when the check never ran,
   * e.g. the run was refused; such a check can only fail). `vouch inspect`
   * re-derives the outcome from these receipts.
   */
  readonly receipts: readonly string[];
}

/** A new task. */
export interface TaskSubmittedEvent extends KernelEventBase {
  /** Event discriminant: `task_submitted`. */
  readonly kind: "task_submitted";
  /** The task this event belongs to. */
  readonly taskId: string;
  /** What the backend is asked to achieve. */
  readonly goal: string;
  /** Git revision the worktree starts from. */
  readonly baseRev: string;
  /** Budgets for the whole task. */
  readonly budget: TaskBudget;
  /** Digest of the outcome contract that decides "verified". */
  readonly contractDigest: string;
  /** Digest of the policy in force (for the audit trail). */
  readonly policyDigest: string;
  /** Policy for this task; `null` means the kernel state's default policy. */
  readonly policy: PolicySnapshot | null;
  /**
   * Whether the contract runs on the base revision before the first backend
   * round (`baselining`). Absent means `true`; `vouch verify` sends `false`
   * for a contract that needs no baseline captures.
   */
  readonly baseline?: boolean;
  /**
   * Whether the backend is started in the worktree (`starting_backend`)
   * before the baseline, so a backend that cannot start fails the task before
   * any check runs and the started process serves round 1. Absent means
   * `false` (no agent: `vouch verify`).
   */
  readonly startBackend?: boolean;
}

/** The disposable worktree exists. */
export interface WorktreeReadyEvent extends KernelEventBase {
  /** Event discriminant: `worktree_ready`. */
  readonly kind: "worktree_ready";
  /** The task this event belongs to. */
  readonly taskId: string;
  /** The `create_worktree` effect this answers. */
  readonly effectId: string;
  /** Absolute path of the new worktree. */
  readonly path: string;
}

/** The worktree could not be created. */
export interface WorktreeFailedEvent extends EffectResultEventBase {
  /** Event discriminant: `worktree_failed`. */
  readonly kind: "worktree_failed";
  /** Why creating the worktree failed (a stable code or a bounded message). */
  readonly error: string;
}

/**
 * The backend was started in the worktree (`start_backend`) and answered:
 * `ok` it is ready for round 1; otherwise it cannot start (the task fails as
 * `backend_unavailable`, before the baseline).
 */
export interface BackendReadyEvent extends KernelEventBase {
  /** Event discriminant: `backend_ready`. */
  readonly kind: "backend_ready";
  /** The task this event belongs to. */
  readonly taskId: string;
  /** The `start_backend` effect this answers. */
  readonly effectId: string;
  /** Whether the backend started and answered its protocol's handshake. */
  readonly ok: boolean;
}

/** The backend process/function started. */
export interface BackendStartedEvent extends EffectResultEventBase {
  /** Event discriminant: `backend_started`. */
  readonly kind: "backend_started";
}

/** The backend finished. Its claims are not trusted; only its accounting is. */
export interface BackendFinishedEvent extends EffectResultEventBase {
  /** Event discriminant: `backend_finished`. */
  readonly kind: "backend_finished";
  /**
   * How the run ended, as the backend adapter saw it. `ok` and `error` are
   * claims about finished work: both lead to `extract_diff`, and the real diff
   * alone is judged (an `error` whose diff is empty is a failed round,
   * `backend_error_no_change`). `timed_out` spends a round without
   * extraction; `cancelled` fails the task.
   */
  readonly outcome: BackendOutcome;
  /** Bytes of output the backend produced in this run. */
  readonly outputBytes: number;
  /** Cost units the backend reported for this run. */
  readonly costUnits: number;
  /**
   * The backend says retrying cannot help (a non-retryable failure such as a
   * protocol error or a bad configuration). It only ever stops work: the real
   * diff of this run is still judged, but no repair round follows.
   */
  readonly fatal: boolean;
}

/** The real diff was re-derived from the worktree. */
export interface PatchExtractedEvent extends EffectResultEventBase {
  /** Event discriminant: `patch_extracted`. */
  readonly kind: "patch_extracted";
  /** Digest of the extracted diff bytes. */
  readonly patchDigest: string;
  /** Number of changed files (0: the backend changed nothing). */
  readonly filesChanged: number;
}

/** The scope check ran on the extracted diff. */
export interface ScopeCheckedEvent extends EffectResultEventBase {
  /** Event discriminant: `scope_checked`. */
  readonly kind: "scope_checked";
  /** `reject` fails the round (the violations say why); `accept` lets the contract run. */
  readonly verdict: "accept" | "reject";
  /** Violation codes (empty when accepted). */
  readonly violations: readonly string[];
  /** Sensitive classes of the changed files. */
  readonly sensitive: readonly SensitiveClass[];
}

/** The contract ran on the untouched base revision. */
export interface BaselineResultEvent extends EffectResultEventBase {
  /** Event discriminant: `baseline_result`. */
  readonly kind: "baseline_result";
  /** `false` when the baseline could not be run at all (the task fails: could not run). */
  readonly ran: boolean;
  /**
   * Why the contract cannot judge this task although it ran (e.g.
   * `baseline-gates-nothing`): non-empty rejects the task before any backend
   * round (`contract_unusable`).
   */
  readonly unusable: readonly string[];
  /** The result of every contract check on the base revision. */
  readonly checks: readonly RoundCheckResult[];
  /** Receipt digests of the contract's setup commands run before the checks (in order). */
  readonly setupReceipts: readonly string[];
  /**
   * A cached baseline (the baseline cache): the task whose baseline receipts,
   * in the same log, this result cites. Absent: this task's own baseline ran.
   */
  readonly reusedFrom?: string;
}

/** The contract ran on the patched worktree in a clean sandbox. */
export interface VerificationResultEvent extends EffectResultEventBase {
  /** Event discriminant: `verification_result`. */
  readonly kind: "verification_result";
  /** The round the run judged (0 = first attempt). */
  readonly round: number;
  /** The result of every contract check on the patched worktree. */
  readonly checks: readonly RoundCheckResult[];
  /** Receipt digests of the contract's setup commands run before the checks (in order). */
  readonly setupReceipts: readonly string[];
}

/** The `VerifiedPatch` was minted for the verified patch (answers `mint_verified_patch`). */
export interface PatchMintedEvent extends EffectResultEventBase {
  /** Event discriminant: `patch_minted`. */
  readonly kind: "patch_minted";
  /** Digest of the patch the minted record covers (must be the task's patch). */
  readonly patchDigest: string;
}

/** The adapter could not perform the in-flight effect at all (the task fails: could not run). */
export interface EffectFailedEvent extends EffectResultEventBase {
  /** Event discriminant: `effect_failed`. */
  readonly kind: "effect_failed";
  /** A stable code for why (e.g. `extract_failed`). */
  readonly error: string;
}

/** A human approved an action. Bound to one task, one action, one patch. */
export interface ApprovalGrantedEvent extends KernelEventBase {
  /** Event discriminant: `approval_granted`. */
  readonly kind: "approval_granted";
  /** The task this event belongs to. */
  readonly taskId: string;
  /** The id from the `request_approval` action. */
  readonly approvalId: string;
  /** The gated effect approved (must be the one the request named). */
  readonly action: GatedEffect;
  /** The patch the human looked at. */
  readonly patchDigest: string;
  /** Who approved (for the audit trail). */
  readonly by: string;
  /** Latest event time at which the approval may be used. */
  readonly expiresAt: number;
}

/** A human refused an action. */
export interface ApprovalDeniedEvent extends KernelEventBase {
  /** Event discriminant: `approval_denied`. */
  readonly kind: "approval_denied";
  /** The task this event belongs to. */
  readonly taskId: string;
  /** The id from the `request_approval` action. */
  readonly approvalId: string;
  /** Who refused (for the audit trail). */
  readonly by: string;
}

/** The verified patch was applied to the target (or failed to). */
export interface IntegratedEvent extends EffectResultEventBase {
  /** Event discriminant: `integrated`. */
  readonly kind: "integrated";
  /** Whether the patch was applied. */
  readonly ok: boolean;
  /** Resulting commit when `ok`, else `null`. */
  readonly commit: string | null;
}

/** The worktree and processes of a task are gone. */
export interface CleanupDoneEvent extends EffectResultEventBase {
  /** Event discriminant: `cleanup_done`. */
  readonly kind: "cleanup_done";
}

/** A human or supervisor asked to stop the task now. */
export interface KillRequestedEvent extends KernelEventBase {
  /** Event discriminant: `kill_requested`. */
  readonly kind: "kill_requested";
  /** The task this event belongs to. */
  readonly taskId: string;
  /** Who asked (for the audit trail). */
  readonly by: string;
}

/** More budget for a task; resumes a paused task when it is enough. */
export interface BudgetExtendedEvent extends KernelEventBase {
  /** Event discriminant: `budget_extended`. */
  readonly kind: "budget_extended";
  /** The task this event belongs to. */
  readonly taskId: string;
  /** Amounts added to each limit (0 for none). */
  readonly add: TaskBudget;
}

/** Time passed for a task: the only way wall-time budgets are enforced. */
export interface TimerTickEvent extends KernelEventBase {
  /** Event discriminant: `timer_tick`. */
  readonly kind: "timer_tick";
  /** The task this event belongs to. */
  readonly taskId: string;
}

/**
 * Every event the kernel accepts.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import type { KernelEvent } from "./events.ts";
 * const tick: KernelEvent = { v: 1, kind: "timer_tick", id: "e9", seq: 9, at: 1000, taskId: "t1" };
 * equal(tick.kind, "timer_tick");
 * ```
 */
export type KernelEvent =
  | TaskSubmittedEvent
  | WorktreeReadyEvent
  | WorktreeFailedEvent
  | BackendReadyEvent
  | BackendStartedEvent
  | BackendFinishedEvent
  | PatchExtractedEvent
  | ScopeCheckedEvent
  | BaselineResultEvent
  | VerificationResultEvent
  | PatchMintedEvent
  | ApprovalGrantedEvent
  | ApprovalDeniedEvent
  | IntegratedEvent
  | EffectFailedEvent
  | CleanupDoneEvent
  | KillRequestedEvent
  | BudgetExtendedEvent
  | TimerTickEvent;
