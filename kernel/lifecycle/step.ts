/**
 * The lifecycle reducer: `step(state, event) -> { state, actions }`.
 *
 * Rules:
 * 1. `step` is synchronous, deterministic and total: it never throws on a
 *    well-typed input, reads no clock and performs no effect. Time is
 *    `event.at`; ids come from counters in the state.
 * 2. `step` owns `state` and updates only the touched task in place; it
 *    returns the same object (see `state.ts` for the ownership rule).
 * 3. An event whose `seq` is not above `state.lastSeq` is a redelivery: it
 *    changes nothing and emits nothing.
 * 4. `step` derives ONE trigger from (task, event) ({@linkcode deriveTrigger}),
 *    looks up the row `TRANSITIONS[status][trigger]` and applies it; entering
 *    a status emits its `ENTRY` action. A pair with no row fails the task
 *    (`contradictory_event`). Terminal statuses absorb every event with at
 *    most one `append_log`; a cleaned-up finished task is compacted away.
 * 5. A result event must name the task's in-flight effect (`effectId`); a
 *    result for another effect is stale (audit only); a result of the wrong
 *    kind for the in-flight effect contradicts it and fails the task.
 * 6. `integrate` is emitted only with a capability token; when the policy
 *    requires approval (always for irreversible effects) the token rests on a
 *    human `approval_granted` bound to the task, the effect and the patch,
 *    unexpired at the event's time, and used once.
 * 7. At most `MAX_ACTIONS_PER_STEP` actions per step.
 *
 * @module
 */
import type { KernelAction } from "./actions.ts";
import type { LifecycleReason } from "./codes.ts";
import type { KernelEvent, TaskBudget, TaskSubmittedEvent } from "./events.ts";
import { defaultPolicy } from "./policy.ts";
import type { PolicySnapshot } from "./policy_types.ts";
import type { KernelState, TaskRecord } from "./state.ts";
import {
  BACKEND_FAULT_REASONS,
  ENTRY,
  NEW_TASK,
  type Transition,
  TRANSITIONS,
  type TransitionTrigger,
} from "./transitions.ts";
import { addCount, audit, count, emitEntry, type StepContext } from "./_entry.ts";
import { deriveTrigger, exhaustedBudget, spentBudget } from "./_derive.ts";

/** What one step returns: the (same, updated) state and the actions to perform. */
export interface StepResult {
  /** The state after the step. */
  readonly state: KernelState;
  /** The actions the adapters must perform, in order. */
  readonly actions: KernelAction[];
}

const MAX_TASK_ID_LENGTH = 256;

/**
 * A fresh kernel state whose tasks default to `policy` (`defaultPolicy()` if omitted).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { initialKernelState } from "./step.ts";
 * const state = initialKernelState();
 * equal(state.lastSeq, -1);
 * equal(state.policy.profile, "supervised");
 * ```
 */
export function initialKernelState(policy: PolicySnapshot = defaultPolicy()): KernelState {
  return { v: 1, lastSeq: -1, now: 0, policy, tasks: {}, finished: 0 };
}

/**
 * Applies one event. See the module doc for the rules.
 *
 * @example
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * import { initialKernelState, step } from "./step.ts";
 * const state = initialKernelState();
 * const { actions } = step(state, {
 *   v: 1, kind: "task_submitted", id: "e1", seq: 1, at: 0, taskId: "t1",
 *   goal: "fix the failing test", baseRev: "HEAD", contractDigest: "sha256:c",
 *   policyDigest: "sha256:p", policy: null,
 *   budget: { wallTimeMs: 60_000, repairRounds: 2, outputBytes: 1e6, costUnits: 100 },
 * });
 * deepEqual(actions.map((a) => a.kind), ["append_log", "create_worktree"]);
 * equal(state.tasks["t1"]?.status, "submitted");
 * ```
 */
export function step(state: KernelState, event: KernelEvent): StepResult {
  const actions: KernelAction[] = [];
  const seq = event.seq;
  if (!(seq > state.lastSeq) || !Number.isFinite(seq)) return { state, actions };
  state.lastSeq = seq;
  const at = event.at;
  if (at > state.now && Number.isFinite(at)) state.now = at;
  // Events of different kinds have different shapes: each read of a field common to all of them
  // is a megamorphic lookup, so the kind is read once.
  const kind = event.kind;
  if (kind === "task_submitted") {
    submit(state, event, actions);
    return { state, actions };
  }
  const taskId = event.taskId;
  // Inherited members (`constructor`, `__proto__`, ...) have no string `status`.
  const found = state.tasks[taskId];
  const task = found !== undefined && typeof found.status === "string" ? found : undefined;
  if (task === undefined) {
    audit({ actions }, String(taskId), "risk", "unknown_task", kind, null);
    return { state, actions };
  }
  const ctx: StepContext = { state, task, actions, now: state.now };
  const trigger = deriveTrigger(ctx, event, kind);
  if (trigger !== null) {
    // A budget pause records which budget is spent; every other row its own reason.
    const reason = trigger === "budget_exhausted" ? exhaustedBudget(task, ctx.now) : null;
    apply(ctx, trigger, reason, kind);
  }
  if (task.cleanedUp) {
    // Compaction: a finished, cleaned-up task leaves the state.
    delete state.tasks[task.id];
    state.finished++;
  }
  return { state, actions };
}

