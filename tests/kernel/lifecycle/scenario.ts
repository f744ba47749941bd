/**
 * Random event streams for property tests. fast-check generates abstract
 * commands; `materialize` turns each into a concrete, well-typed event
 * against the live state (so most results name the real in-flight effect and
 * tasks get deep into the lifecycle), with a share of stale, contradictory,
 * forged and redelivered events mixed in.
 */
import fc from "fast-check";
import {
  defaultPolicy,
  initialKernelState,
  type KernelAction,
  type KernelEvent,
  type KernelState,
  type PolicySnapshot,
  type SensitiveClass,
  step,
  type TaskStatus,
} from "../../../kernel/lifecycle/mod.ts";

export const RAW_KINDS = [
  "task_submitted",
  "worktree_ready",
  "worktree_failed",
  "backend_ready",
  "backend_started",
  "backend_finished",
  "patch_extracted",
  "scope_checked",
  "baseline_result",
  "verification_result",
  "patch_minted",
  "effect_failed",
  "approval_granted",
  "approval_denied",
  "integrated",
  "cleanup_done",
  "kill_requested",
  "budget_extended",
  "timer_tick",
] as const;

/** An abstract command; `auto` answers the task's in-flight effect like a driver would. */
export interface Cmd {
  readonly kind: "auto" | "redeliver" | typeof RAW_KINDS[number];
  readonly task: number;
  readonly ref: "pending" | "stale" | "forged";
  readonly dt: number;
  readonly a: number;
  readonly b: number;
  readonly flag: boolean;
  readonly flag2: boolean;
}

export const cmdArb: fc.Arbitrary<Cmd> = fc.record({
  kind: fc.oneof(
    { weight: 30, arbitrary: fc.constant("auto" as const) },
    { weight: 1, arbitrary: fc.constant("redeliver" as const) },
    { weight: 5, arbitrary: fc.constantFrom(...RAW_KINDS) },
  ),
  task: fc.nat({ max: 3 }),
  ref: fc.oneof(
    { weight: 18, arbitrary: fc.constant("pending" as const) },
    { weight: 1, arbitrary: fc.constant("stale" as const) },
    { weight: 1, arbitrary: fc.constant("forged" as const) },
  ),
  dt: fc.oneof(
    { weight: 6, arbitrary: fc.nat({ max: 50 }) },
    { weight: 1, arbitrary: fc.nat({ max: 5_000 }) },
    { weight: 1, arbitrary: fc.integer({ min: -100, max: 0 }) },
  ),
  a: fc.nat({ max: 1_000 }),
  b: fc.nat({ max: 1_000 }),
  flag: fc.boolean(),
  flag2: fc.boolean(),
});

const SENSITIVE: readonly SensitiveClass[] = [
  "ci_workflow",
  "dependency_manifest",
  "lockfile",
  "secrets",
  "executable",
  "symlink",
];

export const policyArb: fc.Arbitrary<PolicySnapshot> = fc.record({
  v: fc.constant(1 as const),
  profile: fc.constantFrom("readonly" as const, "supervised" as const, "full" as const),
  reversibility: fc.record({
    integrate: fc.constantFrom("reversible" as const, "irreversible" as const),
    push: fc.constant("irreversible" as const),
    open_pr: fc.constant("irreversible" as const),
  }),
  sensitive: fc.record({
    ci_workflow: fc.constantFrom("allow" as const, "deny" as const, "require_approval" as const),
    dependency_manifest: fc.constantFrom("allow" as const, "require_approval" as const),
    lockfile: fc.constantFrom("allow" as const, "require_approval" as const),
    secrets: fc.constantFrom("deny" as const, "require_approval" as const),
    executable: fc.constantFrom("allow" as const, "require_approval" as const),
    symlink: fc.constantFrom("deny" as const, "require_approval" as const),
  }),
  approvalTtlMs: fc.integer({ min: 0, max: 3_000 }),
}).map((p) => JSON.parse(JSON.stringify(p)) as PolicySnapshot);

/** One materialised step with what the property checks need. */
export interface ScenarioStep {
  readonly event: KernelEvent;
  readonly actions: KernelAction[];
  /** Status of the event's task before the step (`null`: no such task). */
  readonly before: TaskStatus | null;
  /** Status after the step. */
  readonly after: TaskStatus | null;
  /** Copy of the task after the step (null if none). */
  readonly task: KernelState["tasks"][string] | null;
  /** Kernel clock after the step. */
  readonly now: number;
  /** Whether the event was a redelivery (its seq was already applied). */
  readonly redelivered: boolean;
}

export interface Scenario {
  readonly policy: PolicySnapshot;
  readonly events: KernelEvent[];
  readonly steps: ScenarioStep[];
  readonly state: KernelState;
}

