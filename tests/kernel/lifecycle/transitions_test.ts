/**
 * Example tests: one or more per row of the lifecycle table. The last test
 * checks that every row of `TRANSITIONS` was exercised here.
 */
import assert from "node:assert/strict";
import {
  defaultPolicy,
  isTransition,
  type KernelAction,
  type PolicySnapshot,
  step,
  TRANSITIONS,
  WORK_STATUSES,
} from "../../../kernel/lifecycle/mod.ts";
import { BIG_BUDGET, kinds, Sim, transitionsOf } from "./harness.ts";

const seen = new Set<string>();

function record(sim: Sim): void {
  for (const s of sim.steps) for (const t of transitionsOf(s.actions)) seen.add(t);
}

function fullReversible(): PolicySnapshot {
  return {
    ...defaultPolicy(),
    profile: "full",
    reversibility: { integrate: "reversible", push: "irreversible", open_pr: "irreversible" },
  };
}

function only<K extends KernelAction["kind"]>(
  actions: readonly KernelAction[],
  kind: K,
): Extract<KernelAction, { kind: K }> {
  const found = actions.filter((a) => a.kind === kind);
  assert.equal(found.length, 1, `expected one ${kind} in ${kinds(actions).join(",")}`);
  return found[0] as Extract<KernelAction, { kind: K }>;
}

Deno.test("happy path: submit -> ... -> verified -> approval -> integrated -> completed", () => {
  const sim = new Sim();
  assert.deepEqual(kinds(sim.submit("t1")), ["log", "create_worktree"]);
  assert.equal(sim.task("t1").status, "submitted");
  const run = only(sim.worktreeReady("t1"), "run_backend");
  assert.equal(run.round, 0);
  assert.equal(run.worktree, "/wt/t1");
  assert.equal(run.feedback.reason, null);
  assert.equal(sim.task("t1").status, "worktree_ready");
  assert.deepEqual(kinds(sim.backendStarted("t1")), ["log"]);
  assert.equal(sim.task("t1").status, "backend_running");
  only(sim.backendFinished("t1"), "extract_diff");
  assert.equal(sim.task("t1").status, "extracting");
  assert.equal(only(sim.patch("t1"), "check_scope").patchDigest, "sha256:patch1");
  assert.equal(sim.task("t1").status, "patch_proposed");
  const baseline = only(sim.scope("t1"), "run_contract");
  assert.equal(baseline.phase, "baseline");
  assert.equal(baseline.patchDigest, null);
  assert.equal(sim.task("t1").status, "scope_checked");
  const round = only(sim.baseline("t1"), "run_contract");
  assert.equal(round.phase, "round");
  assert.equal(round.patchDigest, "sha256:patch1");
  assert.equal(sim.task("t1").status, "verifying");
  assert.deepEqual(sim.task("t1").baselineFailing, ["unit"]);
  const verified = sim.verify("t1", true);
  assert.deepEqual(kinds(verified), ["log", "request_approval", "notify"]);
  const request = only(verified, "request_approval");
  assert.deepEqual(request.reasons, ["irreversible", "profile:supervised"]);
  assert.equal(sim.task("t1").status, "verified");
  const integrate = only(sim.approve("t1"), "integrate");
  assert.equal(integrate.token.approvalId, request.approvalId);
  assert.equal(integrate.token.taskId, "t1");
  assert.equal(integrate.token.patchDigest, "sha256:patch1");
  assert.equal(integrate.token.approvedBy, "alice");
  assert.equal(sim.task("t1").status, "integrating");
  const done = sim.integrated("t1");
  assert.deepEqual(kinds(done), ["log", "cleanup", "notify"]);
  assert.equal(sim.task("t1").status, "completed");
  assert.equal(sim.task("t1").commit, "c0ffee");
  assert.deepEqual(
    kinds(sim.send({ kind: "cleanup_done", taskId: "t1", effectId: sim.effect("t1") })),
    [],
  );
  assert.equal(sim.task("t1").cleanedUp, true);
  record(sim);
});

