/**
 * Trigger derivation: the one trigger an event means for a task, plus the
 * event's data recorded on the task (accounting, digests, failing checks).
 * Destinations are never decided here: they are rows of `TRANSITIONS`.
 * Private to the reducer.
 *
 * @module
 */
import type { BackendOutcome, LifecycleReason, PolicyDecision, TaskStatus } from "./codes.ts";
import type { KernelEvent, RoundCheckResult, TaskBudget } from "./events.ts";
import { evaluateGatedEffect, sensitiveDenied } from "./policy.ts";
import type { PendingKind, TaskRecord } from "./state.ts";
import { ENTRY, type TransitionTrigger } from "./transitions.ts";
import { addCount, audit, count, policyOf, type StepContext } from "./_entry.ts";

const BACKEND_TRIGGER: { readonly [O in BackendOutcome]: TransitionTrigger } = {
  ok: "backend_ok",
  error: "backend_error",
  cancelled: "backend_cancelled",
  timed_out: "backend_timed_out",
};

const POLICY_TRIGGER: { readonly [D in PolicyDecision]: TransitionTrigger } = {
  allow: "policy_allow",
  deny: "policy_deny",
  require_approval: "policy_ask",
};

const RESUME_TRIGGER: { readonly [S in TaskStatus]?: TransitionTrigger } = {
  submitted: "resume_submitted",
  starting_backend: "resume_starting_backend",
  baselining: "resume_baselining",
  worktree_ready: "resume_worktree_ready",
  extracting: "resume_extracting",
  patch_proposed: "resume_patch_proposed",
  verifying: "resume_verifying",
};

/** Which in-flight effect each result event answers (`effect_failed` answers any). */
const RESULT_OF: { readonly [K in KernelEvent["kind"]]?: PendingKind } = {
  worktree_ready: "create_worktree",
  worktree_failed: "create_worktree",
  backend_ready: "start_backend",
  baseline_result: "run_baseline",
  backend_started: "run_backend",
  backend_finished: "run_backend",
  patch_extracted: "extract_diff",
  scope_checked: "check_scope",
  verification_result: "run_round",
  patch_minted: "mint",
  integrated: "integrate",
  cleanup_done: "cleanup",
};

/** The non-time budget that is spent, if any (cached in `task.spent` whenever it may change). */
export function spentBudget(task: TaskRecord): LifecycleReason | null {
  if (task.used.outputBytes > task.budget.outputBytes) return "budget_output_bytes";
  if (task.used.costUnits > task.budget.costUnits) return "budget_cost_units";
  if (task.round > task.budget.repairRounds) return "budget_repair_rounds";
  return null;
}

/** The budget that is spent at `now`, if any. */
export function exhaustedBudget(task: TaskRecord, now: number): LifecycleReason | null {
  return now > task.deadlineAt ? "budget_wall_time" : task.spent;
}

/** Check ids that did not pass. A pass that names no receipt proves nothing: it fails. */
function failingOf(checks: readonly RoundCheckResult[]): string[] {
  const failing: string[] = [];
  for (const c of checks) {
    if (c.outcome !== "pass" || !Array.isArray(c.receipts) || c.receipts.length === 0) {
      failing.push(String(c.id));
    }
  }
  return failing;
}

/** The derived trigger itself (a string: nothing is allocated per step). */
const on = (trigger: TransitionTrigger): TransitionTrigger => trigger;

/**
 * The trigger `event` means for `ctx.task`, or `null` when the event changes
 * no status (an audit record or a note is emitted instead). `kind` is
 * `event.kind`, read once by the caller.
 */
export function deriveTrigger(
  ctx: StepContext,
  event: KernelEvent,
  kind: KernelEvent["kind"],
): TransitionTrigger | null {
  const task = ctx.task;
  const status = task.status;
  if (
    status === "completed" || status === "rejected" || status === "failed" || status === "killed"
  ) {
    const p = task.pending;
    if (event.kind === "cleanup_done" && p !== null && p.effectId === event.effectId) {
      task.pending = null;
      task.cleanedUp = true;
    } else {
      audit(ctx, task.id, "note", "terminal_absorbed", kind, status);
    }
    return null;
  }
  switch (event.kind) {
    case "kill_requested":
      return on("kill");
    case "budget_extended":
      return extendBudget(ctx, event.add, kind);
    case "timer_tick":
      return tick(ctx);
    case "approval_granted":
    case "approval_denied":
      return approval(ctx, event);
    case "task_submitted":
      return null;
    default:
      return result(ctx, event);
  }
}

function extendBudget(
  ctx: StepContext,
  add: TaskBudget,
  eventKind: string,
): TransitionTrigger | null {
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
    audit(ctx, task.id, "note", "budget_extended", eventKind, task.status);
    return null;
  }
  if (exhaustedBudget(task, ctx.now) !== null) {
    audit(ctx, task.id, "note", "budget_still_exhausted", eventKind, task.status);
    return null;
  }
  const resume = RESUME_TRIGGER[task.resumeTo ?? "submitted"] ?? "resume_submitted";
  task.resumeTo = null;
  task.budgetStop = null;
  return on(resume);
}

function tick(ctx: StepContext): TransitionTrigger | null {
  const task = ctx.task;
  const status = task.status;
  if (status === "awaiting_approval") {
    const approval = task.approval;
    return approval !== null && ctx.now > approval.expiresAt ? on("approval_expired") : null;
  }
  // Only statuses that can be paused (ENTRY.resumeAs) spend wall time.
  if (ENTRY[status].resumeAs === null) return null;
  const spent = exhaustedBudget(task, ctx.now);
  // (apply records which budget: `exhaustedBudget` again, at the same time)
  return spent === null ? null : on("budget_exhausted");
}

