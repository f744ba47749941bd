/**
 * One handler per kernel action kind: each performs its effect through the
 * adapters and feeds the result back as the event answering the action's
 * `effectId`. A handler never decides what happens next; the kernel does.
 *
 * @module
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { changedPaths } from "../../kernel/diff/changed_paths.ts";
import { tryParseGitDiff } from "../../kernel/diff/parse.ts";
import type { KernelAction } from "../../kernel/lifecycle/actions.ts";
import { taskOutcome } from "../../kernel/lifecycle/outcome.ts";
import { sensitiveDenied } from "../../kernel/lifecycle/policy.ts";
import { judgePatch, patchRulesFromLists } from "../../kernel/scope/judge_patch.ts";
import { sha256Hex } from "../digest/sha256.ts";
import { LOG_KINDS } from "../log/kinds.ts";
import { integrate } from "../verified_patch/capabilities.ts";
import { mintVerifiedPatch } from "../verified_patch/verified_patch.ts";
import { violationDetail } from "../verification/check_detail.ts";
import type { VerificationRun } from "../verification/verifier.ts";
import { extractDiff } from "../worktree/extract_diff.ts";
import { deferRemoval } from "../worktree/deferred_removal.ts";
import { createWorktree } from "../worktree/worktree.ts";
import { writeJson, writeRoundPatch, writeVerified } from "./_artefacts.ts";
import { runBackendRound } from "./_backend_round.ts";
import type { TaskRun } from "./_task_run.ts";

/** Every kind of action the kernel asks the driver to perform. */
type ActionKind = KernelAction["kind"];
/** The action of each kind. */
type ActionOf = { readonly [K in ActionKind]: Extract<KernelAction, { kind: K }> };
/** What performs an action of kind `K`. */
type Handler<K extends ActionKind> = (run: TaskRun, action: ActionOf[K]) => Promise<void>;

const message = (error: unknown) => error instanceof Error ? error.message : String(error);

/** The effect cannot be performed: the kernel fails the task (could not run). */
async function effectFailed(run: TaskRun, effectId: string, code: string, why: string) {
  run.effectError = `${code}: ${why}`;
  run.effectCode = code;
  await run.feed({ kind: "effect_failed", taskId: run.o.taskId, effectId, error: code });
}

/** Runs `work` as the task's cancellable effect, bounded by the wall-time budget. */
async function cancellable<T>(
  run: TaskRun,
  effectId: string,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  run.running = { effectId, controller };
  const timer = setTimeout(() => controller.abort(), run.remainingMs());
  try {
    return await work(controller.signal);
  } finally {
    clearTimeout(timer);
    run.running = null;
    run.check = null;
  }
}

