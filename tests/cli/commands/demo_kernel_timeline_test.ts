/**
 * The kernel-only demo runs a whole lifecycle through fake adapters: a false
 * "done", a failed verification, a repair round, approval, integration.
 */
import assert from "node:assert/strict";
import { kernelDemoTimeline, runKernelDemo } from "../../../cli/commands/demo_kernel_timeline.ts";
import { replayEvents } from "../../../kernel/mod.ts";

Deno.test("kernel demo: false claim rejected, repair round verified, approved, integrated", () => {
  const demo = runKernelDemo();
  const task = demo.task;
  assert.equal(task.status, "completed");
  assert.equal(task.round, 1);
  assert.equal(task.cleanedUp, true);
  assert.equal(Object.hasOwn(demo.state.tasks, "demo-task"), false, "compacted once cleaned up");
  assert.match(demo.main["math.ts"]!, /a \+ b/);
  assert.equal(demo.main["NOTES.md"], "Done: all tests pass now.\n");
  const transitions = demo.rows.map((r) => `${r.event}:${r.to}`);
  assert.deepEqual(transitions, [
    "task_submitted:submitted",
    "worktree_ready:baselining",
    "baseline_result:worktree_ready",
    "backend_started:backend_running",
    "backend_finished:extracting",
    "patch_extracted:patch_proposed",
    "scope_checked:verifying",
    "verification_result:worktree_ready",
    "backend_started:backend_running",
    "backend_finished:extracting",
    "patch_extracted:patch_proposed",
    "scope_checked:verifying",
    "verification_result:verified",
    "patch_minted:awaiting_approval",
    "approval_granted:integrating",
    "integrated:completed",
    "cleanup_done:completed",
  ]);
  assert.ok(demo.rows[7]!.actions.includes("run_backend(round 1, failing: unit)"));
  // The recorded events replay to the same state.
  assert.deepEqual(replayEvents(demo.events).state, demo.state);
});

Deno.test("kernel demo timeline is deterministic text", () => {
  const a = kernelDemoTimeline();
  assert.deepEqual(a, kernelDemoTimeline());
  assert.equal(a.length, 17);
  assert.match(a[12]!, /verifying -> verified .*mint_verified_patch\(round 1\)/);
  assert.match(a[13]!, /awaiting_approval .*request_approval\(integrate/);
});