function approval(
  ctx: StepContext,
  event: Extract<KernelEvent, { kind: "approval_granted" | "approval_denied" }>,
): TransitionTrigger | null {
  const task = ctx.task;
  const pending = task.approval;
  if (
    task.status !== "awaiting_approval" || pending === null ||
    pending.approvalId !== event.approvalId
  ) {
    const reused = task.usedApprovals.includes(event.approvalId);
    const reason = reused ? "approval_reused" : "approval_unknown";
    audit(ctx, task.id, "risk", reason, event.kind, task.status);
    return null;
  }
  if (event.kind === "approval_denied") {
    task.approval = null;
    task.usedApprovals.push(pending.approvalId);
    return on("approval_denied");
  }
  if (event.action !== pending.action || event.patchDigest !== pending.patchDigest) {
    audit(ctx, task.id, "risk", "approval_mismatch", event.kind, task.status);
    return null;
  }
  const expiresAt = Math.min(pending.expiresAt, count(event.expiresAt));
  if (ctx.now > expiresAt) return on("approval_expired");
  task.approval = null;
  task.usedApprovals.push(pending.approvalId);
  task.grant = { approvalId: pending.approvalId, by: String(event.by), expiresAt };
  return on("approval_granted");
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

function result(ctx: StepContext, event: ResultEvent): TransitionTrigger | null {
  // One read of the kind (a megamorphic lookup); `switch (kind)` still narrows `event`.
  const { kind } = event;
  const task = ctx.task;
  const pending = task.pending;
  if (pending === null || pending.effectId !== event.effectId) {
    audit(ctx, task.id, "risk", "stale_result", kind, task.status);
    return null;
  }
  if (kind === "effect_failed") {
    task.pending = null;
    return on("effect_failed");
  }
  if (RESULT_OF[kind] !== pending.kind) return on("contradictory_event");
  // The result is consumed; `backend_started` only says the effect is under way.
  if (kind !== "backend_started") task.pending = null;
  switch (kind) {
    case "worktree_ready":
      task.worktree = String(event.path);
      if (task.startWanted) return on("worktree_ready_start_backend");
      return on(task.baselineWanted ? "worktree_ready" : "worktree_ready_no_baseline");
    case "worktree_failed":
      return on("worktree_failed");
    case "backend_ready":
      if (event.ok !== true) return on("backend_unavailable");
      return on(task.baselineWanted ? "backend_ready" : "backend_ready_no_baseline");
    case "baseline_result":
      if (event.ran !== true) return on("baseline_unavailable");
      if (!Array.isArray(event.unusable) || event.unusable.length > 0) {
        return on("baseline_unusable");
      }
      task.baselineFailing = failingOf(event.checks);
      return on("baseline_ok");
    case "backend_started":
      return on("backend_started");
    case "backend_finished": {
      task.used.outputBytes = addCount(task.used.outputBytes, count(event.outputBytes));
      task.used.costUnits = addCount(task.used.costUnits, count(event.costUnits));
      task.spent = spentBudget(task);
      if (event.fatal === true) task.backendFatal = true;
      // A claim: "ok" and "error" both lead to the real diff, which alone is judged.
      const outcome = BACKEND_TRIGGER[event.outcome] === undefined ? "error" : event.outcome;
      task.claimedOutcome = outcome;
      if (outcome === "timed_out") task.failingChecks = [];
      return on(BACKEND_TRIGGER[outcome]);
    }
    case "patch_extracted":
      if (!(event.filesChanged > 0)) {
        task.failingChecks = [];
        task.patchDigest = null;
        return on(task.claimedOutcome === "error" ? "patch_empty_after_error" : "patch_empty");
      }
      task.patchDigest = String(event.patchDigest);
      return on("patch_extracted");
    case "scope_checked":
      task.sensitive = event.sensitive.slice();
      task.violations = event.violations.slice();
      if (event.verdict !== "accept" || task.violations.length > 0) {
        // A path-rule violation with a repair round left is feedback; the last round's is the
        // verdict. Anything else (a write outside the worktree, symlink or collision tricks, an
        // unparsable patch) ends the task at once.
        const retry = task.round < task.budget.repairRounds && task.violations.length > 0 &&
          task.violations.every(isPathRuleViolation);
        return on(retry ? "scope_retry" : "scope_reject");
      }
      if (sensitiveDenied(policyOf(ctx), task.sensitive) !== null) return on("sensitive_denied");
      return on("scope_accept");
    case "verification_result": {
      if (event.round !== task.round) return on("contradictory_event");
      const failing = failingOf(event.checks);
      task.failingChecks = failing;
      // Fail closed: a contract with no checks proves nothing.
      return on(
        failing.length === 0 && event.checks.length > 0 ? "verification_pass" : "verification_fail",
      );
    }
    case "patch_minted":
      if (event.patchDigest !== task.patchDigest) return on("contradictory_event");
      return on(
        POLICY_TRIGGER[evaluateGatedEffect(policyOf(ctx), "integrate", task.sensitive).decision],
      );
    case "integrated":
      if (event.ok !== true) return on("integrated_failed");
      task.commit = event.commit;
      return on("integrated_ok");
    case "cleanup_done":
      return on("contradictory_event");
  }
}

/** Scope violation codes that only say a path is outside the task's rules (`code:path`). */
const PATH_RULE_CODES = ["forbidden", "outside_allowed", "protected_path"];

/** Whether a recorded violation (`code:path`) is a path-rule one (a repair round may fix it). */
function isPathRuleViolation(violation: string): boolean {
  return PATH_RULE_CODES.includes(violation.slice(0, violation.indexOf(":")));
}
