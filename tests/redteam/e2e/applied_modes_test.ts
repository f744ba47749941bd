/**
 * Patches whose danger only git's result shows: no mode lines, yet git keeps
 * the path's mode, so the patch retargets an existing symlink to an absolute
 * path or bumps a submodule commit. Through the real `vouch verify` (real git,
 * a real clean tree): each must be rejected exactly like the same change with
 * its modes written out, and a patch whose stated mode disagrees with git's
 * result is rejected with its own code.
 */
import assert from "node:assert/strict";
import { runCli } from "../../../cli/main.ts";
import type { CliIo } from "../../../cli/command.ts";
import { git } from "../../golden/fixture_repos.ts";

const SUB_OLD = "1".repeat(40);
const SUB_NEW = "2".repeat(40);

async function withRepo(fn: (dir: string, work: string) => Promise<void>): Promise<void> {
  const work = await Deno.makeTempDir({ prefix: "vouch-applied-" });
  const dir = `${work}/repo`;
  await Deno.mkdir(dir);
  await git(dir, "init", "-q", "-b", "main");
  await Deno.writeTextFile(`${dir}/target.txt`, "hello\n");
  await Deno.writeTextFile(`${dir}/notes.txt`, "one\n");
  await Deno.symlink("target.txt", `${dir}/link`);
  await git(dir, "add", "target.txt", "notes.txt", "link");
  // A gitlink (submodule commit) without a checkout: exactly what git records.
  await git(dir, "update-index", "--add", "--cacheinfo", `160000,${SUB_OLD},sub`);
  await git(dir, "commit", "-q", "-m", "base");
  const saved = [Deno.env.get("VOUCH_KEY_FILE"), Deno.env.get("VOUCH_WORKTREE_ROOT")];
  Deno.env.set("VOUCH_KEY_FILE", `${work}/state/key`);
  Deno.env.set("VOUCH_WORKTREE_ROOT", `${work}/wt`);
  try {
    await fn(dir, work);
  } finally {
    for (const [i, name] of ["VOUCH_KEY_FILE", "VOUCH_WORKTREE_ROOT"].entries()) {
      const v = saved[i];
      if (v === undefined) Deno.env.delete(name);
      else Deno.env.set(name, v);
    }
    await Deno.remove(work, { recursive: true });
  }
}

async function verify(
  dir: string,
  patch: string,
): Promise<{ code: number; json: Record<string, unknown> }> {
  const file = `${dir}/../p-${crypto.randomUUID()}.diff`;
  await Deno.writeTextFile(file, patch);
  let out = "";
  const io: CliIo = { out: (t) => void (out += t), err: () => {}, isTerminal: false };
  const code = await runCli(
    ["verify", "--dir", dir, "--patch", file, "--verify", "true", "--sandbox", "none", "--json"],
    io,
  );
  return { code, json: JSON.parse(out) };
}

/** git's own diff of retargeting `link` to /etc/passwd (with its `index ... 120000` line). */
async function retargetDiff(dir: string): Promise<string> {
  await Deno.remove(`${dir}/link`);
  await Deno.symlink("/etc/passwd", `${dir}/link`);
  const diff = await git(dir, "diff", "--", "link");
  await Deno.remove(`${dir}/link`);
  await Deno.symlink("target.txt", `${dir}/link`);
  assert.match(diff, /^index [0-9a-f]+\.\.[0-9a-f]+ 120000$/m);
  return diff;
}

Deno.test("redteam applied: a plain edit in the same repository is verified (the control)", async () => {
  await withRepo(async (dir) => {
    const patch = "diff --git a/notes.txt b/notes.txt\n--- a/notes.txt\n+++ b/notes.txt\n" +
      "@@ -1 +1 @@\n-one\n+two\n";
    const r = await verify(dir, patch);
    assert.equal(r.code, 0, JSON.stringify(r.json));
    assert.equal(r.json["verdict"], "verified");
  });
});

Deno.test("redteam applied: retargeting a symlink to an absolute path with NO mode lines is denied", async () => {
  await withRepo(async (dir) => {
    const withModes = await retargetDiff(dir);
    const stated = await verify(dir, withModes);
    assert.equal(stated.code, 1);
    assert.ok((stated.json["reasons"] as string[]).includes("policy_denied:symlink"));
    // Drop the mode from the index line: the patch now looks like a text edit.
    const noModes = withModes.replace(/^(index [0-9a-f]+\.\.[0-9a-f]+) 120000$/m, "$1");
    assert.doesNotMatch(noModes, /120000/);
    const r = await verify(dir, noModes);
    assert.equal(r.code, 1, JSON.stringify(r.json));
    assert.equal(r.json["verdict"], "rejected");
    assert.ok((r.json["reasons"] as string[]).includes("policy_denied:symlink"));
    assert.equal(r.json["verifiedPatch"], null);
  });
});

Deno.test("redteam applied: bumping a submodule commit with NO mode lines is denied (gitlink)", async () => {
  await withRepo(async (dir) => {
    const body = `--- a/sub\n+++ b/sub\n@@ -1 +1 @@\n-Subproject commit ${SUB_OLD}\n` +
      `+Subproject commit ${SUB_NEW}\n`;
    const stated = await verify(
      dir,
      `diff --git a/sub b/sub\nindex 1111111..2222222 160000\n${body}`,
    );
    assert.equal(stated.code, 1);
    assert.ok((stated.json["reasons"] as string[]).includes("gitlink"));
    const r = await verify(dir, `diff --git a/sub b/sub\nindex 1111111..2222222\n${body}`);
    assert.equal(r.code, 1, JSON.stringify(r.json));
    assert.equal(r.json["verdict"], "rejected");
    assert.ok((r.json["reasons"] as string[]).includes("gitlink"), JSON.stringify(r.json));
  });
});

Deno.test("redteam applied: a stated mode git's result disagrees with is applied_mode_mismatch", async () => {
  await withRepo(async (dir) => {
    // git warns ("has type 100644, expected 100755"), applies, and keeps 100644.
    const lying = "diff --git a/notes.txt b/notes.txt\nindex 1111111..2222222 100755\n" +
      "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-one\n+two\n";
    const r = await verify(dir, lying);
    assert.equal(r.code, 1, JSON.stringify(r.json));
    assert.ok((r.json["reasons"] as string[]).includes("applied_mode_mismatch"));
    // Claiming a symlink is a regular file: git itself refuses to apply it.
    const asFile = (await retargetDiff(dir)).replace(/ 120000$/m, " 100644");
    const refused = await verify(dir, asFile);
    assert.equal(refused.code, 1);
    assert.ok((refused.json["reasons"] as string[]).includes("apply_failed"));
  });
});
