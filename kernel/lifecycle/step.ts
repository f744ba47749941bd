/**
 * The lifecycle reducer.
 *
 * Rules:
 * 1. `step(state, event)` is synchronous, deterministic and total: it never
 *    throws on a well-typed input, reads no clock and performs no effect.
 *    Time is `event.at`; ids come from counters in the state.
 * 2. `step` owns `state` and updates only the touched task in place; it
 *    returns the same object (see `state.ts` for the ownership rule).
 * 3. An event whose `seq` is not above `state.lastSeq` is a redelivery: it
 *    changes nothing and emits nothing.
 * 4. Every status change is a row of `TRANSITIONS`. Terminal statuses absorb
 *    every event with at most one `append_log` action.
 * 5. A result event must name the task's in-flight effect (`effectId`); a
 *    result for another effect is stale (audit only); a result of the wrong
 *    kind for the in-flight effect contradicts it and fails the task.
 * 6. `integrate` is emitted only with a capability token; when the policy
 *    requires approval (always for irreversible effects) the token rests on a
 *    human `approval_granted` bound to the task, the effect and the patch,
 *    unexpired at the event's time, and used once.
 * 7. At most `MAX_ACTIONS_PER_STEP` actions per step.
 *
 * Theory of operation: the driver feeds an event, performs the returned
 * actions, and feeds each result back as a new event carrying the action's
 * `effectId`. A task waits on at most one effect at a time.
 *
 * @module
 */
import type { KernelAction } from "./actions.ts";
import type { LifecycleReason, TaskStatus } from "./codes.ts";
import type { KernelEvent, RoundCheckResult, TaskBudget, TaskSubmittedEvent } from "./events.ts";
import { defaultPolicy, evaluateGatedEffect, sensitiveDenied } from "./policy.ts";
import type { PolicySnapshot } from "./policy_types.ts";
import type { KernelState, PendingKind, TaskRecord } from "./state.ts";
import { isTransition, type TransitionTrigger } from "./transitions.ts";

/** What one step returns: the (same, updated) state and the actions to perform. */
export interface StepResult {
  readonly state: KernelState;
  readonly actions: KernelAction[];
}

const MAX_COUNT = Number.MAX_SAFE_INTEGER;
const MAX_TASK_ID_LENGTH = 256;

/**
 * A fresh kernel state whose tasks default to `policy` (`defaultPolicy()` if omitted).
 *
 * @example
 * ```ts
 * import { initialKernelState } from "./step.ts";
 * import { defaultPolicy } from "./policy.ts";
 * const state = initialKernelState(defaultPolicy());
 * state.lastSeq; // -1
 * ```
 */
export function initialKernelState(policy: PolicySnapshot = defaultPolicy()): KernelState {
  return { v: 1, lastSeq: -1, now: 0, policy, tasks: {} };
}

/**
 * Applies one event. See the module doc for the rules.
 *
 * @example
 * ```ts
 * import { initialKernelState, step } from "./step.ts";
 * import { defaultPolicy } from "./policy.ts";
 * const state = initialKernelState(defaultPolicy());
 * const { actions } = step(state, {
 *   v: 1, kind: "task_submitted", id: "e1", seq: 1, at: 0, taskId: "t1",
 *   goal: "fix the failing test", baseRev: "HEAD", contractDigest: "sha256:c",
 *   policyDigest: "sha256:p", policy: null,
 *   budget: { wallTimeMs: 60_000, repairRounds: 2, outputBytes: 1e6, costUnits: 100 },
 * });
 * actions.map((a) => a.kind); // ["append_log", "create_worktree"]
 * ```
 */
export function step(state: KernelState, event: KernelEvent): StepResult {
  const actions: KernelAction[] = [];
  const seq = event.seq;
  if (!(seq > state.lastSeq) || !Number.isFinite(seq)) return { state, actions };
  state.lastSeq = seq;
  const at = event.at;
  if (at > state.now && Number.isFinite(at)) state.now = at;

  if (event.kind === "task_submitted") {
    submit(state, event, actions);
    return { state, actions };
  }
  const taskId = event.taskId;
  // One lookup. Inherited members (`constructor`, `__proto__`, ...) have no
  // string `status`; checking it reads only the record the step needs anyway.
  const found = state.tasks[taskId];
  const task = found !== undefined && typeof found.status === "string" ? found : undefined;
  if (task === undefined) {
    actions.push(risk(String(taskId), "unknown_task", event.kind, null));
    return { state, actions };
  }
  const ctx: Ctx = { state, task, actions, now: state.now };
  const status = task.status;
  if (
    status === "completed" || status === "rejected" || status === "failed" || status === "killed"
  ) {
    absorb(ctx, event);
    return { state, actions };
  }
  switch (event.kind) {
    case "kill_requested":
      move(ctx, "kill", "killed", "killed", event.kind);
      break;
    case "budget_extended":
      extendBudget(ctx, event.add, event.kind);
      break;
    case "timer_tick":
      tick(ctx, event.kind);
      break;
    case "approval_granted":
    case "approval_denied":
      onApproval(ctx, event);
      break;
    default:
      onResult(ctx, event);
  }
  return { state, actions };
}