/**
 * Applies the row `TRANSITIONS[status][on]`, then the new status's entry.
 * `reason` overrides the row's (only a budget pause names its budget).
 */
function apply(
  ctx: StepContext,
  on: TransitionTrigger,
  reason: LifecycleReason | null,
  eventKind: string,
): void {
  const task = ctx.task;
  const from = task.status;
  const rows = TRANSITIONS[from];
  let row: Transition | undefined = rows[on];
  if (row !== undefined && row.round !== undefined && task.backendFatal) {
    // The backend said retrying cannot help: no repair round follows.
    on = "backend_unrecoverable";
    row = rows[on];
  }
  if (row === undefined) {
    if (on !== "contradictory_event" && rows.contradictory_event !== undefined) {
      apply(ctx, "contradictory_event", null, eventKind);
    } else {
      audit(ctx, task.id, "risk", "contradictory_event", eventKind, from);
    }
    return;
  }
  const to = row.to;
  const why = reason ?? row.reason;
  if (row.round !== undefined) {
    task.round = addCount(task.round, 1);
    task.roundReason = row.round;
    task.spent = spentBudget(task);
    if (BACKEND_FAULT_REASONS.includes(row.round)) task.backendFaults++;
  }
  if (to === "paused") {
    task.resumeTo = ENTRY[from].resumeAs ?? from;
    task.budgetStop = why;
  }
  const previous = task.pending;
  task.pending = null;
  task.status = to;
  task.reason = why;
  ctx.actions.push({
    v: 1,
    kind: "append_log",
    taskId: task.id,
    record: { type: "transition", from, to, on, reason: why },
  });
  const entry = ENTRY[to];
  if (entry.budgeted) {
    const spent = exhaustedBudget(task, ctx.now);
    if (spent !== null) {
      apply(ctx, "budget_exhausted", spent, eventKind);
      return;
    }
  }
  emitEntry(ctx, entry.action, previous);
  if (entry.notify !== null) {
    ctx.actions.push({
      v: 1,
      kind: "notify",
      taskId: task.id,
      level: entry.notify,
      reason: why,
      status: to,
    });
  }
}

function submit(state: KernelState, event: TaskSubmittedEvent, actions: KernelAction[]): void {
  const id = event.taskId;
  if (
    typeof id !== "string" || id.length === 0 || id.length > MAX_TASK_ID_LENGTH ||
    id === "__proto__"
  ) {
    const shown = String(id).slice(0, MAX_TASK_ID_LENGTH);
    audit({ actions }, shown, "risk", "invalid_task_id", event.kind, null);
    return;
  }
  if (Object.hasOwn(state.tasks, id)) {
    audit({ actions }, id, "risk", "duplicate_task", event.kind, state.tasks[id]?.status ?? null);
    return;
  }
  const b = event.budget;
  const budget: TaskBudget = {
    wallTimeMs: count(b.wallTimeMs),
    repairRounds: count(b.repairRounds),
    outputBytes: count(b.outputBytes),
    costUnits: count(b.costUnits),
  };
  const now = state.now;
  // Field order puts what nearly every step reads first (one cache line).
  const task: TaskRecord = {
    status: "submitted",
    id,
    key: `${id}#${event.seq}`,
    pending: null,
    deadlineAt: addCount(now, budget.wallTimeMs),
    spent: null,
    round: 0,
    nextEffect: 1,
    reason: null,
    worktree: null,
    patchDigest: null,
    approval: null,
    grant: null,
    resumeTo: null,
    budgetStop: null,
    goal: event.goal,
    baseRev: event.baseRev,
    contractDigest: event.contractDigest,
    policyDigest: event.policyDigest,
    policy: event.policy,
    budget,
    used: { outputBytes: 0, costUnits: 0 },
    submittedAt: now,
    baselineWanted: event.baseline !== false,
    startWanted: event.startBackend === true,
    baselineFailing: [],
    failingChecks: [],
    claimedOutcome: null,
    backendFatal: false,
    backendFaults: 0,
    roundReason: null,
    sensitive: [],
    violations: [],
    usedApprovals: [],
    commit: null,
    cleanedUp: false,
  };
  task.spent = spentBudget(task);
  state.tasks[id] = task;
  // The row out of the "new" pseudo-status; entering `submitted` runs like any other entry.
  const row = TRANSITIONS[NEW_TASK].submit!;
  task.status = row.to;
  task.reason = row.reason;
  actions.push({
    v: 1,
    kind: "append_log",
    taskId: id,
    record: { type: "transition", from: null, to: row.to, on: "submit", reason: row.reason },
  });
  const ctx: StepContext = { state, task, actions, now };
  const spent = exhaustedBudget(task, now);
  if (ENTRY[row.to].budgeted && spent !== null) {
    apply(ctx, "budget_exhausted", spent, event.kind);
    return;
  }
  emitEntry(ctx, ENTRY[row.to].action, null);
}
