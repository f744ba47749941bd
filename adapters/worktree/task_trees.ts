/**
 * The clean-tree lifecycle of one task: ONE clean tree per task. The baseline
 * runs in it, and before each later use (each round) it is reset to the base
 * (stat data first; proven clean by git) instead of checked out again. With a
 * pool (`vouch batch`) the first tree is taken from it and given back at
 * `settle()`; without one, trees are removed in the background and `settle()`
 * waits for them.
 *
 * @module
 */
import { realpath } from "node:fs/promises";
import { type CleanTree, createCleanTree } from "./clean_tree.ts";
import type { CleanTreePool } from "./tree_pool.ts";
import { removeWorktree, type Worktree } from "./worktree.ts";

/** A full commit id (SHA-1 or SHA-256): a base the checkout need not resolve again. */
const FULL_COMMIT = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** Options of {@linkcode createTaskTrees}. */
export interface TaskTreesOptions {
  /** The user's repository (top level). */
  readonly repo: string;
  /** The base revision. */
  readonly base: string;
  /** The task id (names the trees). */
  readonly taskId: string;
  /** Paths for which the base wins over a (non-empty) patch. @default none */
  readonly isProtected?: (path: string) => boolean;
  /** Worktree root (default: the worktree module's). */
  readonly root?: string;
  /** Trees shared with other tasks of the same repository and base. */
  readonly pool?: CleanTreePool;
}

/** One task's clean trees; see {@linkcode createTaskTrees}. */
export interface TaskTrees {
  /**
   * A clean tree of the base with `patch` applied (the held tree reset, or a
   * new one). `last`: no use of the tree follows, so it needs no stat mark
   * for a later reset (a tree that goes back to a pool is always marked).
   */
  next(patch: Uint8Array, signal: AbortSignal, last?: boolean): Promise<CleanTree>;
  /** The task is over: its tree goes (back to the pool, or removed); waits for removals. */
  settle(): Promise<void>;
}

/**
 * Creates the tree lifecycle of one task. Nothing is checked out until the
 * first `next()`: the lifecycle holds the plain values it was given and its
 * own state (the held tree, its uses, the removals under way).
 *
 * @example
 * ```ts ignore
 * import { createTaskTrees } from "./task_trees.ts";
 * const trees = createTaskTrees({ repo, base, taskId: "t1" });
 * const baseline = await trees.next(new Uint8Array(), AbortSignal.timeout(60_000));
 * await trees.settle();
 * ```
 */
export function createTaskTrees(opts: TaskTreesOptions): TaskTrees {
  return new TaskTreeLifecycle(opts);
}

/** One task's clean trees: the tree it holds between uses, and the removals under way. */
class TaskTreeLifecycle implements TaskTrees {
  readonly #opts: TaskTreesOptions;
  readonly #removals = new Set<Promise<void>>();
  #top: Promise<string> | null = null;
  #held: CleanTree | null = null;
  #uses = 0;

  constructor(opts: TaskTreesOptions) {
    this.#opts = opts;
  }

  async next(patch: Uint8Array, signal: AbortSignal, last = false): Promise<CleanTree> {
    const opts = this.#opts;
    const reuse = this.#held ?? opts.pool?.take(opts.repo, opts.base) ?? null;
    this.#held = null;
    const use = ++this.#uses;
    const clean = await createCleanTree({
      repo: opts.repo,
      taskId: opts.taskId,
      attempt: use,
      base: opts.base,
      patch,
      // The last use of a tree nobody resets again needs no mark.
      mark: opts.pool !== undefined || !last,
      ...(FULL_COMMIT.test(opts.base)
        ? { resolved: { top: await this.#realTop(), base: opts.base } }
        : {}),
      ...(patch.length > 0 && opts.isProtected !== undefined
        ? { isProtected: opts.isProtected }
        : {}),
      ...(opts.root !== undefined ? { root: opts.root } : {}),
      ...(reuse !== null ? { reuse } : {}),
      signal,
    });
    this.#held = clean;
    return clean;
  }

  async settle(): Promise<void> {
    const held = this.#held;
    if (held !== null) {
      if (this.#opts.pool !== undefined) this.#opts.pool.give(held);
      else this.#removeLater(held.worktree);
    }
    this.#held = null;
    while (this.#removals.size > 0) await Promise.all([...this.#removals]);
  }

  #realTop(): Promise<string> {
    return this.#top ??= realpath(this.#opts.repo);
  }

  #removeLater(tree: Worktree): void {
    const p: Promise<void> = removeWorktree(tree).catch(() => {}).finally(() =>
      this.#removals.delete(p)
    );
    this.#removals.add(p);
  }
}