interface Ctx {
  readonly state: KernelState;
  readonly task: TaskRecord;
  readonly actions: KernelAction[];
  readonly now: number;
}

// ---------------------------------------------------------------- helpers

function risk(
  taskId: string,
  reason: LifecycleReason,
  eventKind: string,
  status: TaskStatus | null,
): KernelAction {
  return { v: 1, kind: "append_log", taskId, record: { type: "risk", reason, eventKind, status } };
}

function note(ctx: Ctx, reason: LifecycleReason, eventKind: string): void {
  ctx.actions.push({
    v: 1,
    kind: "append_log",
    taskId: ctx.task.id,
    record: { type: "note", reason, eventKind, status: ctx.task.status },
  });
}

function count(n: number): number {
  // Fail closed: a non-number or non-finite amount counts as the maximum.
  if (typeof n !== "number" || Number.isNaN(n)) return MAX_COUNT;
  if (n <= 0) return 0;
  return n > MAX_COUNT ? MAX_COUNT : n;
}

function addCount(a: number, b: number): number {
  const sum = a + b;
  return sum > MAX_COUNT ? MAX_COUNT : sum;
}

function newEffectId(task: TaskRecord): string {
  const id = `${task.id}/e${task.nextEffect}`;
  task.nextEffect++;
  return id;
}

function policyOf(ctx: Ctx): PolicySnapshot {
  return ctx.task.policy ?? ctx.state.policy;
}

/** The non-time budget that is spent, if any; cached in `task.spent` whenever it may change. */
function spentBudget(task: TaskRecord): LifecycleReason | null {
  if (task.used.outputBytes > task.budget.outputBytes) return "budget_output_bytes";
  if (task.used.costUnits > task.budget.costUnits) return "budget_cost_units";
  if (task.round > task.budget.repairRounds) return "budget_repair_rounds";
  return null;
}

function exhaustedBudget(task: TaskRecord, now: number): LifecycleReason | null {
  if (now > task.deadlineAt) return "budget_wall_time";
  return task.spent;
}

function remaining(task: TaskRecord, now: number): TaskBudget {
  return {
    wallTimeMs: Math.max(0, task.deadlineAt - now),
    repairRounds: Math.max(0, task.budget.repairRounds - task.round),
    outputBytes: Math.max(0, task.budget.outputBytes - task.used.outputBytes),
    costUnits: Math.max(0, task.budget.costUnits - task.used.costUnits),
  };
}

/**
 * Moves the task along a table row, then runs the entry behaviour of the new
 * status. A move that is not a row is itself contradictory: the task fails.
 */
function move(
  ctx: Ctx,
  on: TransitionTrigger,
  to: TaskStatus,
  reason: LifecycleReason,
  eventKind: string,
): void {
  const task = ctx.task;
  const from = task.status;
  if (!isTransition(from, on, to)) {
    // Not reachable with a correct table; kept total instead of throwing.
    if (from !== "failed" && isTransition(from, "contradictory_event", "failed")) {
      move(ctx, "contradictory_event", "failed", "contradictory_event", eventKind);
    } else {
      ctx.actions.push(risk(task.id, "contradictory_event", eventKind, from));
    }
    return;
  }
  task.status = to;
  task.reason = reason;
  ctx.actions.push({
    v: 1,
    kind: "append_log",
    taskId: task.id,
    record: { type: "transition", from, to, on, reason },
  });
  enter(ctx, eventKind);
}