Deno.test("worktree_failed fails the task without cleanup work", () => {
  const sim = new Sim();
  sim.submit("t1");
  const actions = sim.send({
    kind: "worktree_failed",
    taskId: "t1",
    effectId: sim.effect("t1"),
    error: "disk full",
  });
  assert.equal(sim.task("t1").status, "failed");
  assert.equal(sim.task("t1").reason, "worktree_failed");
  assert.deepEqual(kinds(actions), ["log", "notify"]);
  record(sim);
});

Deno.test("backend finished without a start event still proceeds", () => {
  const sim = new Sim();
  sim.submit("t1");
  sim.worktreeReady("t1");
  only(sim.backendFinished("t1"), "extract_diff");
  assert.equal(sim.task("t1").status, "extracting");
  record(sim);
});

Deno.test("a timeout spends a repair round without extraction (from both waiting statuses)", () => {
  const sim = new Sim();
  sim.submit("t1");
  sim.worktreeReady("t1");
  const retry = only(sim.backendFinished("t1", "timed_out"), "run_backend");
  assert.equal(retry.round, 1);
  assert.equal(retry.feedback.reason, "backend_failed");
  sim.backendStarted("t1");
  const retry2 = only(sim.backendFinished("t1", "timed_out"), "run_backend");
  assert.equal(retry2.round, 2);
  assert.equal(sim.task("t1").claimedOutcome, "timed_out");
  record(sim);
});

Deno.test("a reported failure is a claim: the real diff is extracted and can verify", () => {
  const sim = new Sim();
  sim.submit("t1");
  sim.worktreeReady("t1");
  sim.backendStarted("t1");
  const finished = sim.backendFinished("t1", "error");
  const extract = only(finished, "extract_diff");
  assert.equal(extract.worktree, "/wt/t1");
  assert.equal(sim.task("t1").status, "extracting");
  assert.equal(sim.task("t1").round, 0, "a failure claim spends no round by itself");
  // The claim is recorded in the audit trail (the transition's reason).
  assert.ok(transitionsOf(finished).includes("backend_running>backend_error>extracting"));
  assert.deepEqual(
    finished.flatMap((a) => a.kind === "append_log" ? [a.record.reason] : []),
    ["backend_reported_error"],
  );
  assert.equal(sim.task("t1").claimedOutcome, "error");
  sim.patch("t1");
  sim.scope("t1");
  sim.baseline("t1");
  sim.verify("t1", true);
  assert.equal(sim.task("t1").status, "verified");
  record(sim);
});

Deno.test("a reported failure with an empty diff is a failed round (backend_error_no_change)", () => {
  const sim = new Sim();
  sim.submit("t1");
  sim.worktreeReady("t1");
  only(sim.backendFinished("t1", "error"), "extract_diff");
  const retry = only(sim.patch("t1", "sha256:empty", 0), "run_backend");
  assert.equal(retry.round, 1);
  assert.equal(retry.feedback.reason, "backend_error_no_change");
  assert.equal(sim.task("t1").patchDigest, null);
  // The next round's claim replaces the last: an "ok" with an empty diff is a plain empty patch.
  only(sim.backendFinished("t1", "ok"), "extract_diff");
  assert.equal(
    only(sim.patch("t1", "sha256:empty", 0), "run_backend").feedback.reason,
    "empty_patch",
  );
  record(sim);
});

Deno.test("a success claim decides nothing either: its diff still has to verify", () => {
  const sim = new Sim();
  sim.submit("t1", { ...BIG_BUDGET, repairRounds: 0 });
  sim.worktreeReady("t1");
  sim.backendFinished("t1", "ok");
  sim.patch("t1");
  sim.scope("t1");
  sim.baseline("t1");
  sim.verify("t1", false);
  assert.equal(sim.task("t1").status, "paused");
  assert.equal(sim.task("t1").reason, "budget_repair_rounds");
  record(sim);
});

Deno.test("backend cancelled by someone else fails the task (both waiting statuses)", () => {
  const sim = new Sim();
  sim.submit("t1");
  sim.worktreeReady("t1");
  sim.backendFinished("t1", "cancelled");
  assert.equal(sim.task("t1").status, "failed");
  assert.equal(sim.task("t1").reason, "backend_cancelled");
  sim.submit("t2");
  sim.worktreeReady("t2");
  sim.backendStarted("t2");
  const actions = sim.backendFinished("t2", "cancelled");
  assert.equal(sim.task("t2").status, "failed");
  assert.ok(kinds(actions).includes("cleanup"));
  record(sim);
});

