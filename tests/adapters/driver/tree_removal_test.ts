/**
 * Tree removal never blocks the verdict when asked not to (`treeRemoval:
 * "after_return"`, what the CLI uses): `runTask` resolves while the trees'
 * removal is still held up, and `settleDeferredRemovals` waits for it. By
 * default (`before_return`) `runTask` waits. Real git, real worktrees.
 */
import assert from "node:assert/strict";
import { fnBackend } from "../../../adapters/backends/fn_backend.ts";
import { agentWorktree } from "../../../adapters/driver/patch_source.ts";
import { runTask } from "../../../adapters/driver/run_task.ts";
import { importMacKey } from "../../../adapters/keys/mac_key.ts";
import { EventLog } from "../../../adapters/log/store.ts";
import type { Verifier } from "../../../adapters/verification/verifier.ts";
import { settleDeferredRemovals } from "../../../adapters/worktree/deferred_removal.ts";
import { createDenoRepo, git } from "../../golden/fixture_repos.ts";

/** A verifier whose cleanup waits until the test opens the gate (it never verifies). */
function gatedVerifier() {
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => (open = resolve));
  let settled = false;
  const verifier: Verifier = {
    contractDigest: "sha256:" + "0".repeat(64),
    baseline: () => Promise.reject(new Error("no baseline in this test")),
    verify: () => Promise.reject(new Error("an empty round is never verified")),
    settle: () => gate.then(() => void (settled = true)),
  };
  return { verifier, open, isSettled: () => settled };
}

async function runWith(treeRemoval: "before_return" | "after_return") {
  const repo = await createDenoRepo();
  const state = await Deno.makeTempDir();
  const log = await EventLog.open(`${state}/events.jsonl`);
  const gated = gatedVerifier();
  const task = `t-removal-${treeRemoval.replace("_", "-")}`;
  const run = runTask({
    repo: repo.dir,
    base: (await git(repo.dir, "rev-parse", "HEAD")).trim(),
    goal: "change nothing",
    // Changes nothing: the round is rejected as empty, after its worktree was checked out.
    source: agentWorktree(fnBackend("idle", () => Promise.resolve({ done: true })), {
      root: `${state}/wt`,
    }),
    verifier: gated.verifier,
    rules: { allow: [], forbid: [], protect: [] },
    maxRounds: 1,
    wallTimeMs: 60_000,
    log,
    key: await importMacKey(new Uint8Array(32).fill(3), "memory"),
    artefactsDir: `${state}/runs`,
    taskId: task,
    baseline: false,
    treeRemoval,
  });
  const cleanup = async () => {
    await log.close();
    await repo.cleanup();
    await Deno.remove(state, { recursive: true });
  };
  return { run, gated, cleanup, repo };
}

Deno.test("runTask: with treeRemoval after_return the outcome comes before the trees are removed", async () => {
  const { run, gated, cleanup, repo } = await runWith("after_return");
  try {
    const outcome = await run; // resolves although the verifier's cleanup is held up
    assert.equal(outcome.state, "rejected");
    assert.equal(gated.isSettled(), false);
    let waited = false;
    const settling = settleDeferredRemovals().then(() => void (waited = true));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(waited, false, "settleDeferredRemovals waits for the held-up removal");
    gated.open();
    await settling;
    assert.equal(gated.isSettled(), true);
    const list = await git(repo.dir, "worktree", "list", "--porcelain");
    assert.equal(list.match(/^worktree /gm)?.length, 1, "the agent worktree is gone once settled");
  } finally {
    await cleanup();
  }
});

Deno.test("runTask: by default the trees are removed before the outcome is returned", async () => {
  const { run, gated, cleanup, repo } = await runWith("before_return");
  try {
    const early = await Promise.race([
      run.then(() => "resolved"),
      new Promise((r) => setTimeout(() => r("held"), 300)),
    ]);
    assert.equal(early, "held", "runTask waits for the removal");
    gated.open();
    assert.equal((await run).state, "rejected");
    assert.equal(gated.isSettled(), true);
    // The agent worktree went too: only the user's checkout is left.
    const list = await git(repo.dir, "worktree", "list", "--porcelain");
    assert.equal(list.match(/^worktree /gm)?.length, 1);
  } finally {
    await cleanup();
  }
});
