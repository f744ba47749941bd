/**
 * Changes to a repository's worktree registry (`$GIT_DIR/worktrees/`), one at
 * a time.
 *
 * git does not make `git worktree add` safe beside another `add` or a
 * `remove` in the same repository: `add` reads every registered entry first
 * and dies on one that a concurrent `add` has created but not yet filled
 * ("failed to read .git/worktrees/tree1/commondir"), and `remove`/`prune`
 * delete the `worktrees/` folder when it empties, under an `add` about to
 * create its entry there. A batch at concurrency 2 hit the first in about
 * one run in three on a busy machine. Inside this process the changes to one
 * repository's registry are queued; across processes (fleet workers sharing a
 * clone) an `add` that failed on such a race is retried a few times.
 *
 * Owns: the per-repository queue and the retry. Must never: queue anything
 * but registry changes (checkouts of different repositories stay parallel),
 * or retry a failure that is not one of these races.
 *
 * @module
 */
import { rm } from "node:fs/promises";
import { gitChecked } from "../git/git_checked.ts";
import { runGit } from "../git/hardened_git.ts";

const queues = new Map<string, Promise<unknown>>();

/** Runs `fn` after every earlier registry change of `repo` in this process has settled. */
export function withRegistry<T>(repo: string, fn: () => Promise<T>): Promise<T> {
  const before = queues.get(repo) ?? Promise.resolve();
  const mine = before.then(fn, fn);
  const settled = mine.then(() => {}, () => {});
  queues.set(repo, settled);
  void settled.then(() => {
    if (queues.get(repo) === settled) queues.delete(repo);
  });
  return mine;
}

/** What git says when another process changed the registry under this `add`. */
const REGISTRY_RACE =
  /failed to read [^\n]*worktrees\/[^\n/]+\/(?:commondir|gitdir)|could not create directory of '[^']*worktrees\//;

/** The attempts an `add` gets when it loses a race with another process. */
const ADD_ATTEMPTS = 4;

/**
 * `git worktree add --detach PATH BASE` in `repo`, queued behind the
 * repository's other registry changes, retried when another process raced it.
 */
export async function addDetachedWorktree(
  repo: string,
  path: string,
  base: string,
): Promise<void> {
  for (let attempt = 1;; attempt++) {
    try {
      await withRegistry(
        repo,
        () =>
          gitChecked(["worktree", "add", "--detach", "--end-of-options", path, base], {
            cwd: repo,
          }),
      );
      return;
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      if (attempt >= ADD_ATTEMPTS || !REGISTRY_RACE.test(text)) throw error;
      // git stopped before checking anything out; a half-made folder would block the retry.
      await rm(path, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 25 * attempt + Math.floor(Math.random() * 25)));
    }
  }
}

/** `git worktree remove --force --force PATH` in `repo`, queued; true when git removed it. */
export function removeRegisteredWorktree(repo: string, path: string): Promise<boolean> {
  return withRegistry(
    repo,
    () =>
      runGit(["worktree", "remove", "--force", "--force", "--end-of-options", path], { cwd: repo })
        .then((r) => r.exitCode === 0, () => false),
  );
}

/** `git worktree prune` in `repo`, queued; never throws. */
export async function pruneWorktrees(repo: string): Promise<void> {
  await withRegistry(repo, () => runGit(["worktree", "prune"], { cwd: repo }).catch(() => null));
}
