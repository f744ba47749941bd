/**
 * Example tests: one or more per row of the lifecycle table. The last tests
 * check that every row of `TRANSITIONS` was exercised here and that every
 * recorded transition is a row.
 */
import assert from "node:assert/strict";
import {
  defaultPolicy,
  type KernelAction,
  NEW_TASK,
  type PolicySnapshot,
  step,
  taskOutcome,
  transitionRows,
  TRANSITIONS,
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

/** Ways to bring task "t" into each non-terminal status. */
const REACH: Record<string, (sim: Sim) => void> = {
  submitted: (s) => s.submit("t"),
  starting_backend: (s) => (s.submitStarting("t"), s.worktreeReady("t")),
  baselining: (s) => (s.submit("t"), s.worktreeReady("t")),
  worktree_ready: (s) => (REACH.baselining!(s), s.baseline("t")),
  backend_running: (s) => (REACH.worktree_ready!(s), s.backendStarted("t")),
  extracting: (s) => (REACH.worktree_ready!(s), s.backendFinished("t")),
  patch_proposed: (s) => (REACH.extracting!(s), s.patch("t")),
  verifying: (s) => (REACH.patch_proposed!(s), s.scope("t")),
  verified: (s) => void s.toVerified("t"),
  awaiting_approval: (s) => void s.toMinted("t"),
  integrating: (s) => (s.toMinted("t"), s.approve("t")),
  paused: (s) => (s.submit("t"), s.send({ kind: "timer_tick", taskId: "t" }, 2_000_000)),
};

Deno.test("happy path: submit -> worktree -> baseline -> backend -> ... -> minted -> approval -> completed", () => {
  const sim = new Sim();
  assert.deepEqual(kinds(sim.submit("t1")), ["log", "create_worktree"]);
  assert.equal(sim.task("t1").status, "submitted");
  const baseline = only(sim.worktreeReady("t1"), "run_contract");
  assert.equal(baseline.phase, "baseline");
  assert.equal(baseline.patchDigest, null);
  assert.equal(sim.task("t1").status, "baselining");
  const run = only(sim.baseline("t1"), "run_backend");
  assert.equal(run.round, 0);
  assert.equal(run.worktree, "/wt/t1");
  assert.equal(run.feedback.reason, null);
  assert.deepEqual(run.feedback.baselineFailing, ["unit"]);
  assert.equal(sim.task("t1").status, "worktree_ready");
  assert.deepEqual(kinds(sim.backendStarted("t1")), ["log"]);
  assert.equal(sim.task("t1").status, "backend_running");
  only(sim.backendFinished("t1"), "extract_diff");
  assert.equal(sim.task("t1").status, "extracting");
  assert.equal(only(sim.patch("t1"), "check_scope").patchDigest, "sha256:patch1");
  assert.equal(sim.task("t1").status, "patch_proposed");
  const round = only(sim.scope("t1"), "run_contract");
  assert.equal(round.phase, "round");
  assert.equal(round.patchDigest, "sha256:patch1");
  assert.equal(sim.task("t1").status, "verifying");
  const verified = sim.verify("t1", true);
  assert.deepEqual(kinds(verified), ["log", "mint_verified_patch"]);
  const mint = only(verified, "mint_verified_patch");
  assert.equal(mint.patchDigest, "sha256:patch1");
  assert.equal(mint.round, 0);
  assert.equal(sim.task("t1").status, "verified");
  const minted = sim.mint("t1");
  assert.deepEqual(kinds(minted), ["log", "request_approval", "notify"]);
  const request = only(minted, "request_approval");
  assert.deepEqual(request.reasons, ["irreversible", "profile:supervised"]);
  assert.equal(sim.task("t1").status, "awaiting_approval");
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
  // Compaction: the finished task left the state.
  assert.equal(Object.hasOwn(sim.state.tasks, "t1"), false);
  assert.equal(sim.state.finished, 1);
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

Deno.test("the baseline runs before any backend round: unavailable fails, unusable rejects", () => {
  const sim = new Sim();
  sim.submit("t1");
  sim.worktreeReady("t1");
  const failed = sim.baseline("t1", false);
  assert.ok(!kinds(failed).includes("run_backend"));
  assert.equal(sim.task("t1").status, "failed");
  assert.equal(sim.task("t1").reason, "baseline_unavailable");
  sim.submit("t2");
  sim.worktreeReady("t2");
  const rejected = sim.baseline("t2", true, ["baseline-gates-nothing"]);
  assert.deepEqual(kinds(rejected), ["log", "cleanup", "notify"]);
  assert.equal(sim.task("t2").status, "rejected");
  assert.equal(sim.task("t2").reason, "contract_unusable");
  record(sim);
});

Deno.test("backend finished without a start event still proceeds", () => {
  const sim = new Sim();
  REACH.worktree_ready!(sim);
  only(sim.backendFinished("t"), "extract_diff");
  assert.equal(sim.task("t").status, "extracting");
  record(sim);
});

Deno.test("a timeout spends a repair round without extraction (from both waiting statuses)", () => {
  const sim = new Sim();
  REACH.worktree_ready!(sim);
  const retry = only(sim.backendFinished("t", "timed_out"), "run_backend");
  assert.equal(retry.round, 1);
  assert.equal(retry.feedback.reason, "backend_failed");
  sim.backendStarted("t");
  const retry2 = only(sim.backendFinished("t", "timed_out"), "run_backend");
  assert.equal(retry2.round, 2);
  assert.equal(sim.task("t").claimedOutcome, "timed_out");
  assert.equal(sim.task("t").backendFaults, 2);
  record(sim);
});

Deno.test("a reported failure is a claim: the real diff is extracted and can verify", () => {
  const sim = new Sim();
  REACH.backend_running!(sim);
  const finished = sim.backendFinished("t", "error");
  const extract = only(finished, "extract_diff");
  assert.equal(extract.worktree, "/wt/t");
  assert.equal(sim.task("t").round, 0, "a failure claim spends no round by itself");
  assert.ok(transitionsOf(finished).includes("backend_running>backend_error>extracting"));
  assert.deepEqual(
    finished.flatMap((a) => a.kind === "append_log" ? [a.record.reason] : []),
    ["backend_reported_error"],
  );
  sim.patch("t");
  sim.scope("t");
  sim.verify("t", true);
  assert.equal(sim.task("t").status, "verified");
  record(sim);
});

Deno.test("a reported failure with an empty diff is a failed round (backend_error_no_change)", () => {
  const sim = new Sim();
  REACH.worktree_ready!(sim);
  only(sim.backendFinished("t", "error"), "extract_diff");
  const retry = only(sim.patch("t", "sha256:empty", 0), "run_backend");
  assert.equal(retry.round, 1);
  assert.equal(retry.feedback.reason, "backend_error_no_change");
  assert.equal(sim.task("t").patchDigest, null);
  assert.equal(sim.task("t").backendFaults, 1);
  only(sim.backendFinished("t", "ok"), "extract_diff");
  assert.equal(
    only(sim.patch("t", "sha256:empty", 0), "run_backend").feedback.reason,
    "empty_patch",
  );
  assert.equal(sim.task("t").backendFaults, 1, "an ok claim with no change is no backend fault");
  record(sim);
});

Deno.test("a fatal backend report ends the task instead of a repair round (every row)", () => {
  // timed out and fatal, without and with a start event
  const a = new Sim();
  REACH.worktree_ready!(a);
  a.backendFinished("t", "timed_out", 1, 1, true);
  assert.equal(a.task("t").status, "failed");
  assert.equal(a.task("t").reason, "backend_failed");
  record(a);
  const b = new Sim();
  REACH.backend_running!(b);
  b.backendFinished("t", "timed_out", 1, 1, true);
  assert.equal(b.task("t").reason, "backend_failed");
  record(b);
  // reported error, fatal, no change
  const c = new Sim();
  REACH.worktree_ready!(c);
  c.backendFinished("t", "error", 1, 1, true);
  c.patch("t", "sha256:empty", 0);
  assert.equal(c.task("t").status, "failed");
  assert.equal(c.task("t").reason, "backend_failed");
  record(c);
  // fatal, but its diff is judged: a failing verification ends the task
  const d = new Sim();
  REACH.worktree_ready!(d);
  d.backendFinished("t", "error", 1, 1, true);
  d.patch("t");
  d.scope("t");
  d.verify("t", false);
  assert.equal(d.task("t").reason, "backend_failed");
  record(d);
  // ... and a passing one verifies
  const e = new Sim();
  REACH.worktree_ready!(e);
  e.backendFinished("t", "error", 1, 1, true);
  e.patch("t");
  e.scope("t");
  e.verify("t", true);
  assert.equal(e.task("t").status, "verified");
});

Deno.test("backend cancelled by someone else fails the task (both waiting statuses)", () => {
  const sim = new Sim();
  REACH.worktree_ready!(sim);
  sim.backendFinished("t", "cancelled");
  assert.equal(sim.task("t").status, "failed");
  assert.equal(sim.task("t").reason, "backend_cancelled");
  const sim2 = new Sim();
  REACH.backend_running!(sim2);
  const actions = sim2.backendFinished("t", "cancelled");
  assert.equal(sim2.task("t").status, "failed");
  assert.ok(kinds(actions).includes("cleanup"));
  record(sim);
  record(sim2);
});

Deno.test("an empty patch starts a repair round", () => {
  const sim = new Sim();
  REACH.extracting!(sim);
  const retry = only(sim.patch("t", "sha256:empty", 0), "run_backend");
  assert.equal(retry.round, 1);
  assert.equal(retry.feedback.reason, "empty_patch");
  assert.equal(sim.task("t").patchDigest, null);
  record(sim);
});

/** A proposed patch in a task with no repair round (its scope verdict is final). */
function proposedWithoutRepair(s: Sim): void {
  s.submit("t", { ...BIG_BUDGET, repairRounds: 0 });
  s.worktreeReady("t");
  s.baseline("t");
  s.backendFinished("t");
  s.patch("t");
}

Deno.test("a scope violation with a repair round left is fed back into the next round", () => {
  const sim = new Sim();
  REACH.patch_proposed!(sim);
  const retry = only(sim.scope("t", "reject", [], ["forbidden:.github/ci.yml"]), "run_backend");
  assert.equal(sim.task("t").status, "worktree_ready");
  assert.equal(retry.round, 1);
  assert.equal(retry.feedback.reason, "scope_violation");
  record(sim);
  // A write outside the worktree (or any non-path-rule violation) ends the task at once.
  for (const v of ["outside_worktree_write:/home/u/x", "symlink_then_write:a", "forbidden"]) {
    const hard = new Sim();
    REACH.patch_proposed!(hard);
    hard.scope("t", "reject", [], ["forbidden:.github/ci.yml", v]);
    assert.equal(hard.task("t").status, "rejected", v);
    assert.equal(hard.task("t").reason, "scope_violation");
  }
});

Deno.test("scope reject (no repair round left) and denied sensitive classes reject the task", () => {
  const sim = new Sim();
  proposedWithoutRepair(sim);
  const rejected = sim.scope("t", "reject", [], ["path_outside_scope"]);
  assert.equal(sim.task("t").status, "rejected");
  assert.equal(sim.task("t").reason, "scope_violation");
  assert.deepEqual(sim.task("t").violations, ["path_outside_scope"]);
  assert.deepEqual(kinds(rejected), ["log", "cleanup", "notify"]);
  assert.equal(only(rejected, "cleanup").cancelRunning, false, "the scope check was answered");
  record(sim);
  const sim2 = new Sim();
  proposedWithoutRepair(sim2);
  sim2.scope("t", "accept", ["secrets"]);
  assert.equal(sim2.task("t").status, "rejected");
  assert.equal(sim2.task("t").reason, "policy_denied");
  record(sim2);
  // An "accept" verdict that still lists violations is not an accept.
  const sim3 = new Sim();
  proposedWithoutRepair(sim3);
  sim3.scope("t", "accept", [], ["escape"]);
  assert.equal(sim3.task("t").status, "rejected");
});

Deno.test("failed verification feeds the failing checks into the next round", () => {
  const sim = new Sim();
  REACH.verifying!(sim);
  const repair = only(sim.verify("t", false), "run_backend");
  assert.equal(repair.round, 1);
  assert.deepEqual(repair.feedback.failingChecks, ["unit"]);
  assert.deepEqual(repair.feedback.baselineFailing, ["unit"]);
  assert.equal(repair.feedback.reason, "verification_failed");
  sim.backendFinished("t");
  sim.patch("t", "sha256:patch2");
  const contract = only(sim.scope("t"), "run_contract");
  assert.equal(contract.phase, "round");
  assert.equal(contract.round, 1);
  only(sim.verify("t", true), "mint_verified_patch");
  assert.equal(sim.task("t").status, "verified");
  record(sim);
});

Deno.test("inconclusive checks, passes without receipts and empty check lists never pass", () => {
  const sim = new Sim();
  REACH.verifying!(sim);
  const verdict = (
    round: number,
    checks: { id: string; outcome: "pass" | "inconclusive"; receipts: string[] }[],
  ) =>
    sim.send({
      kind: "verification_result",
      setupReceipts: [],
      taskId: "t",
      effectId: sim.effect("t"),
      round,
      checks,
    });
  verdict(0, [{ id: "unit", outcome: "inconclusive", receipts: ["sha256:r"] }]);
  assert.equal(sim.task("t").status, "worktree_ready");
  assert.deepEqual(sim.task("t").failingChecks, ["unit"]);
  sim.backendFinished("t");
  sim.patch("t");
  sim.scope("t");
  verdict(1, [{ id: "unit", outcome: "pass", receipts: [] }]);
  assert.equal(
    sim.task("t").status,
    "worktree_ready",
    "a pass that names no receipt proves nothing",
  );
  assert.deepEqual(sim.task("t").failingChecks, ["unit"]);
  sim.backendFinished("t");
  sim.patch("t");
  sim.scope("t");
  verdict(2, []);
  assert.equal(sim.task("t").status, "worktree_ready");
});

Deno.test("policy: full profile with reversible integrate integrates without a human", () => {
  const sim = new Sim();
  sim.toVerified("t1", fullReversible());
  const actions = sim.mint("t1");
  assert.deepEqual(transitionsOf(actions), ["verified>policy_allow>integrating"]);
  const integrate = only(actions, "integrate");
  assert.equal(integrate.token.approvalId, null);
  sim.integrated("t1", false);
  assert.equal(sim.task("t1").status, "failed");
  assert.equal(sim.task("t1").reason, "integrate_failed");
  record(sim);
});

Deno.test("policy: full profile still asks a human for an irreversible integrate or a sensitive file", () => {
  const sim = new Sim();
  only(sim.toMinted("t1", { ...defaultPolicy(), profile: "full" }), "request_approval");
  const sim2 = new Sim();
  sim2.submit("t2", BIG_BUDGET, fullReversible());
  sim2.worktreeReady("t2");
  sim2.baseline("t2");
  sim2.backendFinished("t2");
  sim2.patch("t2");
  sim2.scope("t2", "accept", ["lockfile"]);
  sim2.verify("t2", true);
  const request = only(sim2.mint("t2"), "request_approval");
  assert.deepEqual(request.reasons, ["sensitive:lockfile"]);
  assert.deepEqual(request.sensitive, ["lockfile"]);
});

Deno.test("policy: readonly profile completes with the verified patch and never integrates", () => {
  const sim = new Sim();
  const actions = sim.toMinted("t1", { ...defaultPolicy(), profile: "readonly" });
  assert.equal(sim.task("t1").status, "completed");
  assert.equal(sim.task("t1").reason, "verified_not_integrated");
  assert.ok(!kinds(actions).includes("integrate"));
  assert.ok(kinds(actions).includes("cleanup"));
  record(sim);
});

Deno.test("a mint for another patch contradicts the verified one", () => {
  const sim = new Sim();
  sim.toVerified("t1");
  sim.mint("t1", "sha256:other");
  assert.equal(sim.task("t1").status, "failed");
  assert.equal(sim.task("t1").reason, "contradictory_event");
});

Deno.test("approval denied rejects; a second use of the same approval is refused", () => {
  const sim = new Sim();
  sim.toMinted("t1");
  const denied = sim.deny("t1");
  assert.equal(sim.task("t1").status, "rejected");
  assert.ok(kinds(denied).includes("cleanup"));
  sim.toMinted("t2");
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
  sim.toMinted("t1");
  sim.toMinted("t2");
  const forT1 = sim.task("t1").approval!;
  const cross = sim.approve("t2", { approvalId: forT1.approvalId });
  assert.deepEqual(kinds(cross), ["log"]);
  assert.equal(sim.task("t2").status, "awaiting_approval");
  const wrongPatch = sim.approve("t1", { patchDigest: "sha256:other" });
  assert.deepEqual(kinds(wrongPatch), ["log"]);
  // expired (the event's own expiry is in the past): a fresh request
  const expired = sim.approve("t1", { expiresAt: sim.at - 1 });
  assert.deepEqual(transitionsOf(expired), [
    "awaiting_approval>approval_expired>awaiting_approval",
  ]);
  assert.deepEqual(kinds(expired), ["log", "request_approval", "notify"]);
  assert.deepEqual(only(expired, "request_approval").reasons, ["approval_expired"]);
  assert.notEqual(sim.task("t1").approval!.approvalId, forT1.approvalId);
  const old = sim.approve("t1", { approvalId: forT1.approvalId });
  assert.deepEqual(kinds(old), ["log"]);
  const ttl = defaultPolicy().approvalTtlMs;
  const late = sim.approve("t2", {}, ttl + 1);
  assert.ok(!kinds(late).includes("integrate"));
  assert.equal(sim.task("t2").status, "awaiting_approval");
  const ticked = sim.send({ kind: "timer_tick", taskId: "t1" }, ttl + 1);
  assert.deepEqual(kinds(ticked), ["log", "request_approval", "notify"]);
  record(sim);
});

Deno.test("kill from every live status cleans up and absorbs later events", () => {
  for (const [status, go] of Object.entries(REACH)) {
    const sim = new Sim();
    go(sim);
    assert.equal(sim.task("t").status, status);
    const running = sim.task("t").pending !== null;
    const hasWorktree = sim.task("t").worktree !== null;
    const actions = sim.send({ kind: "kill_requested", taskId: "t", by: "bob" });
    assert.equal(sim.task("t").status, "killed");
    assert.equal(sim.task("t").reason, "killed");
    const cleanup = actions.find((a) => a.kind === "cleanup");
    if (running || hasWorktree) {
      assert.ok(cleanup !== undefined && cleanup.cancelRunning === running, status);
    } else {
      assert.equal(cleanup, undefined, status);
    }
    const after = sim.send({ kind: "kill_requested", taskId: "t", by: "bob" });
    assert.deepEqual(kinds(after), ["log"]);
    record(sim);
  }
});

Deno.test("effect_failed fails the task from every status waiting on an effect", () => {
  for (
    const status of [
      "submitted",
      "starting_backend",
      "baselining",
      "worktree_ready",
      "backend_running",
      "extracting",
      "patch_proposed",
      "verifying",
      "verified",
      "integrating",
    ]
  ) {
    const sim = new Sim();
    REACH[status]!(sim);
    sim.effectFailed("t");
    assert.equal(sim.task("t").status, "failed", status);
    assert.equal(sim.task("t").reason, "effect_failed");
    record(sim);
  }
});

Deno.test("budget: wall time pauses on a tick in every work status and resume re-issues the work", () => {
  const entryKind: Record<string, string> = {
    submitted: "create_worktree",
    starting_backend: "start_backend",
    baselining: "run_contract",
    worktree_ready: "run_backend",
    backend_running: "run_backend",
    extracting: "extract_diff",
    patch_proposed: "check_scope",
    verifying: "run_contract",
  };
  for (const [status, entry] of Object.entries(entryKind)) {
    const sim = new Sim();
    REACH[status]!(sim);
    const inFlight = sim.effect("t");
    const paused = sim.send({ kind: "timer_tick", taskId: "t" }, BIG_BUDGET.wallTimeMs + 1);
    assert.equal(sim.task("t").status, "paused", status);
    assert.equal(sim.task("t").reason, "budget_wall_time");
    assert.equal(only(paused, "cancel_effect").effectId, inFlight);
    const late = sim.send({ kind: "backend_started", taskId: "t", effectId: inFlight });
    assert.deepEqual(kinds(late), ["log"]);
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
    assert.deepEqual(kinds(resumed), ["log", entry], status);
    assert.equal(sim.task("t").status, status === "backend_running" ? "worktree_ready" : status);
    assert.equal(sim.task("t").budgetStop, null);
    record(sim);
  }
});

Deno.test("budget: repair rounds, output bytes and cost units pause on entry", () => {
  const sim = new Sim();
  sim.submit("t1", { ...BIG_BUDGET, repairRounds: 0 });
  sim.worktreeReady("t1");
  sim.baseline("t1");
  sim.backendFinished("t1");
  sim.patch("t1");
  sim.scope("t1");
  const paused = sim.verify("t1", false);
  assert.deepEqual(transitionsOf(paused), [
    "verifying>verification_fail>worktree_ready",
    "worktree_ready>budget_exhausted>paused",
  ]);
  assert.equal(sim.task("t1").reason, "budget_repair_rounds");
  assert.equal(sim.task("t1").budgetStop, "budget_repair_rounds");
  assert.ok(!kinds(paused).includes("run_backend"));
  const resumed = sim.send({
    kind: "budget_extended",
    taskId: "t1",
    add: { wallTimeMs: 0, repairRounds: 1, outputBytes: 0, costUnits: 0 },
  });
  assert.equal(only(resumed, "run_backend").round, 1);

  sim.submit("t2", { ...BIG_BUDGET, outputBytes: 50 });
  sim.worktreeReady("t2");
  sim.baseline("t2");
  sim.backendFinished("t2", "ok", 51);
  assert.equal(sim.task("t2").status, "paused");
  assert.equal(sim.task("t2").reason, "budget_output_bytes");
  assert.equal(sim.task("t2").resumeTo, "extracting");

  sim.submit("t3", { ...BIG_BUDGET, costUnits: 5 });
  sim.worktreeReady("t3");
  sim.baseline("t3");
  sim.backendFinished("t3", "ok", 1, 6);
  assert.equal(sim.task("t3").reason, "budget_cost_units");

  // paused on entry of baselining / patch_proposed / verifying (time ran out in between)
  const late = (s: Sim) => void (s.at += 1_000);
  for (
    const [n, go] of [
      ["t4", (s: Sim) => (late(s), s.worktreeReady("t4"))],
      [
        "t5",
        (
          s: Sim,
        ) => (s.worktreeReady("t5"),
          s.baseline("t5"),
          s.backendFinished("t5"),
          late(s),
          s.patch("t5")),
      ],
      [
        "t6",
        (
          s: Sim,
        ) => (s.worktreeReady("t6"),
          s.baseline("t6"),
          s.backendFinished("t6"),
          s.patch("t6"),
          late(s),
          s.scope("t6")),
      ],
    ] as const
  ) {
    sim.submit(n, { ...BIG_BUDGET, wallTimeMs: 500 });
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
  for (
    const status of [
      "submitted",
      "starting_backend",
      "baselining",
      "worktree_ready",
      "backend_running",
      "extracting",
      "patch_proposed",
      "verifying",
      "verified",
      "integrating",
    ]
  ) {
    const sim = new Sim();
    REACH[status]!(sim);
    // a cleanup_done naming the in-flight effect contradicts it in every status
    const actions = sim.send({ kind: "cleanup_done", taskId: "t", effectId: sim.effect("t") });
    assert.equal(sim.task("t").status, "failed", status);
    assert.equal(sim.task("t").reason, "contradictory_event");
    assert.ok(kinds(actions).includes("cleanup"));
    record(sim);
  }
  const sim = new Sim();
  REACH.backend_running!(sim);
  sim.backendStarted("t");
  assert.equal(sim.task("t").reason, "contradictory_event", "a second backend_started");
  const sim2 = new Sim();
  REACH.verifying!(sim2);
  sim2.verify("t", true, 7);
  assert.equal(sim2.task("t").status, "failed", "a verification for another round");
});

Deno.test("stale results, unknown tasks and duplicate submissions are audited, not applied", () => {
  const sim = new Sim();
  sim.submit("t1");
  const first = sim.effect("t1");
  sim.worktreeReady("t1");
  const stale = sim.send({ kind: "worktree_ready", taskId: "t1", effectId: first, path: "/x" });
  assert.deepEqual(kinds(stale), ["log"]);
  assert.equal(sim.task("t1").status, "baselining");
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
  for (const { event } of sim.steps) assert.deepEqual(step(sim.state, event).actions, []);
  assert.equal(JSON.stringify(sim.state), before);
});

Deno.test("inherited object members are never mistaken for tasks", () => {
  const sim = new Sim();
  for (const id of ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"]) {
    const actions = sim.send({ kind: "kill_requested", taskId: id, by: "mallory" });
    assert.deepEqual(kinds(actions), ["log"], id);
    const rec = actions[0]!;
    assert.ok(rec.kind === "append_log" && rec.record.reason === "unknown_task");
  }
  assert.deepEqual(kinds(sim.submit("constructor")), ["log", "create_worktree"]);
  sim.worktreeReady("constructor");
  assert.equal(sim.task("constructor").status, "baselining");
});

Deno.test("a task submitted without a baseline goes from the worktree straight to the backend", () => {
  const sim = new Sim();
  sim.send({
    kind: "task_submitted",
    taskId: "t1",
    goal: "verify a supplied patch",
    baseRev: "base0",
    budget: { ...BIG_BUDGET, repairRounds: 0 },
    contractDigest: "sha256:contract",
    policyDigest: "sha256:policy",
    policy: null,
    baseline: false,
  });
  const run = only(sim.worktreeReady("t1"), "run_backend");
  assert.deepEqual(run.feedback.baselineFailing, []);
  assert.equal(sim.task("t1").status, "worktree_ready");
  record(sim);
});

Deno.test("an agent is started in the worktree before the baseline; one that cannot start fails the task first", () => {
  const sim = new Sim();
  assert.deepEqual(kinds(sim.submitStarting("t")), ["log", "create_worktree"]);
  const start = only(sim.worktreeReady("t"), "start_backend");
  assert.equal(start.worktree, "/wt/t");
  assert.equal(sim.task("t").status, "starting_backend");
  // Nothing of the contract has run yet: the baseline comes only after the agent answered.
  const ready = sim.backendReady("t");
  assert.equal(only(ready, "run_contract").phase, "baseline");
  assert.equal(sim.task("t").status, "baselining");
  assert.equal(sim.task("t").reason, "backend_ready");
  assert.equal(only(sim.baseline("t"), "run_backend").round, 0);
  record(sim);

  const broken = new Sim();
  broken.submitStarting("t");
  broken.worktreeReady("t");
  const failed = broken.backendReady("t", false);
  assert.equal(broken.task("t").status, "failed");
  assert.equal(broken.task("t").reason, "backend_unavailable");
  assert.ok(!kinds(failed).includes("run_contract"), "no baseline after a failed start");
  only(failed, "cleanup");
  assert.deepEqual(taskOutcome(broken.task("t")), {
    state: "backend_failed",
    reason: "backend_unavailable",
  });
  record(broken);

  const noBaseline = new Sim();
  noBaseline.submitStarting("t", false);
  noBaseline.worktreeReady("t");
  only(noBaseline.backendReady("t"), "run_backend");
  assert.equal(noBaseline.task("t").status, "worktree_ready");
  record(noBaseline);
});

Deno.test("every row of the transition table is exercised by these examples, and only rows", () => {
  const key = (from: string | null, on: string, to: string) => `${from ?? NEW_TASK}>${on}>${to}`;
  const rows = transitionRows().map((r) => key(r.from, r.on, r.to));
  const normalized = new Set([...seen].map((t) => t.replace(/^null>/, `${NEW_TASK}>`)));
  assert.deepEqual(rows.filter((r) => !normalized.has(r)), []);
  for (const t of normalized) {
    const [from, on, to] = t.split(">") as [keyof typeof TRANSITIONS, string, string];
    assert.equal(TRANSITIONS[from]?.[on as never]?.["to"], to, `not a row: ${t}`);
  }
});
