/**
 * The git side of integration: commits verified patch bytes on a NEW branch
 * without touching the user's working tree or index (a temporary index,
 * `git apply --cached`, `write-tree`, `commit-tree`, then `update-ref` that
 * refuses an existing branch). Hardened git only.
 *
 * @module
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyPatch } from "../git/apply_patch.ts";
import { gitChecked, GitError } from "../git/git_checked.ts";
import type { NewBranchCommit } from "../verified_patch/capabilities.ts";

/**
 * Creates `refs/heads/<branch>` at a new commit of `baseRevision` + `diff`.
 *
 * @example
 * ```ts ignore
 * const { commit } = await commitOnNewBranch(request);
 * ```
 */
export async function commitOnNewBranch(
  request: NewBranchCommit,
): Promise<{ readonly commit: string }> {
  const tmp = await mkdtemp(join(tmpdir(), "vouch-integrate-"));
  try {
    const env = {
      GIT_INDEX_FILE: join(tmp, "index"),
      GIT_AUTHOR_NAME: "vouch",
      GIT_AUTHOR_EMAIL: "vouch@localhost",
      GIT_COMMITTER_NAME: "vouch",
      GIT_COMMITTER_EMAIL: "vouch@localhost",
    };
    const g = (args: string[]) =>
      gitChecked(args, { cwd: request.repoRoot, env, timeoutMs: 60_000 });
    await g(["read-tree", request.baseRevision]);
    const applied = await applyPatch(
      { cwd: request.repoRoot, env, timeoutMs: 60_000 },
      request.diff,
      "cached",
    );
    if (!applied.ok) throw new GitError("git_failed", `Cannot apply the patch: ${applied.detail}`);
    const tree = (await g(["write-tree"])).stdout.head.trim();
    const message = `${request.message}\n\nVouch-Patch-Digest: ${request.patchDigest}\n`;
    const msgFile = join(tmp, "message");
    await writeFile(msgFile, message);
    const commit = (await g(["commit-tree", tree, "-p", request.baseRevision, "-F", msgFile]))
      .stdout.head.trim();
    // The empty old value makes update-ref fail if the branch already exists.
    await g(["update-ref", `refs/heads/${request.branch}`, commit, ""]);
    return { commit };
  } finally {
    await rm(tmp, { recursive: true, force: true }).catch(() => {});
  }
}
