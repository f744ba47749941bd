/**
 * Entry actions: what entering a status emits, one function per
 * {@linkcode EntryAction} of the `ENTRY` table. Private to the reducer.
 *
 * @module
 */
import type { KernelAction } from "./actions.ts";
import type { LifecycleReason } from "./codes.ts";
import type { TaskBudget } from "./events.ts";
import { evaluateGatedEffect } from "./policy.ts";
import type { PolicySnapshot } from "./policy_types.ts";
import type { KernelState, PendingEffect, PendingKind, TaskRecord } from "./state.ts";
import type { EntryAction } from "./transitions.ts";

/** What a step works on. */
export interface StepContext {
  readonly state: KernelState;
  readonly task: TaskRecord;
  readonly actions: KernelAction[];
  readonly now: number;
}

const MAX_COUNT = Number.MAX_SAFE_INTEGER;

/** A count from untrusted input: non-numbers and NaN count as the maximum (fail closed). */
export function count(n: number): number {
  if (typeof n !== "number" || Number.isNaN(n)) return MAX_COUNT;
  if (n <= 0) return 0;
  return n > MAX_COUNT ? MAX_COUNT : n;
}

/** Saturating addition. */
export function addCount(a: number, b: number): number {
  const sum = a + b;
  return sum > MAX_COUNT ? MAX_COUNT : sum;
}

/** The policy in force for the task. */
export function policyOf(ctx: StepContext): PolicySnapshot {
  return ctx.task.policy ?? ctx.state.policy;
}

function setPending(task: TaskRecord, kind: PendingKind): string {
  const effectId = `${task.key}/e${task.nextEffect}`;
  task.nextEffect++;
  task.pending = { effectId, kind };
  return effectId;
}

function remaining(task: TaskRecord, now: number): TaskBudget {
  return {
    wallTimeMs: Math.max(0, task.deadlineAt - now),
    repairRounds: Math.max(0, task.budget.repairRounds - task.round),
    outputBytes: Math.max(0, task.budget.outputBytes - task.used.outputBytes),
    costUnits: Math.max(0, task.budget.costUnits - task.used.costUnits),
  };
}

/** Emits the entry action of the task's (new) status; `previous` is the effect it was waiting on. */
export function emitEntry(
  ctx: StepContext,
  action: EntryAction,
  previous: PendingEffect | null,
): void {
  const { task, actions } = ctx;
  const taskId = task.id;
  switch (action) {
    case "create_worktree": {
      const effectId = setPending(task, "create_worktree");
      actions.push({ v: 1, kind: "create_worktree", taskId, effectId, baseRev: task.baseRev });
      return;
    }
    case "start_backend": {
      const effectId = setPending(task, "start_backend");
      const worktree = task.worktree ?? "";
      actions.push({ v: 1, kind: "start_backend", taskId, effectId, worktree });
      return;
    }
    case "run_baseline":
    case "run_round": {
      const baseline = action === "run_baseline";
      const effectId = setPending(task, action);
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
    case "run_backend": {
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
    case "extract_diff": {
      const effectId = setPending(task, "extract_diff");
      const worktree = task.worktree ?? "";
      actions.push({
        v: 1,
        kind: "extract_diff",
        taskId,
        effectId,
        worktree,
        baseRev: task.baseRev,
      });
      return;
    }
    case "check_scope": {
      const effectId = setPending(task, "check_scope");
      const patchDigest = task.patchDigest ?? "";
      actions.push({ v: 1, kind: "check_scope", taskId, effectId, patchDigest });
      return;
    }
    case "mint": {
      const effectId = setPending(task, "mint");
      actions.push({
        v: 1,
        kind: "mint_verified_patch",
        taskId,
        effectId,
        round: task.round,
        patchDigest: task.patchDigest ?? "",
        contractDigest: task.contractDigest,
        baseRev: task.baseRev,
      });
      return;
    }
    case "request_approval":
      requestApproval(ctx);
      return;
    case "integrate":
      emitIntegrate(ctx);
      return;
    case "cancel":
      if (previous !== null) {
        const reason = task.reason ?? "budget_wall_time";
        actions.push({ v: 1, kind: "cancel_effect", taskId, effectId: previous.effectId, reason });
      }
      task.pending = null;
      return;
    case "cleanup":
      task.approval = null;
      if (task.worktree !== null || previous !== null) {
        const effectId = setPending(task, "cleanup");
        actions.push({ v: 1, kind: "cleanup", taskId, effectId, cancelRunning: previous !== null });
      } else {
        task.pending = null;
        task.cleanedUp = true;
      }
      return;
    case "none":
      task.pending = previous;
      return;
  }
}

function requestApproval(ctx: StepContext): void {
  const task = ctx.task;
  task.pending = null;
  const approvalId = `${task.key}/a${task.nextEffect}`;
  task.nextEffect++;
  const expiresAt = addCount(ctx.now, count(policyOf(ctx).approvalTtlMs));
  const patchDigest = task.patchDigest ?? "";
  task.approval = { approvalId, action: "integrate", patchDigest, expiresAt };
  const reasons = task.reason === "approval_expired"
    ? ["approval_expired"]
    : evaluateGatedEffect(policyOf(ctx), "integrate", task.sensitive).reasons;
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
}

function emitIntegrate(ctx: StepContext): void {
  const task = ctx.task;
  const effectId = setPending(task, "integrate");
  const patchDigest = task.patchDigest ?? "";
  const grant = task.grant;
  task.grant = null;
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
      approvalId: grant?.approvalId ?? null,
      approvedBy: grant?.by ?? null,
      expiresAt: grant?.expiresAt ?? null,
    },
  });
}

/** An audit record of an event the kernel did not act on. */
export function audit(
  ctx: { readonly actions: KernelAction[] },
  taskId: string,
  type: "risk" | "note",
  reason: LifecycleReason,
  eventKind: string,
  status: TaskRecord["status"] | null,
): void {
  ctx.actions.push({
    v: 1,
    kind: "append_log",
    taskId,
    record: { type, reason, eventKind, status },
  });
}