function taskIdOf(n: number): string {
  return n === 3 ? "ghost" : `t${n}`;
}

function effectRef(state: KernelState, taskId: string, cmd: Cmd): string {
  // (taskId is already resolved by the caller)
  const t = Object.hasOwn(state.tasks, taskId) ? state.tasks[taskId] : undefined;
  if (cmd.ref === "forged" || t === undefined) return `forged-${cmd.a}`;
  // Raw (non-auto) results mostly name an old effect: a matching one would
  // usually contradict the in-flight effect and end the task early.
  const raw = cmd.kind !== "auto" && !(cmd.flag && cmd.flag2);
  if (cmd.ref === "stale" || raw) return `${t.key}/e${1 + (cmd.a % Math.max(1, t.nextEffect))}`;
  return t.pending?.effectId ?? `${taskId}/e0`;
}

const OUTCOMES = [
  "ok",
  "ok",
  "ok",
  "ok",
  "ok",
  "ok",
  "ok",
  "ok",
  "error",
  "timed_out",
  "ok",
  "cancelled",
] as const;

function body(state: KernelState, cmd: Cmd, kind: typeof RAW_KINDS[number]): unknown {
  const taskId = taskIdOf(cmd.kind === "auto" ? cmd.task % 3 : cmd.task);
  const t = Object.hasOwn(state.tasks, taskId) ? state.tasks[taskId] : undefined;
  const effectId = effectRef(state, taskId, cmd);
  switch (kind) {
    case "task_submitted":
      return {
        kind,
        taskId,
        goal: "goal",
        baseRev: "base",
        contractDigest: "c",
        policyDigest: "p",
        policy: null,
        budget: {
          wallTimeMs: 200 + cmd.a * 5,
          repairRounds: cmd.b % 3,
          outputBytes: 100 + cmd.a,
          costUnits: 5 + (cmd.b % 20),
        },
        // Half the tasks start their agent before the baseline, as `vouch run` does.
        ...(cmd.b % 2 === 0 ? { startBackend: true } : {}),
      };
    case "worktree_ready":
      return { kind, taskId, effectId, path: `/wt/${taskId}` };
    case "worktree_failed":
      return { kind, taskId, effectId, error: "boom" };
    case "backend_ready":
      return { kind, taskId, effectId, ok: cmd.flag || cmd.a % 7 !== 3 };
    case "backend_started":
      return { kind, taskId, effectId };
    case "backend_finished":
      return {
        kind,
        taskId,
        effectId,
        outcome: OUTCOMES[cmd.a % OUTCOMES.length],
        outputBytes: cmd.b % 60,
        costUnits: cmd.a % 4,
        fatal: cmd.a % 17 === 5,
      };
    case "patch_extracted":
      return {
        kind,
        taskId,
        effectId,
        patchDigest: `p${cmd.b % 3}`,
        filesChanged: cmd.flag || cmd.flag2 ? 1 + (cmd.a % 3) : 0,
      };
    case "scope_checked": {
      const sensitive = SENSITIVE.filter((_, i) => (cmd.a >> i) & 1 && cmd.b % 3 === 0);
      const accept = cmd.flag || cmd.flag2;
      return {
        kind,
        taskId,
        effectId,
        verdict: accept ? "accept" : "reject",
        violations: accept ? [] : ["path_outside_scope"],
        sensitive,
      };
    }
    case "baseline_result":
      return {
        kind,
        taskId,
        effectId,
        ran: cmd.flag || cmd.flag2,
        unusable: cmd.a % 23 === 7 ? ["baseline-gates-nothing"] : [],
        setupReceipts: [],
        checks: [{ id: "unit", outcome: "fail", receipts: ["sha256:receipt-unit"] }],
      };
    case "verification_result":
      return {
        kind,
        taskId,
        effectId,
        round: cmd.ref === "pending" ? t?.round ?? 0 : cmd.b % 3,
        setupReceipts: [],
        checks: [
          { id: "unit", outcome: cmd.flag ? "pass" : "fail", receipts: ["sha256:receipt-unit"] },
          {
            id: "lint",
            outcome: cmd.flag2 || cmd.flag ? "pass" : "inconclusive",
            receipts: ["sha256:receipt-lint"],
          },
        ],
      };
    case "approval_granted": {
      const ap = t?.approval ?? null;
      const forged = cmd.ref !== "pending" || ap === null;
      return {
        kind,
        taskId,
        approvalId: forged ? `${taskId}/a${cmd.a % 20}` : ap.approvalId,
        action: "integrate",
        patchDigest: cmd.flag2 || ap === null ? ap?.patchDigest ?? "p0" : `p${cmd.b % 3}`,
        by: "alice",
        expiresAt: cmd.flag ? ap?.expiresAt ?? state.now + cmd.a : state.now + cmd.a - 500,
      };
    }
    case "approval_denied":
      return {
        kind,
        taskId,
        approvalId: t?.approval?.approvalId ?? `${taskId}/a${cmd.a % 20}`,
        by: "bob",
      };
    case "patch_minted":
      return {
        kind,
        taskId,
        effectId,
        patchDigest: cmd.flag || cmd.flag2 ? t?.patchDigest ?? "p0" : `p${cmd.b % 3}`,
      };
    case "effect_failed":
      return { kind, taskId, effectId, error: "could_not" };
    case "integrated":
      return { kind, taskId, effectId, ok: cmd.flag || cmd.flag2, commit: "c1" };
    case "cleanup_done":
      return { kind, taskId, effectId };
    case "kill_requested":
      return { kind, taskId, by: "bob" };
    case "budget_extended":
      return {
        kind,
        taskId,
        add: {
          wallTimeMs: cmd.a * 10,
          repairRounds: cmd.b % 2,
          outputBytes: cmd.a,
          costUnits: cmd.b % 10,
        },
      };
    case "timer_tick":
      return { kind, taskId };
  }
}

