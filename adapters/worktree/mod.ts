/**
 * Throwaway git worktrees: one per task and attempt, created from a base
 * revision in a vouch-owned directory outside the repository, removed on
 * success, failure and kill, garbage-collected after crashes; the real diff
 * extracted from the worktree itself; the clean re-verification tree built
 * by `git apply --index`. Must never modify the user's checkout or its
 * uncommitted changes, and never trust what a worker says it changed.
 *
 * @module
 */
export * from "./errors.ts";
export * from "./location.ts";
export * from "./worktree.ts";
export * from "./extract_diff.ts";
export * from "./clean_tree.ts";
export * from "./task_trees.ts";
export * from "./reset_tree.ts";
export * from "./tree_pool.ts";
export * from "./gc.ts";
export * from "./deferred_removal.ts";
