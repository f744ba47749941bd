/**
 * One handler per kernel action kind: each performs its effect through the
 * adapters and feeds the result back as the event answering the action's
 * `effectId`. A handler never decides what happens next; the kernel does.
 *
 * @module
 */
import type { KernelAction } from "../../kernel/lifecycle/actions.ts";
import type { BackendFailure } from "../backends/types.ts";
import { taskOutcome } from "../../kernel/lifecycle/outcome.ts";
import { LOG_KINDS } from "../log/kinds.ts";
import { integrate } from "../verified_patch/capabilities.ts";
import { mintVerifiedPatch } from "../verified_patch/verified_patch.ts";
import type { VerificationRun } from "../verification/verifier.ts";
import { deferRemoval } from "../worktree/deferred_removal.ts";
import { writeJson, writeText, writeVerified } from "./_artefacts.ts";
import { runBackendRound } from "./_backend_round.ts";
import type { TaskRun } from "./_task_run.ts";
import {
  type ActionKind,
  type ActionOf,
  cancellable,
  effectFailed,
  type Handler,
  message,
} from "./_effects.ts";
import { PATCH_HANDLERS } from "./_patch_handlers.ts";

const createWorktreeHandler: Handler<"create_worktree"> = async (run, action) => {
  const o = run.o;
  run.progress("worktree");
  let path;
  try {
    path = await o.source.open({ repo: o.repo, base: o.base, taskId: o.taskId });
  } catch (error) {
    run.effectError = message(error);
    await run.feed({
      kind: "worktree_failed",
      taskId: o.taskId,
      effectId: action.effectId,
      error: message(error),
    });
    return;
  }
  await run.feed({
    kind: "worktree_ready",
    taskId: o.taskId,
    effectId: action.effectId,
    // Supplied bytes have no checkout: the task's own artefacts directory stands for it.
    path: path ?? o.artefactsDir,
  });
};

const startBackend: Handler<"start_backend"> = async (run, action) => {
  const o = run.o;
  run.progress("start", o.source.id);
  // Started once, in the sandbox of this worktree: the same process serves round 1. Each
  // sub-step it names is the live line's (the sandbox, the agent's start, `initialize`).
  const step = (text: string) => run.progress("start", text.slice(0, 80));
  const why = await cancellable(
    run,
    action.effectId,
    (signal) =>
      o.source.start?.(
        {
          taskId: o.taskId,
          worktree: action.worktree,
          allowedRoots: o.rules.allow.length > 0 ? o.rules.allow : ["**"],
          forbiddenPaths: [...o.rules.forbid, ...o.rules.protect],
        },
        signal,
        step,
      ) ?? Promise.resolve(null),
  ).catch((error): BackendFailure => ({
    code: "config",
    message: message(error),
    retryable: false,
  }));
  run.startFailure = why;
  await run.feed({
    kind: "backend_ready",
    taskId: o.taskId,
    effectId: action.effectId,
    ok: why === null,
  });
};

const runContract: Handler<"run_contract"> = async (run, action) => {
  const o = run.o;
  const taskId = o.taskId;
  if (action.phase === "baseline") {
    // The clean base revision, before any agent time is spent.
    run.progress("baseline");
    const b = await cancellable(
      run,
      action.effectId,
      (signal) =>
        o.verifier.baseline(signal, (name) => {
          run.check = name;
          run.progress("baseline");
        }),
    );
    run.baseline = b;
    await writeJson(run, "baseline.json", b.evidence);
    if (b.testOutput !== undefined) await writeText(run, "baseline/test_output.txt", b.testOutput);
    await run.feed({
      kind: "baseline_result",
      taskId,
      effectId: action.effectId,
      ran: b.ran,
      // A contract that gates nothing (or refuses itself) proves nothing.
      unusable: b.ran ? b.diagnostics : [],
      checks: b.checks,
      setupReceipts: b.setupReceipts,
      ...(b.reusedFrom !== undefined ? { reusedFrom: b.reusedFrom.task } : {}),
    });
    return;
  }
  const round = run.currentRound();
  if (round === null || round.patch === null) {
    await effectFailed(run, action.effectId, "no_patch", "no extracted patch to verify");
    return;
  }
  const patch = round.patch;
  const diff = round.diff ?? undefined;
  run.progress("verify");
  const result: VerificationRun = await cancellable(
    run,
    action.effectId,
    (signal) =>
      o.verifier.verify(round.round, patch, signal, (name) => {
        run.check = name;
        run.progress("verify");
      }, diff),
  );
  round.run = result;
  await writeJson(run, `round-${round.round}/evidence.json`, result.evidence);
  if (result.testOutput !== undefined) {
    await writeText(run, `round-${round.round}/test_output.txt`, result.testOutput);
  }
  await writeJson(run, `round-${round.round}/receipts.json`, result.receipts);
  if ((result.cannotStart ?? []).length > 0) {
    // A check that cannot even start judged nothing: vouch could not run the contract.
    await effectFailed(
      run,
      action.effectId,
      "verify_command_cannot_start",
      `check(s) ${(result.cannotStart ?? []).join(", ")} cannot start`,
    );
    return;
  }
  await run.feed({
    kind: "verification_result",
    taskId,
    effectId: action.effectId,
    round: action.round,
    // A refused run (patch does not apply, cannot run) fails closed.
    checks: result.refusals.length > 0 || result.checks.length === 0
      ? [{ id: result.refusals[0] ?? "no_checks", outcome: "fail", receipts: [] }]
      : result.checks,
    setupReceipts: result.setupReceipts,
  });
};