/** What a cooperative driver would answer next for the task, or a fresh submission. */
function autoKind(state: KernelState, cmd: Cmd): typeof RAW_KINDS[number] {
  const taskId = taskIdOf(cmd.task % 3);
  const t = Object.hasOwn(state.tasks, taskId) ? state.tasks[taskId] : undefined;
  if (t === undefined) return "task_submitted";
  if (t.status === "paused") return "budget_extended";
  if (t.status === "awaiting_approval") {
    return cmd.a % 10 === 0 ? "approval_denied" : "approval_granted";
  }
  switch (t.pending?.kind) {
    case "create_worktree":
      return "worktree_ready";
    case "start_backend":
      return "backend_ready";
    case "run_backend":
      return t.status === "worktree_ready" && cmd.flag2 ? "backend_started" : "backend_finished";
    case "extract_diff":
      return "patch_extracted";
    case "check_scope":
      return "scope_checked";
    case "run_baseline":
      return "baseline_result";
    case "run_round":
      return "verification_result";
    case "mint":
      return "patch_minted";
    case "integrate":
      return "integrated";
    case "cleanup":
      return "cleanup_done";
    default:
      return "timer_tick";
  }
}

/** Materialises and applies the commands; checks nothing itself. */
export function runScenario(cmds: readonly Cmd[], policy: PolicySnapshot): Scenario {
  const state = initialKernelState(policy);
  const events: KernelEvent[] = [];
  const steps: ScenarioStep[] = [];
  let seq = 0;
  let at = 1_000;
  for (const cmd of cmds) {
    let event: KernelEvent;
    if (cmd.kind === "redeliver" && events.length > 0) {
      event = events[cmd.a % events.length]!;
    } else {
      const kind = cmd.kind === "auto" || cmd.kind === "redeliver"
        ? autoKind(state, cmd)
        : cmd.kind;
      seq++;
      at += cmd.dt;
      // Most auto commands behave like a cooperative driver with a backend
      // that eventually succeeds, so tasks reach the end of the lifecycle.
      const happy = cmd.kind === "auto" && cmd.a % 8 !== 0;
      const used: Cmd = happy
        ? {
          ...cmd,
          ref: "pending",
          a: cmd.a - (cmd.a % 12),
          flag: kind === "verification_result" ? cmd.b % 3 !== 0 : true,
          flag2: true,
        }
        : cmd;
      event = {
        v: 1,
        id: `e${seq}`,
        seq,
        at,
        ...(body(state, used, kind) as object),
      } as KernelEvent;
    }
    const taskId = "taskId" in event ? event.taskId : "";
    const beforeTask = Object.hasOwn(state.tasks, taskId) ? state.tasks[taskId] : undefined;
    const before = beforeTask?.status ?? null;
    const redelivered = !(event.seq > state.lastSeq);
    const { actions } = step(state, event);
    const afterTask = Object.hasOwn(state.tasks, taskId) ? state.tasks[taskId] : undefined;
    events.push(event);
    steps.push({
      event,
      actions,
      before,
      // A finished task compacted by this step keeps its (last) record.
      after: (afterTask ?? beforeTask)?.status ?? null,
      task: (afterTask ?? beforeTask) === undefined
        ? null
        : JSON.parse(JSON.stringify(afterTask ?? beforeTask)),
      now: state.now,
      redelivered,
    });
  }
  return { policy, events, steps, state };
}

export { defaultPolicy };
