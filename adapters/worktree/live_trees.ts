/**
 * The trees this process has created and not yet removed, so a process that
 * must leave at once (a second Ctrl-C) can hand their removal to a detached
 * child instead of leaving them for `vouch gc`. Bookkeeping only: the removal
 * itself is `git worktree remove`, then the vouch-owned container.
 *
 * @module
 */
import { spawn } from "node:child_process";

/** A tree still present: its repository, checkout and vouch-owned container. */
export interface LiveTree {
  readonly repo: string;
  readonly path: string;
  readonly container: string;
}

const live = new Map<string, LiveTree>();

/** Records a created tree (by `createWorktree`). */
export function trackTree(tree: LiveTree): void {
  live.set(tree.container, tree);
}

/** Forgets a removed tree (by `removeWorktree`). */
export function untrackTree(container: string): void {
  live.delete(container);
}

/** The trees this process still has. */
export function liveTrees(): readonly LiveTree[] {
  return [...live.values()];
}

/**
 * Removes each tree, its git admin entry, its container and an emptied
 * per-repository folder. Arguments come in threes (repo, tree, container);
 * they are never part of the script text.
 */
const REMOVE_SCRIPT = `sleep 1
while [ "$#" -ge 3 ]; do
  git -c core.hooksPath=/dev/null -c core.fsmonitor=false -C "$1" worktree remove --force --force -- "$2" 2>/dev/null
  chmod -R u+w -- "$3" 2>/dev/null
  rm -rf -- "$3"
  rmdir -- "$(dirname -- "$3")" 2>/dev/null
  git -c core.hooksPath=/dev/null -C "$1" worktree prune 2>/dev/null
  shift 3
done
`;

/**
 * Hands the removal of every live tree to a detached `sh` that outlives this
 * process (its own session: a terminal's Ctrl-C does not reach it), and
 * forgets them. Returns how many trees it scheduled (0 spawns nothing).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { scheduleLiveTreeRemoval } from "./live_trees.ts";
 * equal(scheduleLiveTreeRemoval(), 0); // nothing created in this process
 * ```
 */
export function scheduleLiveTreeRemoval(): number {
  const trees = liveTrees();
  if (trees.length === 0) return 0;
  const args = trees.flatMap((t) => [t.repo, t.path, t.container]);
  try {
    const child = spawn("/bin/sh", ["-c", REMOVE_SCRIPT, "sh", ...args], {
      detached: true,
      stdio: "ignore",
      cwd: "/",
      env: { PATH: "/usr/local/bin:/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1" },
    });
    child.on("error", () => {});
    child.unref();
  } catch {
    return 0; // `vouch gc` is the backstop: the owner is gone once this process exits
  }
  for (const t of trees) live.delete(t.container);
  return trees.length;
}