function enter(ctx: Ctx, eventKind: string): void {
  const task = ctx.task;
  switch (task.status) {
    case "submitted":
    case "worktree_ready":
    case "extracting":
    case "patch_proposed":
    case "scope_checked":
    case "verifying": {
      const spent = exhaustedBudget(task, ctx.now);
      if (spent !== null) {
        pause(ctx, spent, task.status, eventKind);
        return;
      }
      startWork(ctx);
      return;
    }
    case "verified":
      decideIntegration(ctx, eventKind);
      return;
    case "completed":
    case "rejected":
    case "failed":
    case "killed":
      finish(ctx);
      return;
    default:
      // backend_running, integrating, paused: the caller emitted what is needed.
      return;
  }
}

function setPending(task: TaskRecord, kind: PendingKind): string {
  const effectId = newEffectId(task);
  task.pending = { effectId, kind };
  return effectId;
}

/** Emits the entry action of a work status. */
function startWork(ctx: Ctx): void {
  const { task, actions } = ctx;
  const taskId = task.id;
  switch (task.status) {
    case "submitted": {
      const effectId = setPending(task, "create_worktree");
      actions.push({ v: 1, kind: "create_worktree", taskId, effectId, baseRev: task.baseRev });
      return;
    }
    case "worktree_ready": {
      const effectId = setPending(task, "run_backend");
      actions.push({
        v: 1,
        kind: "run_backend",
        taskId,
        effectId,
        round: task.round,
        goal: task.goal,
        worktree: task.worktree ?? "",
        feedback: {
          failingChecks: task.failingChecks.slice(),
          baselineFailing: task.baselineFailing.slice(),
          reason: task.roundReason,
        },
        deadlineAt: task.deadlineAt,
        remaining: remaining(task, ctx.now),
      });
      return;
    }
    case "extracting": {
      const effectId = setPending(task, "extract_diff");
      actions.push({
        v: 1,
        kind: "extract_diff",
        taskId,
        effectId,
        worktree: task.worktree ?? "",
        baseRev: task.baseRev,
      });
      return;
    }
    case "patch_proposed": {
      const effectId = setPending(task, "check_scope");
      actions.push({
        v: 1,
        kind: "check_scope",
        taskId,
        effectId,
        patchDigest: task.patchDigest ?? "",
      });
      return;
    }
    case "scope_checked":
    case "verifying": {
      const baseline = !task.baselineDone;
      const effectId = setPending(task, baseline ? "run_baseline" : "run_round");
      actions.push({
        v: 1,
        kind: "run_contract",
        taskId,
        effectId,
        phase: baseline ? "baseline" : "round",
        round: task.round,
        contractDigest: task.contractDigest,
        baseRev: task.baseRev,
        patchDigest: baseline ? null : task.patchDigest,
      });
      return;
    }
    default:
      return;
  }
}

function pause(ctx: Ctx, reason: LifecycleReason, resumeTo: TaskStatus, eventKind: string): void {
  const task = ctx.task;
  const from = task.status;
  if (!isTransition(from, "budget_exhausted", "paused")) {
    move(ctx, "contradictory_event", "failed", "contradictory_event", eventKind);
    return;
  }
  const pending = task.pending;
  if (pending !== null) {
    ctx.actions.push({
      v: 1,
      kind: "cancel_effect",
      taskId: task.id,
      effectId: pending.effectId,
      reason,
    });
    task.pending = null;
  }
  task.status = "paused";
  task.reason = reason;
  task.resumeTo = resumeTo;
  ctx.actions.push({
    v: 1,
    kind: "append_log",
    taskId: task.id,
    record: { type: "transition", from, to: "paused", on: "budget_exhausted", reason },
  });
  ctx.actions.push({
    v: 1,
    kind: "notify",
    taskId: task.id,
    level: "warn",
    reason,
    status: "paused",
  });
}

/** Entry of a terminal status: release everything, tell the humans. */
function finish(ctx: Ctx): void {
  const task = ctx.task;
  const running = task.pending !== null;
  task.approval = null;
  if (task.worktree !== null || running) {
    const effectId = setPending(task, "cleanup");
    ctx.actions.push({ v: 1, kind: "cleanup", taskId: task.id, effectId, cancelRunning: running });
  } else {
    task.pending = null;
    task.cleanedUp = true;
  }
  ctx.actions.push({
    v: 1,
    kind: "notify",
    taskId: task.id,
    level: task.status === "completed" ? "info" : "warn",
    reason: task.reason ?? "killed",
    status: task.status,
  });
}

