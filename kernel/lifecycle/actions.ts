/**
 * Kernel actions: descriptions of effects for adapters to perform. The kernel
 * never performs them. Tool actions carry an `effectId`; the adapter echoes it
 * in the result event so late or stale results can be told apart.
 *
 * @module
 */
import type {
  GatedEffect,
  LifecycleReason,
  NotifyLevel,
  SensitiveClass,
  TaskStatus,
} from "./codes.ts";
import type { TaskBudget } from "./events.ts";

/** Fields every action carries. */
export interface KernelActionBase {
  /** Schema version of the action. */
  readonly v: 1;
  /** The task the action belongs to. */
  readonly taskId: string;
}

/** Create the disposable worktree at `baseRev`. */
export interface CreateWorktreeAction extends KernelActionBase {
  readonly kind: "create_worktree";
  readonly effectId: string;
  readonly baseRev: string;
}

/** What the backend is told for a round (the previous round's real results). */
export interface RoundFeedback {
  /** Check ids that failed (or were inconclusive) in the previous verification. */
  readonly failingChecks: readonly string[];
  /** Check ids that already failed on the base revision. */
  readonly baselineFailing: readonly string[];
  /** Why this round exists (`null` for the first attempt). */
  readonly reason: LifecycleReason | null;
}

/** Run the coding backend in the worktree. */
export interface RunBackendAction extends KernelActionBase {
  readonly kind: "run_backend";
  readonly effectId: string;
  /** 0 for the first attempt, then 1, 2, ... for repair rounds. */
  readonly round: number;
  readonly goal: string;
  readonly worktree: string;
  readonly feedback: RoundFeedback;
  /** Event time after which the task's wall-time budget is gone. */
  readonly deadlineAt: number;
  /** What is left of the task's budgets. */
  readonly remaining: TaskBudget;
}

/** Stop an in-flight effect (its late result will be ignored). */
export interface CancelEffectAction extends KernelActionBase {
  readonly kind: "cancel_effect";
  readonly effectId: string;
  readonly reason: LifecycleReason;
}

/** Re-derive the real diff from the worktree. */
export interface ExtractDiffAction extends KernelActionBase {
  readonly kind: "extract_diff";
  readonly effectId: string;
  readonly worktree: string;
  readonly baseRev: string;
}

/** Parse and scope-check the extracted diff. */
export interface CheckScopeAction extends KernelActionBase {
  readonly kind: "check_scope";
  readonly effectId: string;
  readonly patchDigest: string;
}

/** Run the outcome contract: on the base revision (`baseline`) or on the patch (`round`). */
export interface RunContractAction extends KernelActionBase {
  readonly kind: "run_contract";
  readonly effectId: string;
  readonly phase: "baseline" | "round";
  readonly round: number;
  readonly contractDigest: string;
  readonly baseRev: string;
  /** `null` for the baseline. */
  readonly patchDigest: string | null;
}

/**
 * Mint the `VerifiedPatch` for the task's verified patch: the only place an
 * adapter may mint one, emitted on entering `verified`.
 */
export interface MintVerifiedPatchAction extends KernelActionBase {
  readonly kind: "mint_verified_patch";
  readonly effectId: string;
  /** The round whose verification passed (0 = first attempt). */
  readonly round: number;
  readonly patchDigest: string;
  readonly contractDigest: string;
  readonly baseRev: string;
}

/** Ask a human to approve a gated effect on this exact patch. */
export interface RequestApprovalAction extends KernelActionBase {
  readonly kind: "request_approval";
  readonly approvalId: string;
  readonly action: GatedEffect;
  readonly patchDigest: string;
  readonly sensitive: readonly SensitiveClass[];
  /** Why approval is needed. */
  readonly reasons: readonly string[];
  /** Event time after which the approval is no longer accepted. */
  readonly expiresAt: number;
}

/**
 * The value an adapter needs to perform a gated effect. Minted only by the
 * kernel, bound to one task, one effect and one patch; single use.
 */
export interface CapabilityToken {
  readonly v: 1;
  readonly effect: GatedEffect;
  readonly taskId: string;
  readonly effectId: string;
  readonly patchDigest: string;
  /** The human approval it rests on, or `null` when policy allowed it outright. */
  readonly approvalId: string | null;
  /** Who approved, or `null`. */
  readonly approvedBy: string | null;
  /** Event time after which the token is void, or `null` without approval. */
  readonly expiresAt: number | null;
}

/** Apply the verified patch to the target. Irreversible unless policy says otherwise. */
export interface IntegrateAction extends KernelActionBase {
  readonly kind: "integrate";
  readonly effectId: string;
  readonly patchDigest: string;
  readonly token: CapabilityToken;
}

/** Remove the worktree; cancel anything still running for the task. */
export interface CleanupAction extends KernelActionBase {
  readonly kind: "cleanup";
  readonly effectId: string;
  readonly cancelRunning: boolean;
}

/** An audit record the kernel derived (the driver logs every event itself). */
export type KernelAuditRecord =
  | {
    readonly type: "transition";
    readonly from: TaskStatus | null;
    readonly to: TaskStatus;
    readonly on: string;
    readonly reason: LifecycleReason;
  }
  | {
    readonly type: "risk";
    readonly reason: LifecycleReason;
    readonly eventKind: string;
    readonly status: TaskStatus | null;
  }
  | {
    readonly type: "note";
    readonly reason: LifecycleReason;
    readonly eventKind: string;
    readonly status: TaskStatus | null;
  };

/** Append a kernel-derived record to the audit log. */
export interface AppendLogAction extends KernelActionBase {
  readonly kind: "append_log";
  readonly record: KernelAuditRecord;
}

/** Tell the humans something. */
export interface NotifyAction extends KernelActionBase {
  readonly kind: "notify";
  readonly level: NotifyLevel;
  readonly reason: LifecycleReason;
  readonly status: TaskStatus;
}

/**
 * Every action the kernel emits.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import type { KernelAction } from "./actions.ts";
 * const isToolAction = (a: KernelAction): boolean => a.kind !== "append_log";
 * equal(isToolAction({ v: 1, kind: "cleanup", taskId: "t1", effectId: "t1/e9", cancelRunning: false }), true);
 * ```
 */
export type KernelAction =
  | CreateWorktreeAction
  | RunBackendAction
  | CancelEffectAction
  | ExtractDiffAction
  | CheckScopeAction
  | RunContractAction
  | MintVerifiedPatchAction
  | RequestApprovalAction
  | IntegrateAction
  | CleanupAction
  | AppendLogAction
  | NotifyAction;

/** Hard cap on the actions one `step` may emit. Typical steps emit 1 to 4. */
export const MAX_ACTIONS_PER_STEP = 8;
