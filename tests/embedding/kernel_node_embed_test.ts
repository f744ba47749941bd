/**
 * Embedding test: bundles the public `kernel` entry point into one plain ESM
 * file with `deno bundle` and runs a small lifecycle under Node (`node` on
 * PATH), proving the kernel embeds in a Node application unchanged.
 */
import assert from "node:assert/strict";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = normalize(join(dirname(fileURLToPath(import.meta.url)), "../.."));

const SCRIPT = `
import assert from "node:assert/strict";
import * as kernel from "./kernel.mjs";

const { defaultPolicy, initialKernelState, step, MAX_ACTIONS_PER_STEP, TRANSITIONS, taskOutcome } = kernel;
assert.equal(typeof step, "function");
assert.ok(Object.keys(TRANSITIONS).length > 10);

const state = initialKernelState(defaultPolicy());
let seq = 0;
let task = null;
const timeline = [];
function send(body) {
  seq++;
  const { actions } = step(state, { v: 1, id: "e" + seq, seq, at: 1000 + seq, ...body });
  assert.ok(actions.length <= MAX_ACTIONS_PER_STEP);
  task ??= state.tasks.t1;
  timeline.push(body.kind + ":" + task.status);
  return actions;
}
const effect = () => task.pending.effectId;
send({
  kind: "task_submitted", taskId: "t1", goal: "fix it", baseRev: "HEAD",
  contractDigest: "sha256:c", policyDigest: "sha256:p", policy: null,
  budget: { wallTimeMs: 60000, repairRounds: 2, outputBytes: 100000, costUnits: 100 },
});
send({ kind: "worktree_ready", taskId: "t1", effectId: effect(), path: "/tmp/wt" });
send({ kind: "baseline_result", setupReceipts: [], taskId: "t1", effectId: effect(), ran: true, unusable: [], checks: [{ id: "unit", outcome: "fail", receipts: ["sha256:r1"] }] });
send({ kind: "backend_finished", taskId: "t1", effectId: effect(), outcome: "ok", outputBytes: 10, costUnits: 1, fatal: false });
send({ kind: "patch_extracted", taskId: "t1", effectId: effect(), patchDigest: "sha256:d", filesChanged: 1 });
send({ kind: "scope_checked", taskId: "t1", effectId: effect(), verdict: "accept", violations: [], sensitive: [] });
send({ kind: "verification_result", setupReceipts: [], taskId: "t1", effectId: effect(), round: 0, checks: [{ id: "unit", outcome: "pass", receipts: ["sha256:r2"] }] });
const minted = send({ kind: "patch_minted", taskId: "t1", effectId: effect(), patchDigest: "sha256:d" });
const request = minted.find((a) => a.kind === "request_approval");
const granted = send({
  kind: "approval_granted", taskId: "t1", approvalId: request.approvalId, action: "integrate",
  patchDigest: "sha256:d", by: "node", expiresAt: request.expiresAt,
});
const integrate = granted.find((a) => a.kind === "integrate");
assert.equal(integrate.token.approvalId, request.approvalId);
send({ kind: "integrated", taskId: "t1", effectId: effect(), ok: true, commit: "abc" });
assert.deepEqual(taskOutcome(task), { state: "verified", reason: "integrated" });
// the state is plain JSON data
const revived = JSON.parse(JSON.stringify(state));
assert.deepEqual(revived, state);
process.stdout.write(JSON.stringify({ status: task.status, timeline, node: process.version }));
`;

Deno.test("the bundled kernel runs a full lifecycle under Node", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-embed-" });
  try {
    const bundled = await new Deno.Command(Deno.execPath(), {
      args: [
        "bundle",
        "--quiet",
        "--platform",
        "browser",
        "--format",
        "esm",
        "-o",
        join(dir, "kernel.mjs"),
        join(ROOT, "kernel/mod.ts"),
      ],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(bundled.code, 0, new TextDecoder().decode(bundled.stderr));
    const source = await Deno.readTextFile(join(dir, "kernel.mjs"));
    // Plain ESM with no imports left: nothing to resolve in the host.
    assert.ok(!/^\s*import\s/m.test(source), "bundle still has import statements");
    assert.ok(!source.includes("Deno."), "bundle mentions the Deno namespace");
    await Deno.writeTextFile(join(dir, "run.mjs"), SCRIPT);
    const ran = await new Deno.Command("node", {
      args: [join(dir, "run.mjs")],
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(ran.stderr);
    assert.equal(ran.code, 0, `node failed:\n${stderr}`);
    const result = JSON.parse(new TextDecoder().decode(ran.stdout));
    assert.equal(result.status, "completed");
    assert.match(result.node, /^v\d+\./);
    assert.deepEqual(result.timeline, [
      "task_submitted:submitted",
      "worktree_ready:baselining",
      "baseline_result:worktree_ready",
      "backend_finished:extracting",
      "patch_extracted:patch_proposed",
      "scope_checked:verifying",
      "verification_result:verified",
      "patch_minted:awaiting_approval",
      "approval_granted:integrating",
      "integrated:completed",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
