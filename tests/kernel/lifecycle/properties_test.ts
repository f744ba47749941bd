/**
 * Property tests over random event streams (see `scenario.ts`): determinism
 * (also across a JSON round trip of the state), absorbing terminal statuses,
 * no irreversible action without a matching approval, bounded fan-out,
 * budget exhaustion pauses, redelivery is a no-op, `step` never throws.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  defaultPolicy,
  ENTRY,
  evaluateGatedEffect,
  initialKernelState,
  isTerminalStatus,
  type KernelState,
  MAX_ACTIONS_PER_STEP,
  replayEvents,
  step,
  TASK_STATUSES,
  type TaskStatus,
} from "../../../kernel/lifecycle/mod.ts";
import { cmdArb, policyArb, runScenario } from "./scenario.ts";

const RUNS = { numRuns: 150 };
const cmdsArb = fc.array(cmdArb, { minLength: 10, maxLength: 150 });
const anyPolicyArb = fc.oneof(fc.constant(defaultPolicy()), policyArb);

Deno.test("property: step never throws and emits at most MAX_ACTIONS_PER_STEP actions", () => {
  let deep = 0;
  fc.assert(
    fc.property(cmdsArb, anyPolicyArb, (cmds, policy) => {
      const sc = runScenario(cmds, policy);
      for (const s of sc.steps) {
        assert.ok(s.actions.length <= MAX_ACTIONS_PER_STEP, `${s.actions.length} actions`);
        for (const a of s.actions) assert.equal(a.v, 1);
      }
      if (sc.steps.some((s) => s.after === "integrating" || s.after === "completed")) deep++;
    }),
    RUNS,
  );
  // The generator must actually reach the end of the lifecycle, or the other
  // properties test little.
  assert.ok(deep >= 5, `only ${deep} runs reached integrating/completed`);
});

Deno.test("property: typical fan-out is at most 4", () => {
  fc.assert(
    fc.property(cmdsArb, anyPolicyArb, (cmds, policy) => {
      for (const s of runScenario(cmds, policy).steps) assert.ok(s.actions.length <= 4);
    }),
    RUNS,
  );
});

Deno.test("property: determinism, including across a JSON round trip of the state", () => {
  fc.assert(
    fc.property(cmdsArb, anyPolicyArb, fc.nat(), (cmds, policy, cutSeed) => {
      const sc = runScenario(cmds, policy);
      const a = replayEvents(sc.events, { policy });
      const b = replayEvents(sc.events, { policy });
      assert.deepEqual(a, b);
      assert.deepEqual(a.state, sc.state);
      assert.deepEqual(
        a.steps.map((s) => s.actions),
        sc.steps.map((s) => s.actions),
      );
      // Serialise mid-stream, continue from the parsed copy.
      const cut = cutSeed % (sc.events.length + 1);
      const head = replayEvents(sc.events.slice(0, cut), { policy });
      const revived = JSON.parse(JSON.stringify(head.state)) as KernelState;
      const tail = replayEvents(sc.events.slice(cut), { from: revived });
      assert.deepEqual(tail.state, a.state);
      assert.deepEqual(
        tail.steps.map((s) => s.actions),
        a.steps.slice(cut).map((s) => s.actions),
      );
      // The final state itself survives a round trip unchanged.
      assert.deepEqual(JSON.parse(JSON.stringify(a.state)), a.state);
    }),
    RUNS,
  );
});

Deno.test("property: terminal statuses absorb every event (at most one audit record)", () => {
  fc.assert(
    fc.property(cmdsArb, anyPolicyArb, (cmds, policy) => {
      for (const s of runScenario(cmds, policy).steps) {
        if (s.before === null || !isTerminalStatus(s.before)) continue;
        assert.equal(s.after, s.before);
        assert.ok(s.actions.length <= 1);
        for (const a of s.actions) assert.equal(a.kind, "append_log");
      }
    }),
    RUNS,
  );
});

Deno.test("property: no integrate without the policy's consent; approvals are bound, unexpired, single use", () => {
  fc.assert(
    fc.property(cmdsArb, anyPolicyArb, (cmds, policy) => {
      const sc = runScenario(cmds, policy);
      const requested = new Map<
        string,
        { taskId: string; patchDigest: string; expiresAt: number }
      >();
      const used = new Set<string>();
      for (const s of sc.steps) {
        for (const a of s.actions) {
          if (a.kind === "request_approval") {
            requested.set(a.approvalId, {
              taskId: a.taskId,
              patchDigest: a.patchDigest,
              expiresAt: a.expiresAt,
            });
          }
          if (a.kind !== "integrate") continue;
          const task = s.task!;
          assert.equal(a.token.taskId, a.taskId);
          assert.equal(a.token.effectId, a.effectId);
          assert.equal(a.token.patchDigest, a.patchDigest);
          assert.equal(a.patchDigest, task.patchDigest);
          const verdict = evaluateGatedEffect(task.policy ?? policy, "integrate", task.sensitive);
          assert.notEqual(verdict.decision, "deny");
          if (verdict.decision === "allow") continue;
          // require_approval: this very event is a human grant matching a request.
          const e = s.event;
          assert.equal(e.kind, "approval_granted");
          if (e.kind !== "approval_granted") continue;
          const id = a.token.approvalId!;
          assert.equal(e.approvalId, id);
          assert.equal(e.taskId, a.taskId);
          assert.equal(e.action, "integrate");
          assert.equal(e.patchDigest, a.patchDigest);
          const req = requested.get(id);
          assert.ok(req !== undefined, "approval was never requested");
          assert.equal(req.taskId, a.taskId);
          assert.equal(req.patchDigest, a.patchDigest);
          assert.ok(s.now <= req.expiresAt && s.now <= e.expiresAt, "expired approval used");
          assert.ok(!used.has(id), "approval used twice");
          used.add(id);
        }
      }
    }),
    RUNS,
  );
});

/** Statuses that spend wall time (the pausable ones, from the entry table). */
const WAITING_FOR_WORK = new Set<TaskStatus>(
  TASK_STATUSES.filter((s) => ENTRY[s].resumeAs !== null),
);
const WORK_ACTIONS = new Set([
  "create_worktree",
  "run_backend",
  "extract_diff",
  "check_scope",
  "run_contract",
]);

