/**
 * The kernel state: plain JSON data. `JSON.parse(JSON.stringify(state))`
 * behaves exactly like `state` (no `undefined`, no `Map`, no class instances,
 * no non-finite numbers).
 *
 * Ownership rule: `step(state, event)` takes ownership of `state` and updates
 * it in place (only the touched task record changes), returning the same
 * object. A caller that wants to keep an old state must copy it first
 * (`structuredClone` or a JSON round trip). This is what keeps a step O(1)
 * with thousands of live tasks.
 *
 * @module
 */
import type {
  BackendOutcome,
  GatedEffect,
  LifecycleReason,
  SensitiveClass,
  TaskStatus,
} from "./codes.ts";
import type { TaskBudget } from "./events.ts";
import type { PolicySnapshot } from "./policy_types.ts";
import { ENTRY_ACTIONS, type EntryAction } from "./transitions.ts";

/**
 * Kinds of in-flight effects: the entry actions that start one, named as the
 * `ENTRY` table names them (`run_baseline`/`run_round`: the two phases of
 * `run_contract`).
 */
export type PendingKind = Exclude<EntryAction, "request_approval" | "cancel" | "none">;

/** The entry actions that start no effect of their own (the compiler keeps this complete). */
const NO_EFFECT: { readonly [A in Exclude<EntryAction, PendingKind>]: true } = {
  request_approval: true,
  cancel: true,
  none: true,
};

/**
 * Every {@linkcode PendingKind}, in `ENTRY_ACTIONS` order.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { PENDING_KINDS } from "./state.ts";
 * deepEqual(PENDING_KINDS.slice(0, 3), ["create_worktree", "start_backend", "run_baseline"]);
 * deepEqual(PENDING_KINDS.includes("none" as never), false);
 * ```
 */
export const PENDING_KINDS: readonly PendingKind[] = ENTRY_ACTIONS.filter(
  (action): action is PendingKind => !Object.hasOwn(NO_EFFECT, action),
);

/** The one effect a task is waiting for. */
export interface PendingEffect {
  /** The effect's id. */
  readonly effectId: string;
  /** What the effect is. */
  readonly kind: PendingKind;
}

/** A requested, not yet used, human approval. */
export interface PendingApproval {
  /** The approval's id. */
  readonly approvalId: string;
  /** The gated effect to approve. */
  readonly action: GatedEffect;
  /** Digest of the exact patch to approve. */
  readonly patchDigest: string;
  /** Event time after which the approval is no longer accepted. */
  readonly expiresAt: number;
}

/** The human grant an `integrate` rests on (`null` on the record when policy allowed it outright). */
export interface ApprovalGrant {
  /** The approval's id. */
  readonly approvalId: string;
  /** Who granted it. */
  readonly by: string;
  /** Event time after which the grant is no longer accepted. */
  readonly expiresAt: number;
}

/** Budget consumed so far. */
export interface BudgetUsed {
  /** Backend output bytes. */
  outputBytes: number;
  /** Cost units. */
  costUnits: number;
}

/** Everything the kernel knows about one task. Mutated in place by `step`. */
export interface TaskRecord {
  /** The task's status. */
  status: TaskStatus;
  /** The task's id. */
  readonly id: string;
  /**
   * `<id>#<seq of its task_submitted>`: the prefix of its effect and approval
   * ids, unique even if a compacted task's id is submitted again.
   */
  readonly key: string;
  /** The in-flight effect, or `null`. */
  pending: PendingEffect | null;
  /** `submittedAt + budget.wallTimeMs` (plus extensions). */
  deadlineAt: number;
  /**
   * Which non-time budget is spent (`budget_output_bytes`,
   * `budget_cost_units`, `budget_repair_rounds`), or `null`; recomputed
   * whenever `used`, `budget` or `round` change, so the hot path reads one field.
   */
  spent: LifecycleReason | null;
  /** Current round: 0 for the first attempt, then repair rounds. */
  round: number;
  /** Counter for effect and approval ids. */
  nextEffect: number;
  /** Reason of the last transition (pause reason, terminal reason, ...). */
  reason: LifecycleReason | null;
  /** Path of the task's worktree, once prepared. */
  worktree: string | null;
  /** Digest of the current round's extracted patch. */
  patchDigest: string | null;
  /** The requested approval, or `null`. */
  approval: PendingApproval | null;
  /** The grant the next `integrate` rests on. */
  grant: ApprovalGrant | null;
  /** Status to return to when a paused task resumes. */
  resumeTo: TaskStatus | null;
  /** The budget that paused the task, kept if it is killed while paused (its final state). */
  budgetStop: LifecycleReason | null;
  /** What the task is to achieve. */
  readonly goal: string;
  /** The base revision. */
  readonly baseRev: string;
  /** Digest of the outcome contract. */
  readonly contractDigest: string;
  /** Digest of the task's policy. */
  readonly policyDigest: string;
  /** Task policy, or `null` for the kernel state's default. */
  readonly policy: PolicySnapshot | null;
  /** The task's budget. */
  budget: TaskBudget;
  /** Budget consumed so far. */
  used: BudgetUsed;
  /** Event time the task was submitted. */
  readonly submittedAt: number;
  /** Whether the contract runs on the base before the first round (`task_submitted.baseline`). */
  readonly baselineWanted: boolean;
  /**
   * Whether the backend is started in the task's worktree before the baseline
   * (`task_submitted.startBackend`): the process that answers it serves round 1.
   */
  readonly startWanted: boolean;
  /** Checks failing on the base revision. */
  baselineFailing: string[];
  /** Checks failing in the last verification (fed to the next round). */
  failingChecks: string[];
  /**
   * What the backend said about its last run (`ok`, `error`, ...), or `null`
   * before the first. A claim, kept for the audit trail: it names the reason
   * of a round that changed nothing and never decides a verdict.
   */
  claimedOutcome: BackendOutcome | null;
  /** The backend said retrying cannot help: the next repair round fails the task instead. */
  backendFatal: boolean;
  /** Rounds that ended as the backend's own failure (stopped, or reported error and changed nothing). */
  backendFaults: number;
  /** Why the next backend round runs (`null` for the first). */
  roundReason: LifecycleReason | null;
  /** Sensitive classes of the current patch (from the scope check). */
  sensitive: SensitiveClass[];
  /** Violations of the current patch (from the scope check). */
  violations: string[];
  /** Approval ids already consumed (single use). */
  usedApprovals: string[];
  /** The commit the patch was integrated as, once integrated. */
  commit: string | null;
  /** Whether the task's cleanup is done. */
  cleanedUp: boolean;
}

/** The whole kernel state. */
export interface KernelState {
  /** Format version. */
  readonly v: 1;
  /** Highest event `seq` applied; events at or below it are redeliveries. */
  lastSeq: number;
  /** Latest event time seen (time only moves through events). */
  now: number;
  /** Default policy for tasks submitted without one. */
  policy: PolicySnapshot;
  /**
   * Live tasks by id. Read only through own-property checks. A finished task
   * is removed once it is cleaned up (compaction: the state stays as large
   * as the live set under churn); later events for it are `unknown_task`
   * risks, so task ids must be unique per log (the driver's are).
   */
  tasks: Record<string, TaskRecord>;
  /** How many finished tasks were compacted away. */
  finished: number;
}