Deno.test("an empty patch starts a repair round", () => {
  const sim = new Sim();
  sim.submit("t1");
  sim.worktreeReady("t1");
  sim.backendFinished("t1");
  const retry = only(sim.patch("t1", "sha256:empty", 0), "run_backend");
  assert.equal(retry.round, 1);
  assert.equal(retry.feedback.reason, "empty_patch");
  assert.equal(sim.task("t1").patchDigest, null);
  record(sim);
});

Deno.test("scope reject and denied sensitive classes reject the task", () => {
  const sim = new Sim();
  sim.submit("t1");
  sim.worktreeReady("t1");
  sim.backendFinished("t1");
  sim.patch("t1");
  const rejected = sim.scope("t1", "reject", [], ["path_outside_scope"]);
  assert.equal(sim.task("t1").status, "rejected");
  assert.equal(sim.task("t1").reason, "scope_violation");
  assert.deepEqual(sim.task("t1").violations, ["path_outside_scope"]);
  assert.deepEqual(kinds(rejected), ["log", "cleanup", "notify"]);

  sim.submit("t2");
  sim.worktreeReady("t2");
  sim.backendFinished("t2");
  sim.patch("t2");
  sim.scope("t2", "accept", ["secrets"]);
  assert.equal(sim.task("t2").status, "rejected");
  assert.equal(sim.task("t2").reason, "policy_denied");

  // An "accept" verdict that still lists violations is not an accept.
  sim.submit("t3");
  sim.worktreeReady("t3");
  sim.backendFinished("t3");
  sim.patch("t3");
  sim.scope("t3", "accept", [], ["escape"]);
  assert.equal(sim.task("t3").status, "rejected");
  record(sim);
});

Deno.test("baseline that could not run fails the task (fail closed)", () => {
  const sim = new Sim();
  sim.submit("t1");
  sim.worktreeReady("t1");
  sim.backendFinished("t1");
  sim.patch("t1");
  sim.scope("t1");
  sim.baseline("t1", false);
  assert.equal(sim.task("t1").status, "failed");
  assert.equal(sim.task("t1").reason, "baseline_unavailable");
  record(sim);
});

Deno.test("failed verification feeds the failing checks into the next round; round 2 skips the baseline", () => {
  const sim = new Sim();
  sim.submit("t1");
  sim.worktreeReady("t1");
  sim.backendFinished("t1");
  sim.patch("t1");
  sim.scope("t1");
  sim.baseline("t1");
  const repair = only(sim.verify("t1", false), "run_backend");
  assert.equal(repair.round, 1);
  assert.deepEqual(repair.feedback.failingChecks, ["unit"]);
  assert.deepEqual(repair.feedback.baselineFailing, ["unit"]);
  assert.equal(repair.feedback.reason, "verification_failed");
  sim.backendFinished("t1");
  sim.patch("t1", "sha256:patch2");
  const contract = only(sim.scope("t1"), "run_contract");
  assert.equal(contract.phase, "round");
  assert.equal(contract.round, 1);
  // fail again straight from scope_checked, then pass from scope_checked
  only(sim.verify("t1", false), "run_backend");
  sim.backendFinished("t1");
  sim.patch("t1", "sha256:patch3");
  sim.scope("t1");
  only(sim.verify("t1", true), "request_approval");
  assert.equal(sim.task("t1").status, "verified");
  record(sim);
});

Deno.test("inconclusive checks and empty check lists never pass", () => {
  const sim = new Sim();
  sim.submit("t1");
  sim.worktreeReady("t1");
  sim.backendFinished("t1");
  sim.patch("t1");
  sim.scope("t1");
  sim.baseline("t1");
  sim.send({
    kind: "verification_result",
    setupReceipts: [],
    taskId: "t1",
    effectId: sim.effect("t1"),
    round: 0,
    checks: [{ id: "unit", outcome: "inconclusive", receipts: ["sha256:receipt-unit"] }],
  });
  assert.equal(sim.task("t1").status, "worktree_ready");
  assert.deepEqual(sim.task("t1").failingChecks, ["unit"]);
  sim.backendFinished("t1");
  sim.patch("t1");
  sim.scope("t1");
  sim.send({
    kind: "verification_result",
    setupReceipts: [],
    taskId: "t1",
    effectId: sim.effect("t1"),
    round: 1,
    checks: [],
  });
  assert.equal(sim.task("t1").status, "worktree_ready");
});