function decideIntegration(ctx: Ctx, eventKind: string): void {
  const task = ctx.task;
  const verdict = evaluateGatedEffect(policyOf(ctx), "integrate", task.sensitive);
  if (verdict.decision === "deny") {
    move(ctx, "policy_deny", "completed", "verified_not_integrated", eventKind);
  } else if (verdict.decision === "allow") {
    move(ctx, "policy_allow", "integrating", "integration_allowed", eventKind);
    emitIntegrate(ctx, null, null, null);
  } else {
    requestApproval(ctx, verdict.reasons);
  }
}

function requestApproval(ctx: Ctx, reasons: string[]): void {
  const task = ctx.task;
  const approvalId = `${task.id}/a${task.nextEffect}`;
  task.nextEffect++;
  const ttl = count(policyOf(ctx).approvalTtlMs);
  const expiresAt = addCount(ctx.now, ttl);
  const patchDigest = task.patchDigest ?? "";
  task.approval = { approvalId, action: "integrate", patchDigest, expiresAt };
  ctx.actions.push({
    v: 1,
    kind: "request_approval",
    taskId: task.id,
    approvalId,
    action: "integrate",
    patchDigest,
    sensitive: task.sensitive.slice(),
    reasons,
    expiresAt,
  });
  ctx.actions.push({
    v: 1,
    kind: "notify",
    taskId: task.id,
    level: "action_required",
    reason: "approval_required",
    status: task.status,
  });
}

function emitIntegrate(
  ctx: Ctx,
  approvalId: string | null,
  approvedBy: string | null,
  expiresAt: number | null,
): void {
  const task = ctx.task;
  const effectId = setPending(task, "integrate");
  const patchDigest = task.patchDigest ?? "";
  ctx.actions.push({
    v: 1,
    kind: "integrate",
    taskId: task.id,
    effectId,
    patchDigest,
    token: {
      v: 1,
      effect: "integrate",
      taskId: task.id,
      effectId,
      patchDigest,
      approvalId,
      approvedBy,
      expiresAt,
    },
  });
}

// ---------------------------------------------------------------- events

function submit(state: KernelState, event: TaskSubmittedEvent, actions: KernelAction[]): void {
  const id = event.taskId;
  if (
    typeof id !== "string" || id.length === 0 || id.length > MAX_TASK_ID_LENGTH ||
    id === "__proto__"
  ) {
    actions.push(
      risk(String(id).slice(0, MAX_TASK_ID_LENGTH), "invalid_task_id", event.kind, null),
    );
    return;
  }
  if (Object.hasOwn(state.tasks, id)) {
    actions.push(risk(id, "duplicate_task", event.kind, state.tasks[id]?.status ?? null));
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
    pending: null,
    deadlineAt: addCount(now, budget.wallTimeMs),
    spent: null,
    round: 0,
    nextEffect: 1,
    reason: "submitted",
    worktree: null,
    patchDigest: null,
    approval: null,
    resumeTo: null,
    goal: event.goal,
    baseRev: event.baseRev,
    contractDigest: event.contractDigest,
    policyDigest: event.policyDigest,
    policy: event.policy,
    budget,
    used: { outputBytes: 0, costUnits: 0 },
    submittedAt: now,
    baselineDone: false,
    baselineFailing: [],
    failingChecks: [],
    claimedOutcome: null,
    roundReason: null,
    sensitive: [],
    violations: [],
    usedApprovals: [],
    commit: null,
    cleanedUp: false,
  };
  task.spent = spentBudget(task);
  state.tasks[id] = task;
  actions.push({
    v: 1,
    kind: "append_log",
    taskId: id,
    record: { type: "transition", from: null, to: "submitted", on: "submit", reason: "submitted" },
  });
  enter({ state, task, actions, now }, event.kind);
}

function absorb(ctx: Ctx, event: KernelEvent): void {
  const task = ctx.task;
  if (
    event.kind === "cleanup_done" && task.pending !== null &&
    task.pending.kind === "cleanup" && task.pending.effectId === event.effectId
  ) {
    task.pending = null;
    task.cleanedUp = true;
    return;
  }
  note(ctx, "terminal_absorbed", event.kind);
}

