/**
 * The final state and exit code of every way a task can stop, reached through
 * the real kernel (events in, `taskOutcome` of the record out, the CLI's
 * `RUN_EXIT_CODES`). The expected values are written out here, not read from
 * the table under test: changing e.g. `backend_cancelled` from exit 4 to exit
 * 1 breaks this test.
 */
import assert from "node:assert/strict";
import { defaultPolicy, STOP_REASONS, taskOutcome } from "../../../kernel/lifecycle/mod.ts";
import { RUN_EXIT_CODES } from "../../../adapters/driver/outcome.ts";
import { BIG_BUDGET, Sim } from "../../kernel/lifecycle/harness.ts";

const kill = (s: Sim) => void s.send({ kind: "kill_requested", taskId: "t", by: "driver" });
const toBackend = (s: Sim, budget = BIG_BUDGET) => {
  s.submit("t", budget);
  s.worktreeReady("t");
  s.baseline("t");
};
const toVerifying = (s: Sim, budget = BIG_BUDGET) => {
  toBackend(s, budget);
  s.backendFinished("t");
  s.patch("t");
  s.scope("t");
};

/** How to reach each stop reason, and the state and exit code it must end in. */
const CASES: Record<string, { go: (s: Sim) => void; state: string; exit: number }> = {
  integrated: {
    go: (s) => (s.toMinted("t"), s.approve("t"), s.integrated("t", true)),
    state: "verified",
    exit: 0,
  },
  verified_not_integrated: {
    go: (s) => void s.toMinted("t", { ...defaultPolicy(), profile: "readonly" }),
    state: "verified",
    exit: 0,
  },
  scope_violation: {
    go: (
      s,
    ) => (toBackend(s),
      s.backendFinished("t"),
      s.patch("t"),
      s.scope("t", "reject", [], ["forbidden"])),
    state: "rejected",
    exit: 1,
  },
  policy_denied: {
    go: (
      s,
    ) => (toBackend(s), s.backendFinished("t"), s.patch("t"), s.scope("t", "accept", ["secrets"])),
    state: "rejected",
    exit: 1,
  },
  approval_denied: { go: (s) => (s.toMinted("t"), s.deny("t")), state: "rejected", exit: 1 },
  contract_unusable: {
    go: (
      s,
    ) => (s.submit("t"), s.worktreeReady("t"), s.baseline("t", true, ["baseline_gates_nothing"])),
    state: "rejected",
    exit: 1,
  },
  integrate_failed: {
    go: (s) => (s.toMinted("t"), s.approve("t"), s.integrated("t", false)),
    state: "rejected",
    exit: 1,
  },
  budget_repair_rounds: {
    go: (s) => (toVerifying(s, { ...BIG_BUDGET, repairRounds: 0 }), s.verify("t", false), kill(s)),
    state: "rejected",
    exit: 1,
  },
  budget_wall_time: {
    go: (
      s,
    ) => (toBackend(s),
      s.send({ kind: "timer_tick", taskId: "t" }, BIG_BUDGET.wallTimeMs + 1),
      kill(s)),
    state: "budget_exhausted",
    exit: 3,
  },
  budget_output_bytes: {
    go: (
      s,
    ) => (toBackend(s, { ...BIG_BUDGET, outputBytes: 10 }),
      s.backendFinished("t", "ok", 11),
      kill(s)),
    state: "budget_exhausted",
    exit: 3,
  },
  budget_cost_units: {
    go: (
      s,
    ) => (toBackend(s, { ...BIG_BUDGET, costUnits: 1 }),
      s.backendFinished("t", "ok", 1, 2),
      kill(s)),
    state: "budget_exhausted",
    exit: 3,
  },
  backend_failed: {
    // Every round (here the only one) was the backend's own failure: a timeout.
    go: (
      s,
    ) => (toBackend(s, { ...BIG_BUDGET, repairRounds: 0 }),
      s.backendFinished("t", "timed_out"),
      kill(s)),
    state: "backend_failed",
    exit: 4,
  },
  backend_unavailable: {
    go: (s) => (s.submitStarting("t"), s.worktreeReady("t"), s.backendReady("t", false)),
    state: "backend_failed",
    exit: 4,
  },
  backend_cancelled: {
    go: (s) => (toBackend(s), s.backendFinished("t", "cancelled")),
    state: "backend_failed",
    exit: 4,
  },
  worktree_failed: {
    go: (
      s,
    ) => (s.submit("t"),
      s.send({ kind: "worktree_failed", taskId: "t", effectId: s.effect("t"), error: "disk" })),
    state: "could_not_run",
    exit: 5,
  },
  baseline_unavailable: {
    go: (s) => (s.submit("t"), s.worktreeReady("t"), s.baseline("t", false)),
    state: "could_not_run",
    exit: 5,
  },
  effect_failed: {
    go: (s) => (toBackend(s), s.backendFinished("t"), s.effectFailed("t", "extract_failed")),
    state: "could_not_run",
    exit: 5,
  },
  contradictory_event: {
    go: (s) => (toVerifying(s), s.verify("t", true, 9)),
    state: "could_not_run",
    exit: 5,
  },
  killed: { go: (s) => (toBackend(s), s.backendStarted("t"), kill(s)), state: "killed", exit: 130 },
};

Deno.test("every stop reason ends in its final state and exit code", () => {
  assert.deepEqual(
    Object.keys(CASES).sort(),
    [...STOP_REASONS].sort(),
    "a stop reason has no case",
  );
  for (const [reason, c] of Object.entries(CASES)) {
    const sim = new Sim();
    c.go(sim);
    const outcome = taskOutcome(sim.task("t"));
    assert.ok(outcome !== null, `${reason}: the task is still live (${sim.task("t").status})`);
    assert.deepEqual(outcome, { state: c.state, reason }, reason);
    assert.equal(RUN_EXIT_CODES[outcome.state], c.exit, reason);
  }
});

Deno.test("out of repair rounds is a rejection unless every round was the backend's fault", () => {
  // Round 1 times out (a backend fault), round 2 is judged and fails: vouch's verdict, exit 1.
  const sim = new Sim();
  toBackend(sim, { ...BIG_BUDGET, repairRounds: 1 });
  sim.backendFinished("t", "timed_out");
  sim.backendFinished("t");
  sim.patch("t");
  sim.scope("t");
  sim.verify("t", false);
  kill(sim);
  assert.deepEqual(taskOutcome(sim.task("t")), {
    state: "rejected",
    reason: "budget_repair_rounds",
  });
  // A fatal report: the task fails at once as the backend's failure, exit 4.
  const fatal = new Sim();
  toBackend(fatal);
  fatal.backendFinished("t", "error", 1, 1, true);
  fatal.patch("t", "sha256:empty", 0);
  assert.deepEqual(taskOutcome(fatal.task("t")), {
    state: "backend_failed",
    reason: "backend_failed",
  });
});

Deno.test("a live task has no final state; a paused one ends with its budget", () => {
  const sim = new Sim();
  toBackend(sim);
  assert.equal(taskOutcome(sim.task("t")), null);
  sim.send({ kind: "timer_tick", taskId: "t" }, BIG_BUDGET.wallTimeMs + 1);
  assert.deepEqual(taskOutcome(sim.task("t")), {
    state: "budget_exhausted",
    reason: "budget_wall_time",
  });
});