Deno.test("policy: full profile with reversible integrate integrates without a human", () => {
  const sim = new Sim();
  const actions = sim.toVerified("t1", fullReversible());
  assert.deepEqual(transitionsOf(actions), [
    "verifying>verification_pass>verified",
    "verified>policy_allow>integrating",
  ]);
  const integrate = only(actions, "integrate");
  assert.equal(integrate.token.approvalId, null);
  assert.equal(sim.task("t1").status, "integrating");
  sim.integrated("t1", false);
  assert.equal(sim.task("t1").status, "failed");
  assert.equal(sim.task("t1").reason, "integrate_failed");
  record(sim);
});

Deno.test("policy: full profile still asks a human for an irreversible integrate or a sensitive file", () => {
  const sim = new Sim();
  const full = { ...defaultPolicy(), profile: "full" as const };
  only(sim.toVerified("t1", full), "request_approval");
  const sim2 = new Sim();
  sim2.submit("t2", BIG_BUDGET, fullReversible());
  sim2.worktreeReady("t2");
  sim2.backendFinished("t2");
  sim2.patch("t2");
  sim2.scope("t2", "accept", ["lockfile"]);
  sim2.baseline("t2");
  const request = only(sim2.verify("t2", true), "request_approval");
  assert.deepEqual(request.reasons, ["sensitive:lockfile"]);
  assert.deepEqual(request.sensitive, ["lockfile"]);
});

Deno.test("policy: readonly profile completes with the verified patch and never integrates", () => {
  const sim = new Sim();
  const actions = sim.toVerified("t1", { ...defaultPolicy(), profile: "readonly" });
  assert.equal(sim.task("t1").status, "completed");
  assert.equal(sim.task("t1").reason, "verified_not_integrated");
  assert.ok(!kinds(actions).includes("integrate"));
  assert.ok(kinds(actions).includes("cleanup"));
  record(sim);
});

Deno.test("approval denied rejects; a second use of the same approval is refused", () => {
  const sim = new Sim();
  sim.toVerified("t1");
  const denied = sim.deny("t1");
  assert.equal(sim.task("t1").status, "rejected");
  assert.ok(kinds(denied).includes("cleanup"));

  sim.toVerified("t2");
  const approvalId = sim.task("t2").approval!.approvalId;
  sim.approve("t2");
  assert.equal(sim.task("t2").status, "integrating");
  const again = sim.approve("t2", { approvalId, patchDigest: "sha256:patch1", expiresAt: 1e12 });
  assert.deepEqual(kinds(again), ["log"]);
  const rec = again[0]!;
  assert.ok(rec.kind === "append_log" && rec.record.reason === "approval_reused");
  record(sim);
});

Deno.test("approval bound to task, patch and expiry", () => {
  const sim = new Sim();
  sim.toVerified("t1");
  sim.toVerified("t2");
  const forT1 = sim.task("t1").approval!;
  // t1's approval presented for t2
  const cross = sim.approve("t2", { approvalId: forT1.approvalId });
  assert.deepEqual(kinds(cross), ["log"]);
  assert.equal(sim.task("t2").status, "verified");
  // wrong patch digest
  const wrongPatch = sim.approve("t1", { patchDigest: "sha256:other" });
  assert.deepEqual(kinds(wrongPatch), ["log"]);
  assert.equal(sim.task("t1").status, "verified");
  // expired (the event's own expiry is in the past)
  const expired = sim.approve("t1", { expiresAt: sim.at - 1 });
  assert.deepEqual(kinds(expired), ["log", "request_approval", "notify"]);
  assert.notEqual(sim.task("t1").approval!.approvalId, forT1.approvalId);
  // the old id is no longer accepted
  const old = sim.approve("t1", { approvalId: forT1.approvalId });
  assert.deepEqual(kinds(old), ["log"]);
  // expiry of the request itself, through time passing
  const ttl = defaultPolicy().approvalTtlMs;
  const late = sim.approve("t2", {}, ttl + 1);
  assert.ok(!kinds(late).includes("integrate"));
  assert.equal(sim.task("t2").status, "verified");
  // and a timer tick re-requests an expired approval
  const ticked = sim.send({ kind: "timer_tick", taskId: "t1" }, ttl + 1);
  assert.deepEqual(kinds(ticked), ["log", "request_approval", "notify"]);
});

