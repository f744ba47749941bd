/**
 * Test harness for the lifecycle reducer: a tiny in-memory "driver" that
 * stamps events with id/seq/time, feeds them to `step`, and remembers every
 * step. No I/O, no clock: runs with no permissions.
 */
import {
  defaultPolicy,
  initialKernelState,
  type KernelAction,
  type KernelEvent,
  type KernelState,
  type PolicySnapshot,
  step,
  type TaskBudget,
  type TaskRecord,
} from "../../../kernel/lifecycle/mod.ts";

/** Distributive Omit so each event variant keeps its own fields. */
export type EventBody = KernelEvent extends infer E
  ? E extends KernelEvent ? Omit<E, "v" | "id" | "seq" | "at"> : never
  : never;

/** A roomy budget for example tests. */
export const BIG_BUDGET: TaskBudget = {
  wallTimeMs: 1_000_000,
  repairRounds: 3,
  outputBytes: 1_000_000,
  costUnits: 1_000,
};

/** A recorded step. */
export interface SimStep {
  readonly event: KernelEvent;
  readonly actions: KernelAction[];
}

/** Drives the reducer with stamped events. */
export class Sim {
  state: KernelState;
  seq = 0;
  at = 1_000;
  readonly steps: SimStep[] = [];
  /** Every task record ever created (finished tasks are compacted out of the state). */
  readonly records = new Map<string, TaskRecord>();

  constructor(policy: PolicySnapshot = defaultPolicy()) {
    this.state = initialKernelState(policy);
  }

  /** Sends an event `dt` ms after the previous one; returns its actions. */
  send(body: EventBody, dt = 10): KernelAction[] {
    this.seq++;
    this.at += dt;
    const event = { v: 1, id: `e${this.seq}`, seq: this.seq, at: this.at, ...body } as KernelEvent;
    const { state, actions } = step(this.state, event);
    this.state = state;
    this.steps.push({ event, actions });
    if (event.kind === "task_submitted") {
      const created = state.tasks[event.taskId];
      if (created !== undefined && !this.records.has(event.taskId)) {
        this.records.set(event.taskId, created);
      }
    }
    return actions;
  }

  /** The task's record (kept after compaction). */
  task(id: string): TaskRecord {
    const t = this.state.tasks[id] ?? this.records.get(id);
    if (t === undefined) throw new Error(`no task ${id}`);
    return t;
  }

  /** The effect id the task is waiting on (throws if none). */
  effect(id: string): string {
    const p = this.task(id).pending;
    if (p === null) throw new Error(`task ${id} waits on nothing (${this.task(id).status})`);
    return p.effectId;
  }

  submit(
    taskId: string,
    budget: TaskBudget = BIG_BUDGET,
    policy: PolicySnapshot | null = null,
  ): KernelAction[] {
    return this.send({
      kind: "task_submitted",
      taskId,
      goal: `goal of ${taskId}`,
      baseRev: "base0",
      budget,
      contractDigest: "sha256:contract",
      policyDigest: "sha256:policy",
      policy,
    });
  }

  worktreeReady(taskId: string): KernelAction[] {
    return this.send({
      kind: "worktree_ready",
      taskId,
      effectId: this.effect(taskId),
      path: `/wt/${taskId}`,
    });
  }

  /** A task whose agent is started before its baseline (`startBackend`), as `vouch run` submits. */
  submitStarting(taskId: string, baseline = true): KernelAction[] {
    return this.send({
      kind: "task_submitted",
      taskId,
      goal: `goal of ${taskId}`,
      baseRev: "base0",
      budget: BIG_BUDGET,
      contractDigest: "sha256:contract",
      policyDigest: "sha256:policy",
      policy: null,
      startBackend: true,
      ...(baseline ? {} : { baseline: false }),
    });
  }

  backendReady(taskId: string, ok = true): KernelAction[] {
    return this.send({ kind: "backend_ready", taskId, effectId: this.effect(taskId), ok });
  }

  backendStarted(taskId: string): KernelAction[] {
    return this.send({ kind: "backend_started", taskId, effectId: this.effect(taskId) });
  }

  backendFinished(
    taskId: string,
    outcome: "ok" | "error" | "cancelled" | "timed_out" = "ok",
    outputBytes = 100,
    costUnits = 1,
    fatal = false,
  ): KernelAction[] {
    return this.send({
      kind: "backend_finished",
      taskId,
      effectId: this.effect(taskId),
      outcome,
      outputBytes,
      costUnits,
      fatal,
    });
  }