const mint: Handler<"mint_verified_patch"> = async (run, action) => {
  const o = run.o;
  const round = run.currentRound();
  const evidence = round?.run ?? null;
  // Fail closed: the kernel's pass must agree with the verification's own verdict.
  if (
    round === null || round.patch === null || evidence === null || !evidence.passed ||
    evidence.refusals.length > 0 || round.patchDigest !== action.patchDigest
  ) {
    await effectFailed(run, action.effectId, "mint_evidence_mismatch", "no passing evidence");
    return;
  }
  const verified = await mintVerifiedPatch(o.key, {
    patch: {
      kind: "unverified_patch",
      task: o.taskId,
      baseRevision: o.base,
      diff: round.patch,
      backend: o.source.id,
    },
    contractDigest: o.verifier.contractDigest,
    checks: evidence.checkEvidence,
    receipts: evidence.receipts,
    passedAt: run.now(),
    sandboxProfile: evidence.sandbox,
    logAnchor: await o.log.anchor(),
    pathPolicy: o.rules,
  });
  run.verified = verified;
  run.patchFile = await writeVerified(run, round.patch, verified);
  await o.log.append({
    task: o.taskId,
    kind: LOG_KINDS.verifiedPatchMinted,
    body: verified.toJSON(),
  });
  await run.feed({
    kind: "patch_minted",
    taskId: o.taskId,
    effectId: action.effectId,
    patchDigest: round.patchDigest,
  });
};

const requestApproval: Handler<"request_approval"> = async (run, action) => {
  const o = run.o;
  const req = o.integrate;
  run.progress("integrate", "waiting for approval");
  const approved = req === undefined ? false : await req.approve({
    task: o.taskId,
    branch: req.branch,
    patchDigest: action.patchDigest,
    files: run.currentRound()?.files ?? [],
    sensitive: action.sensitive,
    reasons: action.reasons,
  }).catch(() => false);
  if (approved && req !== undefined) {
    await run.feed({
      kind: "approval_granted",
      taskId: o.taskId,
      approvalId: action.approvalId,
      action: action.action,
      patchDigest: action.patchDigest,
      by: req.approver,
      expiresAt: action.expiresAt,
    });
  } else {
    await run.feed({
      kind: "approval_denied",
      taskId: o.taskId,
      approvalId: action.approvalId,
      by: req?.approver ?? "nobody",
    });
  }
};

const integrateHandler: Handler<"integrate"> = async (run, action) => {
  const o = run.o;
  const req = o.integrate;
  run.progress("integrate", req?.branch);
  const failed = (why: string) => {
    run.effectError = why;
    return run.feed({
      kind: "integrated",
      taskId: o.taskId,
      effectId: action.effectId,
      ok: false,
      commit: null,
    });
  };
  if (req === undefined || run.verified === null) return await failed("nothing to integrate");
  try {
    const r = await integrate(
      run.verified,
      {
        repoRoot: o.repo,
        branch: req.branch,
        message: `vouch: ${o.goal.split("\n")[0]?.slice(0, 60) ?? "verified patch"}`,
      },
      req.ops,
      o.key,
    );
    run.integrated = { branch: r.branch, commit: r.commit };
    await run.feed({
      kind: "integrated",
      taskId: o.taskId,
      effectId: action.effectId,
      ok: true,
      commit: r.commit,
    });
  } catch (error) {
    await failed(message(error));
  }
};

const cleanup: Handler<"cleanup"> = async (run, action) => {
  run.progress("cleanup");
  run.running?.controller.abort();
  // A session the backend kept for a next round ends before the tree goes.
  await run.o.source.endTask(run.o.taskId);
  // Nothing runs in the worktree any more; its files go now, or after the verdict is
  // reported (`treeRemoval: "after_return"`).
  const removal = run.releaseTrees();
  if (run.o.treeRemoval === "after_return") deferRemoval(removal);
  else await removal;
  await run.feed({ kind: "cleanup_done", taskId: run.o.taskId, effectId: action.effectId });
};

/**
 * The detail of a status notification: a task whose rounds all ended in the backend's own
 * failure is paused by the round budget but ends `backend_failed` (the kernel's
 * `taskOutcome`), so the live line says that, never "rejected after N rounds".
 */
function notifyDetail(
  run: TaskRun,
  action: Extract<KernelAction, { kind: "notify" }>,
): string | undefined {
  const task = run.state.tasks[run.o.taskId] ?? run.record;
  if (action.status === "paused" && action.reason === "budget_repair_rounds" && task) {
    if (taskOutcome(task)?.state === "backend_failed") return "backend_failed";
  }
  return action.reason;
}

/** The handler of every action kind. */
const HANDLERS: { readonly [K in ActionKind]: Handler<K> } = {
  // Already recorded with the step.
  append_log: () => Promise.resolve(),
  notify: (run, action) => Promise.resolve(run.progress(action.status, notifyDetail(run, action))),
  cancel_effect: (run, action) => {
    if (run.running?.effectId === action.effectId) run.running.controller.abort();
    return Promise.resolve();
  },
  create_worktree: createWorktreeHandler,
  start_backend: startBackend,
  run_contract: runContract,
  run_backend: runBackendRound,
  ...PATCH_HANDLERS,
  mint_verified_patch: mint,
  request_approval: requestApproval,
  integrate: integrateHandler,
  cleanup,
};

/**
 * Performs `action` with the handler of its kind (`HANDLERS` is typed per
 * kind, so the handler and the action it gets agree, with no cast).
 */
export function perform<K extends ActionKind>(
  run: TaskRun,
  action: ActionOf[K] & { kind: K },
): Promise<void> {
  const handler: Handler<K> = HANDLERS[action.kind];
  return handler(run, action);
}