Deno.test("kill from every live status cleans up and absorbs later events", () => {
  const reach: Record<string, (sim: Sim) => void> = {
    submitted: (s) => s.submit("t"),
    worktree_ready: (s) => (s.submit("t"), s.worktreeReady("t")),
    backend_running: (s) => (s.submit("t"), s.worktreeReady("t"), s.backendStarted("t")),
    extracting: (s) => (s.submit("t"), s.worktreeReady("t"), s.backendFinished("t")),
    patch_proposed: (s) => (reach.extracting!(s), s.patch("t")),
    scope_checked: (s) => (reach.patch_proposed!(s), s.scope("t")),
    verifying: (s) => (reach.scope_checked!(s), s.baseline("t")),
    verified: (s) => void s.toVerified("t"),
    integrating: (s) => (s.toVerified("t"), s.approve("t")),
    paused: (s) => (s.submit("t"), s.send({ kind: "timer_tick", taskId: "t" }, 2_000_000)),
  };
  for (const [status, go] of Object.entries(reach)) {
    const sim = new Sim();
    go(sim);
    assert.equal(sim.task("t").status, status);
    const running = sim.task("t").pending !== null;
    const actions = sim.send({ kind: "kill_requested", taskId: "t", by: "bob" });
    assert.equal(sim.task("t").status, "killed");
    const cleanup = actions.find((a) => a.kind === "cleanup");
    if (status === "submitted" || status === "paused" && sim.task("t").worktree === null) {
      assert.equal(cleanup === undefined || cleanup.cancelRunning === running, true);
    } else {
      assert.ok(cleanup !== undefined && cleanup.cancelRunning === running, status);
    }
    const after = sim.send({ kind: "kill_requested", taskId: "t", by: "bob" });
    assert.deepEqual(kinds(after), ["log"]);
    record(sim);
  }
});

Deno.test("budget: wall time pauses on a tick in every work status and resume re-issues the work", () => {
  const reach: Record<string, (sim: Sim) => void> = {
    submitted: (s) => s.submit("t"),
    worktree_ready: (s) => (s.submit("t"), s.worktreeReady("t")),
    backend_running: (s) => (s.submit("t"), s.worktreeReady("t"), s.backendStarted("t")),
    extracting: (s) => (s.submit("t"), s.worktreeReady("t"), s.backendFinished("t")),
    patch_proposed: (s) => (reach.extracting!(s), s.patch("t")),
    scope_checked: (s) => (reach.patch_proposed!(s), s.scope("t")),
    verifying: (s) => (reach.scope_checked!(s), s.baseline("t")),
  };
  const entryKind: Record<string, string> = {
    submitted: "create_worktree",
    worktree_ready: "run_backend",
    backend_running: "run_backend",
    extracting: "extract_diff",
    patch_proposed: "check_scope",
    scope_checked: "run_contract",
    verifying: "run_contract",
  };
  for (const [status, go] of Object.entries(reach)) {
    const sim = new Sim();
    go(sim);
    const inFlight = sim.effect("t");
    const paused = sim.send({ kind: "timer_tick", taskId: "t" }, BIG_BUDGET.wallTimeMs + 1);
    assert.equal(sim.task("t").status, "paused", status);
    assert.equal(sim.task("t").reason, "budget_wall_time");
    const cancel = only(paused, "cancel_effect");
    assert.equal(cancel.effectId, inFlight);
    // the late result of the cancelled effect is stale
    const late = sim.send({ kind: "backend_started", taskId: "t", effectId: inFlight });
    assert.deepEqual(kinds(late), ["log"]);
    assert.equal(sim.task("t").status, "paused");
    const still = sim.send({
      kind: "budget_extended",
      taskId: "t",
      add: { wallTimeMs: 0, repairRounds: 0, outputBytes: 0, costUnits: 0 },
    });
    assert.deepEqual(kinds(still), ["log"]);
    const resumed = sim.send({
      kind: "budget_extended",
      taskId: "t",
      add: { wallTimeMs: 10_000_000, repairRounds: 0, outputBytes: 0, costUnits: 0 },
    });
    assert.deepEqual(kinds(resumed), ["log", entryKind[status]!], status);
    assert.equal(sim.task("t").status, status === "backend_running" ? "worktree_ready" : status);
    record(sim);
  }
});