  patch(taskId: string, patchDigest = "sha256:patch1", filesChanged = 1): KernelAction[] {
    return this.send({
      kind: "patch_extracted",
      taskId,
      effectId: this.effect(taskId),
      patchDigest,
      filesChanged,
    });
  }

  scope(
    taskId: string,
    verdict: "accept" | "reject" = "accept",
    sensitive: ("ci_workflow" | "lockfile" | "secrets" | "symlink" | "executable")[] = [],
    violations: string[] = [],
  ): KernelAction[] {
    return this.send({
      kind: "scope_checked",
      taskId,
      effectId: this.effect(taskId),
      verdict,
      violations,
      sensitive,
    });
  }

  baseline(taskId: string, ran = true, unusable: string[] = []): KernelAction[] {
    return this.send({
      kind: "baseline_result",
      setupReceipts: [],
      taskId,
      effectId: this.effect(taskId),
      ran,
      unusable,
      checks: [{ id: "unit", outcome: "fail", receipts: ["sha256:receipt-unit"] }, {
        id: "lint",
        outcome: "pass",
        receipts: ["sha256:receipt-lint"],
      }],
    });
  }

  verify(taskId: string, pass: boolean, round = this.task(taskId).round): KernelAction[] {
    return this.send({
      kind: "verification_result",
      setupReceipts: [],
      taskId,
      effectId: this.effect(taskId),
      round,
      checks: [{ id: "unit", outcome: pass ? "pass" : "fail", receipts: ["sha256:receipt-unit"] }, {
        id: "lint",
        outcome: "pass",
        receipts: ["sha256:receipt-lint"],
      }],
    });
  }

  /** Answers `mint_verified_patch` for the task's patch. */
  mint(taskId: string, patchDigest = this.task(taskId).patchDigest ?? ""): KernelAction[] {
    return this.send({ kind: "patch_minted", taskId, effectId: this.effect(taskId), patchDigest });
  }

  /** The adapter could not perform the in-flight effect. */
  effectFailed(taskId: string, error = "extract_failed"): KernelAction[] {
    return this.send({ kind: "effect_failed", taskId, effectId: this.effect(taskId), error });
  }

  /** Grants the task's pending approval as requested (or with overrides). */
  approve(
    taskId: string,
    overrides: Partial<{ approvalId: string; patchDigest: string; expiresAt: number }> = {},
    dt = 10,
  ): KernelAction[] {
    const a = this.task(taskId).approval;
    return this.send({
      kind: "approval_granted",
      taskId,
      approvalId: overrides.approvalId ?? a?.approvalId ?? "none",
      action: "integrate",
      patchDigest: overrides.patchDigest ?? a?.patchDigest ?? "none",
      by: "alice",
      expiresAt: overrides.expiresAt ?? a?.expiresAt ?? 0,
    }, dt);
  }

  deny(taskId: string): KernelAction[] {
    const a = this.task(taskId).approval;
    return this.send({
      kind: "approval_denied",
      taskId,
      approvalId: a?.approvalId ?? "none",
      by: "alice",
    });
  }

  integrated(taskId: string, ok = true): KernelAction[] {
    return this.send({
      kind: "integrated",
      taskId,
      effectId: this.effect(taskId),
      ok,
      commit: ok ? "c0ffee" : null,
    });
  }

  /** Runs a task from submission to `verified` (the mint requested). */
  toVerified(taskId: string, policy: PolicySnapshot | null = null): KernelAction[] {
    this.submit(taskId, BIG_BUDGET, policy);
    this.worktreeReady(taskId);
    this.baseline(taskId);
    this.backendStarted(taskId);
    this.backendFinished(taskId);
    this.patch(taskId);
    this.scope(taskId);
    return this.verify(taskId, true);
  }

  /** Runs a task through minting: under the default policy it then awaits approval. */
  toMinted(taskId: string, policy: PolicySnapshot | null = null): KernelAction[] {
    this.toVerified(taskId, policy);
    return this.mint(taskId);
  }
}

/** Kinds of the actions, with `append_log` shown as `log`. */
export function kinds(actions: readonly KernelAction[]): string[] {
  return actions.map((a) => a.kind === "append_log" ? "log" : a.kind);
}

/** The `from>on>to` of every transition record in the actions. */
export function transitionsOf(actions: readonly KernelAction[]): string[] {
  const out: string[] = [];
  for (const a of actions) {
    if (a.kind === "append_log" && a.record.type === "transition") {
      out.push(`${a.record.from ?? "null"}>${a.record.on}>${a.record.to}`);
    }
  }
  return out;
}
