// A real crashed run: a child vouch process creates a worktree and is killed
// with SIGKILL (no cleanup runs); gc finds the dead owner and removes it.
import assert from "node:assert/strict";
import { join } from "node:path";
import { createRepo, git } from "../../golden/fixture_repos.ts";
import { gcWorktrees } from "../../../adapters/worktree/mod.ts";

Deno.test("gcWorktrees: removes the worktree of a SIGKILLed vouch process, repo admin entry included", async () => {
  const repo = await createRepo({ "a.txt": "a\n" }, "true");
  const root = await Deno.makeTempDir({ prefix: "vouch-gc-crash-" });
  const mod = new URL("../../../adapters/worktree/mod.ts", import.meta.url).href;
  const script = `
    import { createWorktree } from ${JSON.stringify(mod)};
    const wt = await createWorktree({ repo: ${
    JSON.stringify(repo.dir)
  }, taskId: "crash", attempt: 1, root: ${JSON.stringify(root)} });
    console.log(wt.container);
    setInterval(() => {}, 1000);
  `;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-check", script],
    stdout: "piped",
    stderr: "inherit",
    stdin: "null",
  }).spawn();
  try {
    const reader = child.stdout.getReader();
    let text = "";
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    const container = text.trim();
    assert.ok(container.startsWith(await Deno.realPath(root)), text);
    // While the owner runs, gc keeps it.
    assert.deepEqual((await gcWorktrees({ root })).kept, [container]);
    child.kill("SIGKILL");
    await child.status;
    reader.releaseLock();
    await child.stdout.cancel().catch(() => {});
    assert.match(await git(repo.dir, "worktree", "list"), /crash-1\/tree/);
    const report = await gcWorktrees({ root });
    assert.deepEqual(report.removed, [container]);
    assert.equal(await Deno.lstat(container).then(() => true, () => false), false);
    assert.doesNotMatch(await git(repo.dir, "worktree", "list"), /crash-1/);
    assert.equal(await Deno.lstat(join(root)).then(() => true, () => false), true);
  } finally {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
    await repo.cleanup();
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
});

Deno.test("ownerAlive: own process alive; a reused pid (other start time) and a missing pid are dead", async () => {
  const { ownerAlive, processStartTime } = await import("../../../adapters/worktree/mod.ts");
  assert.equal(await ownerAlive(Deno.pid, null), true);
  assert.equal(await ownerAlive(2 ** 22 + 99, null), false);
  assert.equal(await ownerAlive(-5, null), false);
  const sleeper = new Deno.Command("sleep", { args: ["30"], stdout: "null", stderr: "null" })
    .spawn();
  try {
    const start = processStartTime(sleeper.pid);
    assert.equal(await ownerAlive(sleeper.pid, start), true);
    if (start !== null) assert.equal(await ownerAlive(sleeper.pid, start + "0"), false);
  } finally {
    sleeper.kill("SIGKILL");
    await sleeper.status;
  }
});
