import assert from "node:assert/strict";
import { applyPatch, readIndexChanges } from "../../../adapters/git/apply_patch.ts";
import { git } from "../../golden/fixture_repos.ts";

const enc = new TextEncoder();
const EDIT = enc.encode(
  "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n",
);

async function withRepo(fn: (dir: string, base: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "vouch-apply-test-" });
  try {
    await git(dir, "init", "-q");
    await Deno.writeTextFile(`${dir}/a.txt`, "one\n");
    await Deno.symlink("a.txt", `${dir}/link`);
    await git(dir, "add", ".");
    await git(dir, "commit", "-q", "-m", "base");
    await fn(dir, (await git(dir, "rev-parse", "HEAD")).trim());
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("applyPatch: the three modes touch the work tree, the index, or both", async () => {
  await withRepo(async (dir, base) => {
    assert.deepEqual(await applyPatch({ cwd: dir }, EDIT, "worktree"), { ok: true });
    assert.equal(await Deno.readTextFile(`${dir}/a.txt`), "two\n");
    assert.deepEqual(await readIndexChanges({ cwd: dir }, base), []); // index untouched
    await git(dir, "checkout", "--", "a.txt");

    assert.deepEqual(await applyPatch({ cwd: dir }, EDIT, "cached"), { ok: true });
    assert.equal(await Deno.readTextFile(`${dir}/a.txt`), "one\n"); // work tree untouched
    assert.deepEqual((await readIndexChanges({ cwd: dir }, base))?.map((e) => e.path), ["a.txt"]);
    await git(dir, "reset", "-q", "--hard");

    assert.deepEqual(await applyPatch({ cwd: dir }, EDIT, "index"), { ok: true });
    assert.equal(await Deno.readTextFile(`${dir}/a.txt`), "two\n");
    const [entry] = (await readIndexChanges({ cwd: dir }, base))!;
    assert.equal(entry?.oldMode, "100644");
    assert.equal(entry?.newMode, "100644");
    assert.equal(entry?.status, "M");
    assert.equal(entry?.oldId.length, 40); // --no-abbrev
  });
});

Deno.test("applyPatch: git's refusal is reported, an empty patch is a no-op", async () => {
  await withRepo(async (dir) => {
    const r = await applyPatch(
      { cwd: dir },
      enc.encode("diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-zzz\n+two\n"),
      "index",
    );
    assert.equal(r.ok, false);
    assert.match(r.ok ? "" : r.detail, /patch does not apply/);
    assert.deepEqual(await applyPatch({ cwd: dir }, new Uint8Array(), "index"), { ok: true });
  });
});

Deno.test("readIndexChanges: a symlink edited without mode lines is reported as a symlink", async () => {
  await withRepo(async (dir, base) => {
    const patch = "diff --git a/link b/link\n--- a/link\n+++ b/link\n@@ -1 +1 @@\n-a.txt\n" +
      "\\ No newline at end of file\n+/etc/passwd\n\\ No newline at end of file\n";
    assert.deepEqual(await applyPatch({ cwd: dir }, enc.encode(patch), "index"), { ok: true });
    const entries = await readIndexChanges({ cwd: dir }, base);
    assert.deepEqual(entries?.map((e) => [e.path, e.oldMode, e.newMode]), [
      ["link", "120000", "120000"],
    ]);
    assert.equal(await Deno.readLink(`${dir}/link`), "/etc/passwd");
    assert.equal(await readIndexChanges({ cwd: dir }, "no-such-rev"), null);
  });
});
