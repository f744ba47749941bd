// Drives the real lifecycle kernel like the adapters would (every effect
// "succeeds" as scripted) and records each step with recordKernelStep. Used by
// the inspect and replay tests to produce real kernel logs.
import type { KernelAction, KernelEvent } from "../../../kernel/lifecycle/mod.ts";
import {
  defaultPolicy,
  initialKernelState,
  KERNEL_LIFECYCLE_VERSION,
  step,
} from "../../../kernel/lifecycle/mod.ts";
import {
  type RecordAppender,
  recordKernelInit,
  recordKernelStep,
} from "../../../adapters/log/mod.ts";

/** Script knobs. */
export interface DriveScript {
  readonly task: string;
  /** Round whose verification passes (earlier rounds fail). */
  readonly passRound: number;
  /** The scope check's verdict (`reject`: the task ends rejected). @default "accept" */
  readonly scope?: "accept" | "reject";
  /**
   * Called after each recorded step (e.g. to mint receipts for contract runs).
   * For a `run_contract` action it may return the receipt digests of each
   * check id: the result event then names them, as the clean verifier's do.
   */
  readonly onAction?: (
    action: KernelAction,
    outcomes: Readonly<Record<string, "pass" | "fail">>,
  ) => Promise<Readonly<Record<string, readonly string[]>> | void>;
}

// deno-lint-ignore no-explicit-any
type Ev = any;

/** Runs one task to a terminal state; returns the number of steps. */
export async function driveKernel(
  log: RecordAppender,
  script: DriveScript,
  start = 1,
): Promise<number> {
  const policy = defaultPolicy();
  await recordKernelInit(log, JSON.parse(JSON.stringify(policy)), KERNEL_LIFECYCLE_VERSION);
  let state = initialKernelState(policy);
  let seq = start;
  let at = 1_700_000_000_000;
  const queue: Ev[] = [{
    kind: "task_submitted",
    taskId: script.task,
    goal: "make the unit tests pass",
    baseRev: "0123456789abcdef0123456789abcdef01234567",
    budget: { wallTimeMs: 3_600_000, repairRounds: 3, outputBytes: 10_000_000, costUnits: 1_000 },
    contractDigest: "sha256:" + "c".repeat(64),
    policyDigest: "sha256:" + "p".replace("p", "d").repeat(64),
    policy: null,
  }];
  let steps = 0;
  while (queue.length > 0 && steps < 200) {
    const partial = queue.shift()!;
    const event = { v: 1, id: `e${seq}`, seq, at, ...partial } as KernelEvent;
    seq++;
    at += 1000;
    const out = step(state, event);
    state = out.state;
    steps++;
    await recordKernelStep(log, event, out.actions);
    for (const a of out.actions) {
      const outcomes: Record<string, "pass" | "fail"> = a.kind !== "run_contract"
        ? {}
        : a.phase === "baseline"
        ? { unit: "fail" }
        : { unit: a.round >= script.passRound ? "pass" : "fail", lint: "pass" };
      const named = (await script.onAction?.(a, outcomes)) ?? {};
      const checks = Object.entries(outcomes).map(([id, outcome]) => ({
        id,
        outcome,
        receipts: named[id] ?? [],
      }));
      const base = { taskId: a.taskId };
      switch (a.kind) {
        case "create_worktree":
          queue.push({
            ...base,
            kind: "worktree_ready",
            effectId: a.effectId,
            path: `/tmp/wt-${a.taskId}`,
          });
          break;
        case "run_backend":
          queue.push({ ...base, kind: "backend_started", effectId: a.effectId });
          queue.push({
            ...base,
            kind: "backend_finished",
            effectId: a.effectId,
            outcome: "ok",
            outputBytes: 100,
            costUnits: 1,
            fatal: false,
          });
          break;
        case "extract_diff":
          queue.push({
            ...base,
            kind: "patch_extracted",
            effectId: a.effectId,
            patchDigest: "sha256:" + "e".repeat(64),
            filesChanged: 1,
          });
          break;
        case "check_scope":
          queue.push({
            ...base,
            kind: "scope_checked",
            effectId: a.effectId,
            verdict: script.scope ?? "accept",
            violations: script.scope === "reject" ? ["forbidden:.github/workflows/x.yml"] : [],
            sensitive: [],
          });
          break;
        case "run_contract":
          if (a.phase === "baseline") {
            queue.push({
              ...base,
              kind: "baseline_result",
              setupReceipts: [],
              effectId: a.effectId,
              ran: true,
              unusable: [],
              checks,
            });
          } else {
            queue.push({
              ...base,
              kind: "verification_result",
              setupReceipts: [],
              effectId: a.effectId,
              round: a.round,
              checks,
            });
          }
          break;
        case "mint_verified_patch":
          queue.push({
            ...base,
            kind: "patch_minted",
            effectId: a.effectId,
            patchDigest: a.patchDigest,
          });
          break;
        case "request_approval":
          queue.push({
            ...base,
            kind: "approval_granted",
            approvalId: a.approvalId,
            action: a.action,
            patchDigest: a.patchDigest,
            by: "tester",
            expiresAt: a.expiresAt,
          });
          break;
        case "integrate":
          queue.push({
            ...base,
            kind: "integrated",
            effectId: a.effectId,
            ok: true,
            commit: "f".repeat(40),
          });
          break;
        case "cleanup":
          queue.push({ ...base, kind: "cleanup_done", effectId: a.effectId });
          break;
        default:
          break;
      }
    }
  }
  return steps;
}
