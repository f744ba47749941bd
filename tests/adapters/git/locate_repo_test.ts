/**
 * The per-process memory of located repositories never changes an answer: a
 * symbolic revision follows the branch as it moves, a full commit id stays
 * itself, another directory of the same repository finds the same top, and a
 * repository whose git dir is gone is looked up again (and refused).
 */
import assert from "node:assert/strict";
import { locateRepo, readRepoInfo } from "../../../adapters/git/locate_repo.ts";
import { GitError } from "../../../adapters/git/git_checked.ts";
import { createRepo, git } from "../../golden/fixture_repos.ts";

Deno.test("locateRepo: remembered repositories still follow HEAD and refuse a vanished repo", async () => {
  const repo = await createRepo({ "a.txt": "a\n", "sub/b.txt": "b\n" }, "true");
  try {
    const first = await locateRepo(repo.dir, "HEAD");
    assert.equal(first.base, (await git(repo.dir, "rev-parse", "HEAD")).trim());
    assert.equal(first.top, await Deno.realPath(repo.dir));
    // A full id is itself, and a subdirectory finds the same top level.
    assert.deepEqual(await locateRepo(`${repo.dir}/sub`, first.base), first);
    assert.deepEqual(await locateRepo(repo.dir, first.base), first);
    // HEAD moves: the remembered repository resolves it afresh.
    await Deno.writeTextFile(`${repo.dir}/a.txt`, "changed\n");
    await git(repo.dir, "commit", "-qam", "second");
    const moved = await locateRepo(repo.dir, "HEAD");
    assert.notEqual(moved.base, first.base);
    assert.equal(moved.base, (await git(repo.dir, "rev-parse", "HEAD")).trim());
    // The git dir disappears: nothing remembered stands in for it.
    await Deno.remove(`${repo.dir}/.git`, { recursive: true });
    await assert.rejects(locateRepo(repo.dir, first.base), { code: "not_a_repo" });
  } finally {
    await repo.cleanup();
  }
});

Deno.test("locateRepo / readRepoInfo: a missing directory and a plain one are not_a_repo, each saying which", async () => {
  const dir = await Deno.makeTempDir();
  try {
    for (const find of [locateRepo, readRepoInfo]) {
      await assert.rejects(
        find(`${dir}/nope`, "HEAD"),
        (e: unknown) =>
          e instanceof GitError && e.code === "not_a_repo" &&
          e.message === `Cannot use ${dir}/nope: no such directory`,
      );
      await assert.rejects(
        find(dir, "HEAD"),
        (e: unknown) =>
          e instanceof GitError && e.code === "not_a_repo" &&
          e.message === `Cannot use ${dir}: not inside a git work tree`,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
