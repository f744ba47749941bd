/**
 * The worktree registry of one repository changes one step at a time: git's
 * `worktree add` dies on an entry another `add` has made but not yet filled
 * (a batch at concurrency 2 lost one candidate in three runs to it as
 * `create_failed`), so vouch queues its own registry changes per repository
 * and retries an `add` that another process raced.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRepo, git } from "../../golden/fixture_repos.ts";
import { addDetachedWorktree, withRegistry } from "../../../adapters/worktree/_git_admin.ts";
import { createWorktree, removeWorktree } from "../../../adapters/worktree/mod.ts";

Deno.test("registry: changes to one repository run one at a time, in order, past failures", async () => {
  const order: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => release = r);
  const first = withRegistry("/repo", async () => {
    order.push("first starts");
    await gate;
    order.push("first ends");
    throw new Error("first fails");
  });
  const second = withRegistry("/repo", () => {
    order.push("second runs");
    return Promise.resolve(2);
  });
  const other = withRegistry("/other", () => {
    order.push("other repo runs");
    return Promise.resolve(3);
  });
  assert.equal(await other, 3); // another repository is not queued behind this one
  await Promise.resolve();
  assert.deepEqual(order, ["first starts", "other repo runs"]);
  release();
  await assert.rejects(first, /first fails/);
  assert.equal(await second, 2);
  assert.deepEqual(order, ["first starts", "other repo runs", "first ends", "second runs"]);
});

Deno.test("registry: an entry another add has not filled yet is retried, then named", async () => {
  const repo = (await createRepo({ "a.txt": "a\n" }, "true")).dir;
  const scratch = await Deno.makeTempDir({ prefix: "vouch-registry-" });
  try {
    // What a concurrent `git worktree add` leaves for an instant: its entry with `gitdir`
    // written and `commondir` not yet.
    const entry = join(repo, ".git/worktrees/tree7");
    mkdirSync(entry, { recursive: true });
    writeFileSync(join(entry, "gitdir"), join(scratch, "other/tree/.git") + "\n");
    writeFileSync(join(entry, "commondir"), "");
    const path = join(scratch, "t/tree");
    await assert.rejects(addDetachedWorktree(repo, path, "HEAD"), (e: Error) => {
      // The race git reports, kept as the cause after the retries ran out.
      assert.match(e.message, /failed to read [^\n]*worktrees\/tree7\/commondir/);
      return true;
    });
    // Once the other add has finished (here: its entry gone), the same call succeeds.
    await Deno.remove(join(repo, ".git/worktrees/tree7"), { recursive: true });
    await addDetachedWorktree(repo, path, "HEAD");
    assert.match(await git(repo, "worktree", "list"), /t\/tree/);
  } finally {
    await Deno.remove(scratch, { recursive: true });
    await Deno.remove(repo, { recursive: true });
  }
});

Deno.test("registry: many trees of one repository made and removed at once all succeed", async () => {
  const repo = (await createRepo({ "a.txt": "a\n" }, "true")).dir;
  const root = await Deno.makeTempDir({ prefix: "vouch-registry-root-" });
  try {
    const one = async (n: number) => {
      const wt = await createWorktree({ repo, taskId: `t${n}`, attempt: 1, root });
      await removeWorktree(wt);
    };
    await Promise.all(Array.from({ length: 12 }, (_, n) => one(n)));
    assert.equal((await git(repo, "worktree", "list")).trim().split("\n").length, 1);
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(repo, { recursive: true });
  }
});
