/**
 * A pool of clean trees per repository and base commit, shared by the
 * verifications of one process (`vouch batch`: every candidate of a task
 * applies to the same commit). A verifier takes a tree when it starts and
 * gives it back when it settles; the next one resets it
 * ({@linkcode resetTree}, proven clean) instead of checking out again. A tree
 * is only ever used by one verifier at a time.
 *
 * @module
 */
import type { DependencySnapshots } from "../deps/shared.ts";
import type { CleanTree } from "./clean_tree.ts";
import { removeWorktree } from "./worktree.ts";

/** Clean trees kept for reuse; see {@linkcode createCleanTreePool}. */
export interface CleanTreePool {
  /** A kept tree of `repo` at `base` (now owned by the caller), or null. */
  take(repo: string, base: string): CleanTree | null;
  /** Keeps a tree the caller is done with (removed instead when the pool is full or drained). */
  give(tree: CleanTree): void;
  /** Trees kept right now. */
  readonly size: number;
  /**
   * Dependency snapshots shared read-only by the trees of this pool (a batch
   * under bwrap): set, verifiers bind views of them instead of copying.
   */
  readonly dependencies?: DependencySnapshots;
  /** Removes every kept tree (and the dependency snapshots); later `give`s remove theirs at once. */
  drain(): Promise<void>;
}

/** Options of {@linkcode createCleanTreePool}. */
export interface CleanTreePoolOptions {
  /** Dependency snapshots the pool's trees share (removed on drain). */
  readonly dependencies?: DependencySnapshots;
}

/**
 * Creates a pool holding at most `max` idle trees per repository and base.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { execFileSync } from "node:child_process";
 * import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { createCleanTree } from "./clean_tree.ts";
 * import { createCleanTreePool } from "./tree_pool.ts";
 * const scratch = mkdtempSync(join(tmpdir(), "vouch-example-"));
 * const repo = join(scratch, "repo");
 * execFileSync("git", ["init", "-q", repo]);
 * writeFileSync(join(repo, "a.txt"), "a\n");
 * execFileSync("git", ["add", "."], { cwd: repo });
 * execFileSync("git", ["-c", "user.email=e@x", "-c", "user.name=e", "commit", "-qm", "init"], { cwd: repo });
 * const root = join(scratch, "wt");
 * const pool = createCleanTreePool();
 * const first = await createCleanTree({ repo, taskId: "t", attempt: 1, root, patch: new Uint8Array() });
 * pool.give(first);
 * const kept = pool.take(first.worktree.repo, first.worktree.base);
 * equal(kept, first);
 * equal(pool.take(first.worktree.repo, first.worktree.base), null);
 * pool.give(kept!);
 * await pool.drain();
 * equal(pool.size, 0);
 * rmSync(scratch, { recursive: true, force: true });
 * ```
 */
export function createCleanTreePool(
  max = 8,
  options: CleanTreePoolOptions = {},
): CleanTreePool {
  const idle = new Map<string, CleanTree[]>();
  const removals = new Set<Promise<void>>();
  let drained = false;
  const keyOf = (repo: string, base: string) => `${repo}\0${base}`;
  const remove = (tree: CleanTree) => {
    const p: Promise<void> = removeWorktree(tree.worktree).catch(() => {}).finally(() =>
      removals.delete(p)
    );
    removals.add(p);
  };
  return {
    ...(options.dependencies !== undefined ? { dependencies: options.dependencies } : {}),
    take(repo, base) {
      return idle.get(keyOf(repo, base))?.pop() ?? null;
    },
    give(tree) {
      const key = keyOf(tree.worktree.repo, tree.worktree.base);
      const list = idle.get(key) ?? [];
      if (drained || list.length >= max || list.includes(tree)) {
        if (!list.includes(tree)) remove(tree);
        return;
      }
      list.push(tree);
      idle.set(key, list);
    },
    get size() {
      let n = 0;
      for (const list of idle.values()) n += list.length;
      return n;
    },
    async drain() {
      drained = true;
      for (const list of idle.values()) for (const tree of list.splice(0)) remove(tree);
      idle.clear();
      while (removals.size > 0) await Promise.all([...removals]);
      await options.dependencies?.remove();
    },
  };
}