Deno.test("budget: repair rounds, output bytes and cost units pause on entry", () => {
  const sim = new Sim();
  sim.submit("t1", { ...BIG_BUDGET, repairRounds: 0 });
  sim.worktreeReady("t1");
  sim.backendFinished("t1");
  sim.patch("t1");
  sim.scope("t1");
  sim.baseline("t1");
  const paused = sim.verify("t1", false);
  assert.deepEqual(transitionsOf(paused), [
    "verifying>verification_fail>worktree_ready",
    "worktree_ready>budget_exhausted>paused",
  ]);
  assert.equal(sim.task("t1").reason, "budget_repair_rounds");
  assert.ok(!kinds(paused).includes("run_backend"));
  const resumed = sim.send({
    kind: "budget_extended",
    taskId: "t1",
    add: { wallTimeMs: 0, repairRounds: 1, outputBytes: 0, costUnits: 0 },
  });
  assert.equal(only(resumed, "run_backend").round, 1);

  sim.submit("t2", { ...BIG_BUDGET, outputBytes: 50 });
  sim.worktreeReady("t2");
  sim.backendFinished("t2", "ok", 51);
  assert.equal(sim.task("t2").status, "paused");
  assert.equal(sim.task("t2").reason, "budget_output_bytes");
  assert.equal(sim.task("t2").resumeTo, "extracting");

  sim.submit("t3", { ...BIG_BUDGET, costUnits: 5 });
  sim.worktreeReady("t3");
  sim.backendFinished("t3", "ok", 1, 6);
  assert.equal(sim.task("t3").reason, "budget_cost_units");

  // paused on entry of patch_proposed / scope_checked / verifying (time ran out in between)
  const late = (s: Sim) => void (s.at += 1_000);
  for (
    const [n, go] of [
      ["t4", (s: Sim) => (late(s), s.patch("t4"))],
      ["t5", (s: Sim) => (s.patch("t5"), late(s), s.scope("t5"))],
      ["t6", (s: Sim) => (s.patch("t6"), s.scope("t6"), late(s), s.baseline("t6"))],
    ] as const
  ) {
    sim.submit(n, { ...BIG_BUDGET, wallTimeMs: 500 });
    sim.worktreeReady(n);
    sim.backendFinished(n);
    go(sim);
    assert.equal(sim.task(n).status, "paused", n);
    assert.equal(sim.task(n).reason, "budget_wall_time");
  }
  record(sim);
});

Deno.test("a non-paused task just records a budget extension", () => {
  const sim = new Sim();
  sim.submit("t1");
  const actions = sim.send({
    kind: "budget_extended",
    taskId: "t1",
    add: { wallTimeMs: 5, repairRounds: 1, outputBytes: 0, costUnits: 0 },
  });
  assert.deepEqual(kinds(actions), ["log"]);
  assert.equal(sim.task("t1").budget.repairRounds, BIG_BUDGET.repairRounds + 1);
  assert.equal(sim.task("t1").deadlineAt, sim.task("t1").submittedAt + BIG_BUDGET.wallTimeMs + 5);
});

