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
  /** Action discriminant: `create_worktree`. */
  readonly kind: "create_worktree";
  /** Id the adapter echoes in the result event, so late or stale results can be told apart. */
  readonly effectId: string;
  /** Git revision (full commit id) the task starts from. */
  readonly baseRev: string;
}

/**
 * Start the backend in the task's worktree (its real sandbox) and check that
 * it speaks its protocol, before the baseline; the started process serves
 * round 1. Answered by `backend_ready`.
 */
export interface StartBackendAction extends KernelActionBase {
  /** Action discriminant: `start_backend`. */
  readonly kind: "start_backend";
  /** Id the adapter echoes in the result event, so late or stale results can be told apart. */
  readonly effectId: string;
  /** Absolute path of the task's worktree (the agent's working directory). */
  readonly worktree: string;
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
  /** Action discriminant: `run_backend`. */
  readonly kind: "run_backend";
  /** Id the adapter echoes in the result event, so late or stale results can be told apart. */
  readonly effectId: string;
  /** 0 for the first attempt, then 1, 2, ... for repair rounds. */
  readonly round: number;
  /** What the backend is asked to achieve (the task's goal). */
  readonly goal: string;
  /** Absolute path of the task's disposable worktree. */
  readonly worktree: string;
  /** The previous round's real results, for the backend to act on. */
  readonly feedback: RoundFeedback;
  /** Event time after which the task's wall-time budget is gone. */
  readonly deadlineAt: number;
  /** What is left of the task's budgets. */
  readonly remaining: TaskBudget;
}

/** Stop an in-flight effect (its late result will be ignored). */
export interface CancelEffectAction extends KernelActionBase {
  /** Action discriminant: `cancel_effect`. */
  readonly kind: "cancel_effect";
  /** The in-flight effect to stop. */
  readonly effectId: string;
  /** Why the effect is cancelled. */
  readonly reason: LifecycleReason;
}

/** Re-derive the real diff from the worktree. */
export interface ExtractDiffAction extends KernelActionBase {
  /** Action discriminant: `extract_diff`. */
  readonly kind: "extract_diff";
  /** Id the adapter echoes in the result event, so late or stale results can be told apart. */
  readonly effectId: string;
  /** Absolute path of the task's disposable worktree. */
  readonly worktree: string;
  /** Git revision (full commit id) the task starts from. */
  readonly baseRev: string;
}

/** Parse and scope-check the extracted diff. */
export interface CheckScopeAction extends KernelActionBase {
  /** Action discriminant: `check_scope`. */
  readonly kind: "check_scope";
  /** Id the adapter echoes in the result event, so late or stale results can be told apart. */
  readonly effectId: string;
  /** Digest of the extracted diff this action is about. */
  readonly patchDigest: string;
}

/** Run the outcome contract: on the base revision (`baseline`) or on the patch (`round`). */
export interface RunContractAction extends KernelActionBase {
  /** Action discriminant: `run_contract`. */
  readonly kind: "run_contract";
  /** Id the adapter echoes in the result event, so late or stale results can be told apart. */
  readonly effectId: string;
  /** `baseline`: on the untouched base revision; `round`: on the patched worktree. */
  readonly phase: "baseline" | "round";
  /** The round judged (0 = first attempt; 0 for the baseline). */
  readonly round: number;
  /** Digest of the outcome contract that decides "verified". */
  readonly contractDigest: string;
  /** Git revision (full commit id) the task starts from. */
  readonly baseRev: string;
  /** `null` for the baseline. */
  readonly patchDigest: string | null;
}

/**
 * Mint the `VerifiedPatch` for the task's verified patch: the only place an
 * adapter may mint one, emitted on entering `verified`.
 */
export interface MintVerifiedPatchAction extends KernelActionBase {
  /** Action discriminant: `mint_verified_patch`. */
  readonly kind: "mint_verified_patch";
  /** Id the adapter echoes in the result event, so late or stale results can be told apart. */
  readonly effectId: string;
  /** The round whose verification passed (0 = first attempt). */
  readonly round: number;
  /** Digest of the extracted diff this action is about. */
  readonly patchDigest: string;
  /** Digest of the outcome contract that decides "verified". */
  readonly contractDigest: string;
  /** Git revision (full commit id) the task starts from. */
  readonly baseRev: string;
}

/** Ask a human to approve a gated effect on this exact patch. */
export interface RequestApprovalAction extends KernelActionBase {
  /** Action discriminant: `request_approval`. */
  readonly kind: "request_approval";
  /** Id the answering `approval_granted` / `approval_denied` event must name. */
  readonly approvalId: string;
  /** The gated effect that needs approval. */
  readonly action: GatedEffect;
  /** Digest of the exact patch the approval is bound to. */
  readonly patchDigest: string;
  /** Sensitive classes of the changed files (what the human should look at). */
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
  /** Schema version of the token. */
  readonly v: 1;
  /** The one gated effect this token allows. */
  readonly effect: GatedEffect;
  /** The task the token is bound to. */
  readonly taskId: string;
  /** The effect the token is bound to (single use). */
  readonly effectId: string;
  /** Digest of the patch the token is bound to. */
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
  /** Action discriminant: `integrate`. */
  readonly kind: "integrate";
  /** Id the adapter echoes in the result event, so late or stale results can be told apart. */
  readonly effectId: string;
  /** Digest of the extracted diff this action is about. */
  readonly patchDigest: string;
  /** The kernel-minted capability that allows this integration. */
  readonly token: CapabilityToken;
}

/** Remove the worktree; cancel anything still running for the task. */
export interface CleanupAction extends KernelActionBase {
  /** Action discriminant: `cleanup`. */
  readonly kind: "cleanup";
  /** Id the adapter echoes in the result event, so late or stale results can be told apart. */
  readonly effectId: string;
  /** Whether effects still in flight for the task must be cancelled first. */
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
  /** Action discriminant: `append_log`. */
  readonly kind: "append_log";
  /** The record to append. */
  readonly record: KernelAuditRecord;
}

/** Tell the humans something. */
export interface NotifyAction extends KernelActionBase {
  /** Action discriminant: `notify`. */
  readonly kind: "notify";
  /** How loud the notice is. */
  readonly level: NotifyLevel;
  /** Why the humans are told. */
  readonly reason: LifecycleReason;
  /** The task's status when the notice was emitted. */
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
  | StartBackendAction
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