function extendBudget(ctx: Ctx, add: TaskBudget, eventKind: string): void {
  const task = ctx.task;
  const b = task.budget;
  const wall = count(add.wallTimeMs);
  task.budget = {
    wallTimeMs: addCount(b.wallTimeMs, wall),
    repairRounds: addCount(b.repairRounds, count(add.repairRounds)),
    outputBytes: addCount(b.outputBytes, count(add.outputBytes)),
    costUnits: addCount(b.costUnits, count(add.costUnits)),
  };
  task.deadlineAt = addCount(task.deadlineAt, wall);
  task.spent = spentBudget(task);
  if (task.status !== "paused") {
    note(ctx, "budget_extended", eventKind);
    return;
  }
  if (exhaustedBudget(task, ctx.now) !== null) {
    note(ctx, "budget_still_exhausted", eventKind);
    return;
  }
  const to = task.resumeTo ?? "submitted";
  task.resumeTo = null;
  move(ctx, "resume", to, "resumed", eventKind);
}

function tick(ctx: Ctx, eventKind: string): void {
  const task = ctx.task;
  const status = task.status;
  if (status === "verified") {
    const approval = task.approval;
    if (approval !== null && ctx.now > approval.expiresAt) {
      note(ctx, "approval_expired", eventKind);
      requestApproval(ctx, ["approval_expired"]);
    }
    return;
  }
  if (status === "paused" || status === "integrating") return;
  const spent = exhaustedBudget(task, ctx.now);
  if (spent === null) return;
  pause(ctx, spent, status === "backend_running" ? "worktree_ready" : status, eventKind);
}

function onApproval(
  ctx: Ctx,
  event: Extract<KernelEvent, { kind: "approval_granted" | "approval_denied" }>,
): void {
  const task = ctx.task;
  const approval = task.approval;
  if (task.status !== "verified" || approval === null || approval.approvalId !== event.approvalId) {
    const reused = task.usedApprovals.includes(event.approvalId);
    ctx.actions.push(
      risk(task.id, reused ? "approval_reused" : "approval_unknown", event.kind, task.status),
    );
    return;
  }
  if (event.kind === "approval_denied") {
    task.approval = null;
    task.usedApprovals.push(approval.approvalId);
    move(ctx, "approval_denied", "rejected", "approval_denied", event.kind);
    return;
  }
  if (event.action !== approval.action || event.patchDigest !== approval.patchDigest) {
    ctx.actions.push(risk(task.id, "approval_mismatch", event.kind, task.status));
    return;
  }
  const expiresAt = Math.min(approval.expiresAt, count(event.expiresAt));
  if (ctx.now > expiresAt) {
    note(ctx, "approval_expired", event.kind);
    requestApproval(ctx, ["approval_expired"]);
    return;
  }
  task.approval = null;
  task.usedApprovals.push(approval.approvalId);
  move(ctx, "approval_granted", "integrating", "approval_granted", event.kind);
  emitIntegrate(ctx, approval.approvalId, String(event.by), expiresAt);
}

const RESULT_OF: Readonly<Record<string, PendingKind>> = {
  worktree_ready: "create_worktree",
  worktree_failed: "create_worktree",
  backend_started: "run_backend",
  backend_finished: "run_backend",
  patch_extracted: "extract_diff",
  scope_checked: "check_scope",
  baseline_result: "run_baseline",
  verification_result: "run_round",
  integrated: "integrate",
  cleanup_done: "cleanup",
};

function failingOf(checks: readonly RoundCheckResult[]): string[] {
  const failing: string[] = [];
  for (const c of checks) if (c.outcome !== "pass") failing.push(String(c.id));
  return failing;
}

function startRepair(
  ctx: Ctx,
  on: TransitionTrigger,
  reason: LifecycleReason,
  eventKind: string,
): void {
  const task = ctx.task;
  task.round = addCount(task.round, 1);
  task.spent = spentBudget(task);
  task.roundReason = reason;
  move(ctx, on, "worktree_ready", "repair_round", eventKind);
}

type ResultEvent = Exclude<
  KernelEvent,
  {
    kind:
      | "task_submitted"
      | "kill_requested"
      | "budget_extended"
      | "timer_tick"
      | "approval_granted"
      | "approval_denied";
  }
>;