Deno.test("contradictory results fail the task in every waiting status", () => {
  const reach: Record<string, (sim: Sim) => void> = {
    submitted: (s) => s.submit("t"),
    worktree_ready: (s) => (s.submit("t"), s.worktreeReady("t")),
    backend_running: (s) => (s.submit("t"), s.worktreeReady("t"), s.backendStarted("t")),
    extracting: (s) => (s.submit("t"), s.worktreeReady("t"), s.backendFinished("t")),
    patch_proposed: (s) => (reach.extracting!(s), s.patch("t")),
    scope_checked: (s) => (reach.patch_proposed!(s), s.scope("t")),
    verifying: (s) => (reach.scope_checked!(s), s.baseline("t")),
    integrating: (s) => (s.toVerified("t"), s.approve("t")),
  };
  for (const [status, go] of Object.entries(reach)) {
    const sim = new Sim();
    go(sim);
    // a cleanup_done naming the in-flight effect contradicts it in every status
    const actions = sim.send({ kind: "cleanup_done", taskId: "t", effectId: sim.effect("t") });
    assert.equal(sim.task("t").status, "failed", status);
    assert.equal(sim.task("t").reason, "contradictory_event");
    assert.ok(kinds(actions).includes("cleanup"));
    record(sim);
  }
  // a second backend_started, and a verification for the wrong round
  const sim = new Sim();
  sim.submit("a");
  sim.worktreeReady("a");
  sim.backendStarted("a");
  sim.backendStarted("a");
  assert.equal(sim.task("a").reason, "contradictory_event");
  reach.verifying!(sim);
  sim.verify("t", true, 7);
  assert.equal(sim.task("t").status, "failed");
});

Deno.test("stale results, unknown tasks and duplicate submissions are audited, not applied", () => {
  const sim = new Sim();
  sim.submit("t1");
  const first = sim.effect("t1");
  sim.worktreeReady("t1");
  const stale = sim.send({ kind: "worktree_ready", taskId: "t1", effectId: first, path: "/x" });
  assert.deepEqual(kinds(stale), ["log"]);
  assert.equal(sim.task("t1").status, "worktree_ready");
  const unknown = sim.send({ kind: "timer_tick", taskId: "nobody" });
  assert.deepEqual(kinds(unknown), ["log"]);
  const dup = sim.submit("t1");
  assert.deepEqual(kinds(dup), ["log"]);
  const bad = sim.submit("__proto__");
  assert.deepEqual(kinds(bad), ["log"]);
  assert.equal(Object.getPrototypeOf(sim.state.tasks), Object.prototype);
  assert.equal(sim.submit("").length, 1);
});

Deno.test("redelivery of an applied event changes nothing and emits nothing", () => {
  const sim = new Sim();
  sim.submit("t1");
  sim.worktreeReady("t1");
  const before = JSON.stringify(sim.state);
  for (const { event } of sim.steps) {
    const again = sim.state;
    const result = step2(again, event);
    assert.deepEqual(result, []);
  }
  assert.equal(JSON.stringify(sim.state), before);
});

function step2(state: Sim["state"], event: Sim["steps"][number]["event"]): KernelAction[] {
  return step(state, event).actions;
}

Deno.test("every row of the transition table is exercised by these examples", () => {
  const rows = TRANSITIONS.map((r) => `${r.from ?? "null"}>${r.on}>${r.to}`);
  const missing = rows.filter((r) => !seen.has(r));
  assert.deepEqual(missing, []);
  for (const t of seen) {
    const [from, on, to] = t.split(">");
    assert.ok(
      isTransition(from === "null" ? null : from as never, on as never, to as never),
      `not a row: ${t}`,
    );
  }
  assert.equal(WORK_STATUSES.length, 6);
});

Deno.test("inherited object members are never mistaken for tasks", () => {
  const sim = new Sim();
  for (const id of ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"]) {
    const actions = sim.send({ kind: "kill_requested", taskId: id, by: "mallory" });
    assert.deepEqual(kinds(actions), ["log"], id);
    const rec = actions[0]!;
    assert.ok(rec.kind === "append_log" && rec.record.reason === "unknown_task");
  }
  // "constructor" is a fine task id of its own
  assert.deepEqual(kinds(sim.submit("constructor")), ["log", "create_worktree"]);
  sim.worktreeReady("constructor");
  assert.equal(sim.task("constructor").status, "worktree_ready");
});