Deno.test("property: budget exhaustion pauses; no work is started over budget", () => {
  fc.assert(
    fc.property(cmdsArb, anyPolicyArb, (cmds, policy) => {
      for (const s of runScenario(cmds, policy).steps) {
        const t = s.task;
        if (t === null) continue;
        if (s.actions.some((a) => WORK_ACTIONS.has(a.kind))) {
          assert.ok(s.now <= t.deadlineAt, "work started after the deadline");
          assert.ok(t.round <= t.budget.repairRounds, "work started beyond the repair rounds");
          assert.ok(t.used.outputBytes <= t.budget.outputBytes);
          assert.ok(t.used.costUnits <= t.budget.costUnits);
        }
        if (
          s.event.kind === "timer_tick" && !s.redelivered && s.before !== null &&
          WAITING_FOR_WORK.has(s.before) && s.now > t.deadlineAt
        ) {
          assert.equal(s.after, "paused");
          assert.equal(t.reason, "budget_wall_time");
        }
        if (s.after === "paused" && s.before !== "paused") {
          assert.ok(String(t.reason).startsWith("budget_"), `paused for ${t.reason}`);
          assert.ok(s.actions.some((a) => a.kind === "notify"));
        }
      }
    }),
    RUNS,
  );
});

Deno.test("property: redeliveries inside random streams emit nothing", () => {
  fc.assert(
    fc.property(cmdsArb, anyPolicyArb, (cmds, policy) => {
      for (const s of runScenario(cmds, policy).steps) {
        if (!s.redelivered) continue;
        assert.deepEqual(s.actions, []);
        assert.equal(s.after, s.before);
      }
    }),
    RUNS,
  );
});

Deno.test("property: redelivering any applied event changes nothing and emits nothing", () => {
  fc.assert(
    fc.property(cmdsArb, anyPolicyArb, fc.nat(), fc.nat(), (cmds, policy, cutSeed, pick) => {
      const sc = runScenario(cmds, policy);
      const cut = 1 + (cutSeed % sc.events.length);
      const { state } = replayEvents(sc.events.slice(0, cut), { policy });
      const before = JSON.stringify(state);
      const again = sc.events[pick % cut]!;
      const { actions } = step(state, again);
      assert.deepEqual(actions, []);
      assert.equal(JSON.stringify(state), before);
    }),
    RUNS,
  );
});

Deno.test("property: arbitrary field values (NaN, negative, huge) never throw or break JSON", () => {
  const num = fc.oneof(
    fc.double(),
    fc.integer(),
    fc.constantFrom(Number.NaN, Infinity, -Infinity, -0, Number.MAX_VALUE),
  );
  fc.assert(
    fc.property(fc.array(fc.tuple(num, num, num, num, fc.string()), { maxLength: 30 }), (rows) => {
      const state = initialKernelState(defaultPolicy());
      let seq = 0;
      for (const [x, y, z, w, s] of rows) {
        seq++;
        step(state, {
          v: 1,
          kind: "task_submitted",
          id: s,
          seq,
          at: x,
          taskId: s,
          goal: s,
          baseRev: s,
          contractDigest: s,
          policyDigest: s,
          policy: null,
          budget: { wallTimeMs: y, repairRounds: z, outputBytes: w, costUnits: x },
        });
        seq++;
        step(state, { v: 1, kind: "timer_tick", id: "t", seq, at: y, taskId: s });
        seq++;
        step(state, {
          v: 1,
          kind: "budget_extended",
          id: "b",
          seq,
          at: z,
          taskId: s,
          add: { wallTimeMs: x, repairRounds: y, outputBytes: z, costUnits: w },
        });
        step(state, { v: 1, kind: "timer_tick", id: "t", seq: w, at: w, taskId: s });
      }
      assert.deepEqual(JSON.parse(JSON.stringify(state)), state);
    }),
    RUNS,
  );
});
