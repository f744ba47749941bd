/**
 * The interpreter's logic through the in-memory harness (`_harness.ts`): the
 * real driver and kernel, a fake clock, a scripted patch source and verifier.
 * Each task runs in milliseconds; nothing here starts git, a sandbox or a process.
 */
import assert from "node:assert/strict";
import { mintedPatchOf } from "../../../adapters/driver/_final.ts";
import { oneLineDiff, runScripted } from "./_harness.ts";

Deno.test("harness: a round whose checks pass is verified and minted", async () => {
  const run = await runScripted({ rounds: [{ diff: oneLineDiff("math.ts"), passes: true }] });
  assert.equal(run.outcome.state, "verified", run.outcome.message);
  assert.equal(run.outcome.exitCode, 0);
  assert.equal(run.outcome.rounds[0]?.verdict, "verified");
  assert.deepEqual(run.outcome.rounds[0]?.details, []);
  assert.equal(mintedPatchOf(run.outcome)?.patchDigest, run.outcome.patchDigest);
  assert.ok(run.kinds.includes("verified_patch.minted"));
});

Deno.test("harness: a failing round feeds the next round's prompt; the fix is verified", async () => {
  const run = await runScripted({
    rounds: [{ diff: oneLineDiff("math.ts") }, {
      diff: oneLineDiff("math.ts", "a", "c"),
      passes: true,
    }],
  });
  assert.equal(run.outcome.state, "verified", run.outcome.message);
  assert.deepEqual(run.outcome.rounds.map((r) => r.verdict), ["rejected", "verified"]);
  assert.deepEqual(run.outcome.rounds[0]?.details, ['check "unit": fail']);
  assert.equal(run.prompts[0], undefined);
  assert.match(run.prompts[1] ?? "", /## unit \(fail, exit 1\)/);
  assert.match(run.prompts[1] ?? "", /expected 5, got -1/);
  assert.equal(run.verifications, 2);
});

Deno.test("harness: out of rounds is a rejection whose reasons are the kernel's evidence", async () => {
  const run = await runScripted({ rounds: [{ diff: oneLineDiff("math.ts") }], maxRounds: 1 });
  assert.equal(run.outcome.state, "rejected");
  assert.equal(run.outcome.reason, "max_rounds");
  assert.equal(run.outcome.rounds[0]?.verdict, "rejected");
});

Deno.test("harness: an empty round is rejected without a verification", async () => {
  const run = await runScripted({ rounds: [{ diff: "" }], maxRounds: 1 });
  assert.equal(run.outcome.state, "rejected");
  assert.deepEqual(run.outcome.rounds[0]?.reasons, ["empty_patch"]);
  assert.deepEqual(run.outcome.rounds[0]?.details, ["the backend changed no file"]);
  assert.equal(run.outcome.rounds[0]?.verdict, "rejected");
  assert.equal(run.verifications, 0);
});

Deno.test("harness: a forbidden path is a scope violation, never verified", async () => {
  const run = await runScripted({
    rounds: [{ diff: oneLineDiff(".github/ci.yml"), passes: true }],
    forbid: [".github/**"],
  });
  assert.equal(run.outcome.state, "rejected");
  assert.equal(run.outcome.reason, "scope_violation");
  assert.equal(run.outcome.rounds[0]?.verdict, "rejected");
  assert.match((run.outcome.rounds[0]?.reasons ?? []).join(","), /forbid/);
  assert.equal(run.verifications, 0);
});

Deno.test("harness: a non-retryable backend failure ends backend_failed after one round", async () => {
  const run = await runScripted({
    rounds: [{ diff: "", status: "error", fatal: true }, {
      diff: oneLineDiff("m.ts"),
      passes: true,
    }],
  });
  assert.equal(run.outcome.state, "backend_failed", run.outcome.message);
  assert.equal(run.outcome.rounds.length, 1);
  assert.deepEqual(run.outcome.rounds[0]?.reasons, ["backend_error_no_change"]);
  assert.equal(run.outcome.rounds[0]?.verdict, "rejected");
});

Deno.test("harness: a round that outlasts the wall budget (fake clock) ends out of budget", async () => {
  const run = await runScripted({
    rounds: [{ diff: oneLineDiff("math.ts"), passes: true, takesMs: 10_000 }],
    wallTimeMs: 5_000,
  });
  assert.equal(run.outcome.state, "budget_exhausted", run.outcome.message);
  assert.equal(run.outcome.reason, "budget_wall_time");
  assert.equal(run.outcome.rounds[0]?.verdict, "not_verified");
  assert.equal(run.verifications, 0);
});

Deno.test("harness: a baseline that ends at the deadline ends the task; no round starts (a slow clock)", async () => {
  // vouch run --timeout: the kernel's wall budget and the checks' deadline are one instant, even
  // when the clock moves on between working out the budget and stamping the submission (a slow
  // disk: the kernel's init record is written in between). Seen on CI at load 30 before: the
  // kernel's deadline fell after the checks', so a baseline killed at the deadline was taken as
  // a failing baseline and a round was started (then cancelled).
  const run = await runScripted({
    rounds: [{ diff: oneLineDiff("math.ts"), passes: true }],
    baseline: true,
    deadlineInMs: 2_000,
    msPerRead: 1,
    firstRecordMs: 1_000,
  });
  assert.equal(run.outcome.state, "budget_exhausted", run.outcome.message);
  assert.equal(run.outcome.reason, "budget_wall_time");
  assert.deepEqual(run.outcome.rounds, []);
  assert.deepEqual(run.order, ["baseline"]);
});

Deno.test("harness: an agent the source starts is started once, in the worktree, before the baseline", async () => {
  const run = await runScripted({
    rounds: [{ diff: oneLineDiff("a.ts"), passes: false }, {
      diff: oneLineDiff("a.ts", "a", "c"),
      passes: true,
    }],
    start: null,
    baseline: true,
  });
  assert.equal(run.outcome.state, "verified", run.outcome.message);
  // Started once (not per round, not again for round 1), before the contract ran on the base.
  assert.deepEqual(run.order, ["start:/harness/worktree", "baseline", "round", "round"]);
});

Deno.test("harness: an agent that cannot start fails the task before the baseline (exit 4, its words)", async () => {
  const why = {
    code: "config" as const,
    message: "acp: true exited (code 0) before answering initialize",
    retryable: false,
  };
  const run = await runScripted({
    rounds: [{ diff: oneLineDiff("a.ts"), passes: true }],
    start: why,
    baseline: true,
  });
  assert.deepEqual(run.order, ["start:/harness/worktree"], "no baseline, no round");
  assert.equal(run.outcome.state, "backend_failed");
  assert.equal(run.outcome.exitCode, 4);
  assert.equal(run.outcome.reason, "backend_unavailable");
  assert.equal(
    run.outcome.message,
    "the backend cannot start: acp: true exited (code 0) before answering initialize",
  );
  assert.deepEqual(run.outcome.backendFailure, { code: "config", message: why.message });
  assert.deepEqual(run.outcome.baseline, []);
  assert.deepEqual(run.outcome.rounds, []);
});

Deno.test("harness: a source with nothing to start goes from the worktree to the baseline, as before", async () => {
  const run = await runScripted({
    rounds: [{ diff: oneLineDiff("a.ts"), passes: true }],
    baseline: true,
  });
  assert.equal(run.outcome.state, "verified", run.outcome.message);
  assert.deepEqual(run.order, ["baseline", "round"]);
});