function onResult(ctx: Ctx, event: ResultEvent): void {
  const task = ctx.task;
  const pending = task.pending;
  const kind = event.kind;
  if (pending === null || pending.effectId !== event.effectId) {
    ctx.actions.push(risk(task.id, "stale_result", kind, task.status));
    return;
  }
  if (RESULT_OF[kind] !== pending.kind) {
    move(ctx, "contradictory_event", "failed", "contradictory_event", kind);
    return;
  }
  const status = task.status;
  switch (event.kind) {
    case "worktree_ready":
      if (status !== "submitted") break;
      task.pending = null;
      task.worktree = String(event.path);
      move(ctx, "worktree_ready", "worktree_ready", "worktree_created", kind);
      return;
    case "worktree_failed":
      if (status !== "submitted") break;
      task.pending = null;
      move(ctx, "worktree_failed", "failed", "worktree_failed", kind);
      return;
    case "backend_started":
      if (status !== "worktree_ready") break;
      move(ctx, "backend_started", "backend_running", "backend_started", kind);
      return;
    case "backend_finished": {
      if (status !== "worktree_ready" && status !== "backend_running") break;
      task.pending = null;
      task.used.outputBytes = addCount(task.used.outputBytes, count(event.outputBytes));
      task.used.costUnits = addCount(task.used.costUnits, count(event.costUnits));
      task.spent = spentBudget(task);
      const outcome = event.outcome;
      // What the backend says about its run is a claim: "ok" and "error" both
      // lead to the real diff, which alone is judged. Only a run that was
      // stopped (cancelled, timed out) has no finished work to judge.
      if (outcome === "ok") {
        task.claimedOutcome = "ok";
        move(ctx, "backend_ok", "extracting", "backend_done", kind);
      } else if (outcome === "error") {
        task.claimedOutcome = "error";
        move(ctx, "backend_error", "extracting", "backend_reported_error", kind);
      } else if (outcome === "cancelled") {
        task.claimedOutcome = "cancelled";
        move(ctx, "backend_cancelled", "failed", "backend_cancelled", kind);
      } else {
        task.claimedOutcome = "timed_out";
        task.failingChecks = [];
        startRepair(ctx, "backend_timed_out", "backend_failed", kind);
      }
      return;
    }
    case "patch_extracted":
      if (status !== "extracting") break;
      task.pending = null;
      if (!(event.filesChanged > 0)) {
        task.failingChecks = [];
        task.patchDigest = null;
        if (task.claimedOutcome === "error") {
          startRepair(ctx, "patch_empty_after_error", "backend_error_no_change", kind);
        } else {
          startRepair(ctx, "patch_empty", "empty_patch", kind);
        }
        return;
      }
      task.patchDigest = String(event.patchDigest);
      move(ctx, "patch_extracted", "patch_proposed", "patch_extracted", kind);
      return;
    case "scope_checked": {
      if (status !== "patch_proposed") break;
      task.pending = null;
      task.sensitive = event.sensitive.slice();
      task.violations = event.violations.slice();
      if (event.verdict !== "accept" || task.violations.length > 0) {
        move(ctx, "scope_reject", "rejected", "scope_violation", kind);
        return;
      }
      if (sensitiveDenied(policyOf(ctx), task.sensitive) !== null) {
        move(ctx, "sensitive_denied", "rejected", "policy_denied", kind);
        return;
      }
      move(ctx, "scope_accept", "scope_checked", "scope_accepted", kind);
      return;
    }
    case "baseline_result":
      if (status !== "scope_checked") break;
      task.pending = null;
      if (event.ran !== true) {
        move(ctx, "baseline_unavailable", "failed", "baseline_unavailable", kind);
        return;
      }
      task.baselineDone = true;
      task.baselineFailing = failingOf(event.checks);
      move(ctx, "baseline_ok", "verifying", "baseline_recorded", kind);
      return;
    case "verification_result": {
      if (status !== "scope_checked" && status !== "verifying") break;
      if (event.round !== task.round) {
        move(ctx, "contradictory_event", "failed", "contradictory_event", kind);
        return;
      }
      task.pending = null;
      const failing = failingOf(event.checks);
      // Fail closed: a contract with no checks proves nothing.
      if (failing.length === 0 && event.checks.length > 0) {
        task.failingChecks = [];
        move(ctx, "verification_pass", "verified", "verification_passed", kind);
      } else {
        task.failingChecks = failing;
        startRepair(ctx, "verification_fail", "verification_failed", kind);
      }
      return;
    }
    case "integrated":
      if (status !== "integrating") break;
      task.pending = null;
      if (event.ok === true) {
        task.commit = event.commit;
        move(ctx, "integrated_ok", "completed", "integrated", kind);
      } else {
        move(ctx, "integrated_failed", "failed", "integrate_failed", kind);
      }
      return;
    case "cleanup_done":
      break;
  }
  // The effect matches but the status does not expect this result (e.g. a
  // second backend_started): the stream contradicts itself.
  move(ctx, "contradictory_event", "failed", "contradictory_event", kind);
}