const createWorktreeHandler: Handler<"create_worktree"> = async (run, action) => {
  const o = run.o;
  run.progress("worktree");
  if (o.workspace === "none") {
    // Nothing edits files: an empty private directory instead of a checkout.
    run.scratch = await mkdtemp(join(tmpdir(), "vouch-workspace-"));
    await run.feed({
      kind: "worktree_ready",
      taskId: o.taskId,
      effectId: action.effectId,
      path: run.scratch,
    });
    return;
  }
  try {
    run.worktree = await createWorktree({
      repo: o.repo,
      taskId: o.taskId,
      attempt: 1,
      base: o.base,
      ...(o.worktreeRoot !== undefined ? { root: o.worktreeRoot } : {}),
    });
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
    path: run.worktree.path,
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
  round.checks = [...result.summaries];
  round.reasons.push(...result.refusals);
  if (result.why !== undefined) round.details.push(result.why);
  for (const c of result.summaries) {
    if (!c.passed) round.details.push(`check "${c.name}": ${c.detail ?? c.outcome}`);
  }
  await writeJson(run, `round-${round.round}/evidence.json`, result.evidence);
  await writeJson(run, `round-${round.round}/receipts.json`, result.receipts);
  if ((result.cannotStart ?? []).length > 0) {
    // A check that cannot even start judged nothing: vouch could not run the contract.
    round.reasons.push("verify_command_cannot_start");
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
  round.verdict = run.record?.status === "verified" ? "verified" : "rejected";
};

const extract: Handler<"extract_diff"> = async (run, action) => {
  const o = run.o;
  const round = run.currentRound();
  run.progress("validate", "extracting the real diff");
  if ((run.worktree === null && o.workspace !== "none") || round === null) {
    await effectFailed(run, action.effectId, "no_worktree", "the worktree is gone");
    return;
  }
  let diff;
  try {
    diff = run.worktree === null
      ? readHanded(round.handed ?? new Uint8Array())
      : await extractDiff(run.worktree);
  } catch (error) {
    round.reasons.push("extract_failed");
    await effectFailed(run, action.effectId, "extract_failed", message(error));
    return;
  }
  // A patch handed over as text is judged as stated; else the worktree's real diff.
  const bytes = round.handed ?? diff.bytes;
  round.patch = bytes;
  round.diff = "parsed" in diff ? diff.parsed : null;
  round.patchDigest = round.handed === null ? diff.digest : sha256Hex(bytes);
  round.files = diff.changed.map((c) => c.path);
  await writeRoundPatch(run, round.round, bytes);
  const changed = round.handed === null ? diff.changed.length : Math.max(1, diff.changed.length);
  if (changed === 0 && run.outside.length === 0) {
    // A failure claim with nothing changed is a failed round; a success claim, an empty patch.
    round.reasons.push(
      round.backend?.status === "error" ? "backend_error_no_change" : "empty_patch",
    );
    // `vouch verify` hands a patch over (no backend ran): say it of the patch.
    round.details.push(
      o.workspace === "none"
        ? "the patch changes no file (it is empty)"
        : "the backend changed no file",
    );
    round.verdict = "rejected";
  }
  await run.feed({
    kind: "patch_extracted",
    taskId: o.taskId,
    effectId: action.effectId,
    patchDigest: round.patchDigest,
    // Writes outside the worktree count as changes: they must reach the scope check.
    filesChanged: changed + run.outside.length,
  });
};

/**
 * The paths a handed-over patch changes, with no checkout (`workspace: "none"`):
 * as the strict parser reads it. The clean tree applies it with git and refuses
 * any path git changes that the patch does not name (`judgeAppliedPatch`).
 */
function readHanded(patch: Uint8Array) {
  const parsed = tryParseGitDiff(patch);
  return {
    bytes: patch,
    digest: sha256Hex(patch),
    changed: parsed.ok ? changedPaths(parsed.diff) : [],
    parsed: parsed.ok ? parsed.diff : null,
  };
}

const checkScope: Handler<"check_scope"> = async (run, action) => {
  const o = run.o;
  const round = run.currentRound();
  // The kernel applies its own policy to the sensitive classes, and extraction already
  // judged an empty round (empty_patch / backend_error_no_change): the scope leaves both out.
  const judgement = judgePatch(round?.patch ?? new Uint8Array(), patchRulesFromLists(o.rules), {
    outsideWrites: run.outside,
    policy: null,
    allowEmpty: true,
    ...(round !== null && round.diff !== null ? { diff: round.diff } : {}),
  });
  if (round !== null) round.diff = judgement.diff;
  const violations = judgement.violations.map((v) => `${v.code}:${v.path}`);
  const sensitive = [...judgement.classification.sensitive];
  if (round !== null) {
    round.reasons.push(...judgement.violations.map((v) => v.code));
    round.details.push(...judgement.violations.map((v) => violationDetail(v, o.rules)));
    if (judgement.verdict === "reject") round.verdict = "rejected";
  }
  await writeJson(run, `round-${round?.round ?? 0}/inspection.json`, {
    verdict: judgement.verdict,
    files: judgement.summaries,
    violations: judgement.violations,
    classification: judgement.classification,
  });
  await run.feed({
    kind: "scope_checked",
    taskId: o.taskId,
    effectId: action.effectId,
    verdict: judgement.verdict,
    violations,
    sensitive,
  });
  if (round !== null && run.record?.reason === "policy_denied") {
    // Which class the kernel's policy denied, said the way `vouch scope` says it.
    const denied = sensitiveDenied(run.record.policy ?? run.policy, sensitive);
    if (denied !== null) round.reasons.push(`policy_denied:${denied}`);
    round.verdict = "rejected";
  }
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
      backend: o.backend.id,
    },
    contractDigest: o.verifier.contractDigest,
    checks: evidence.checkEvidence,
    receipts: evidence.receipts,
    passedAt: run.now(),
    sandboxProfile: evidence.sandbox,
    logAnchor: await o.log.anchor(),
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
  await run.o.backend.endTask?.(run.o.taskId).catch(() => {});
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
  run_contract: runContract,
  run_backend: runBackendRound,
  extract_diff: extract,
  check_scope: checkScope,
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
