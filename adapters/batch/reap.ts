/**
 * Trees a killed batch or fleet worker left behind: a process SIGKILLed
 * mid-check cannot remove its clean trees, and they stay registered in the
 * repository (`git worktree list`). Its checks die with it (bwrap
 * `--die-with-parent`; unsandboxed children by their run marker); its trees
 * are removed by the next start, for the repositories that start uses, where
 * the owner recorded in `owner.json` is no longer alive on this host (the
 * same rule as `vouch gc --dir`).
 *
 * @module
 */
import { gitChecked } from "../git/git_checked.ts";
import { gcWorktrees } from "../worktree/gc.ts";

/**
 * Removes the trees of `repos` whose owning process is dead (each repository
 * once; one that is not a repository is skipped). Returns the removed trees.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { reapDeadTrees } from "./reap.ts";
 * deepEqual(await reapDeadTrees(["/nonexistent-vouch-repo"]), []);
 * ```
 */
export async function reapDeadTrees(
  repos: Iterable<string>,
  root?: string,
): Promise<string[]> {
  const removed: string[] = [];
  for (const repo of new Set(repos)) {
    let top: string;
    try {
      top = (await gitChecked(["rev-parse", "--show-toplevel"], { cwd: repo })).stdout.head.trim();
    } catch {
      continue;
    }
    const report = await gcWorktrees({ repo: top, ...(root !== undefined ? { root } : {}) })
      .catch(() => null);
    removed.push(...(report?.removed ?? []));
  }
  return removed;
}
