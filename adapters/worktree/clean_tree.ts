/**
 * The clean re-verification tree: a fresh worktree of the same base with the
 * patch applied by `git apply --index` (never `--unsafe-paths`, `--reject` or
 * `--3way`), so nothing the worker left behind (untracked files, build
 * artefacts) can make checks pass. Protected paths are restored from the base.
 *
 * @module
 */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { RawDiffEntry } from "../../kernel/diff/raw.ts";
import { APPLY_ARGS, applyPatch, readIndexChanges } from "../git/apply_patch.ts";
import { gitChecked, splitNul } from "../git/git_checked.ts";
import { runGit } from "../git/hardened_git.ts";
import { WorktreeError } from "./errors.ts";
import { PermissionError } from "../process/permission.ts";
import { worktreeGitArgs } from "./extract_diff.ts";
import { createWorktree, removeWorktree, type Worktree } from "./worktree.ts";
import { markTree, type ResetReport, resetTree, type TreeMark } from "./reset_tree.ts";

/** Options of {@linkcode createCleanTree}. */
export interface CleanTreeOptions {
  /** The user's repository. */
  readonly repo: string;
  readonly taskId: string;
  readonly attempt: number;
  /** Base revision the patch is relative to (default `HEAD`). */
  readonly base?: string;
  /** Exact patch bytes (a `git diff --binary` patch; may be empty). */
  readonly patch: Uint8Array;
  /** Paths for which the base version wins over the patch (e.g. the tests that define done). */
  readonly isProtected?: (path: string) => boolean;
  /** Worktree root (default: the vouch default). */
  readonly root?: string;
  readonly signal?: AbortSignal;
  /**
   * A clean tree of the same task and base used before (by the baseline or an
   * earlier round): it is reset to the base ({@linkcode resetTree}) and used
   * again instead of a new checkout. When the reset fails it is removed and a
   * fresh tree is checked out.
   */
  readonly reuse?: CleanTree;
  /**
   * Record the base checkout's stat signatures ({@linkcode markTree}) so the
   * tree can be reset and used again. Off for a tree used once (it is removed,
   * never reset): the mark is then null. @default true
   */
  readonly mark?: boolean;
  /**
   * The repository's top level and the base's full commit id, already resolved
   * by the caller: the checkout skips resolving them again.
   */
  readonly resolved?: { readonly top: string; readonly base: string };
}

/** A clean tree ready for verification. Remove it with `removeWorktree(tree.worktree)`. */
export interface CleanTree {
  /** The worktree holding the clean tree. */
  readonly worktree: Worktree;
  /** Paths the patch changed (after protected paths were restored, still listed). */
  readonly changed: readonly string[];
  /**
   * git's account of the applied patch against the base (`--raw`: modes
   * included), read right after `git apply --index`; null when unreadable.
   */
  readonly applied: readonly RawDiffEntry[] | null;
  /** Protected paths that were reset to their base content (or removed when absent in base). */
  readonly restored: readonly string[];
  /**
   * Stat signatures of the base checkout, taken before the patch was applied
   * (for reuse); null when the tree was made to be used once (`mark: false`).
   */
  readonly mark: TreeMark | null;
  /** Whether this is a reset tree (`reuse`) rather than a fresh checkout. */
  readonly reused: boolean;
}

/** The exact argv tail of the apply step (for documentation and tests). */
export const APPLY_FLAGS: readonly string[] = APPLY_ARGS.index;

/**
 * Creates a fresh `verify` worktree of the base and applies the patch with
 * `git apply --index`; throws {@linkcode WorktreeError} `apply_failed` (and
 * removes the tree) when git refuses the patch.
 *
 * @example
 * ```ts
 * import { deepEqual, equal, rejects } from "node:assert/strict";
 * import { readFileSync } from "node:fs";
 * import { execFileSync } from "node:child_process";
 * import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * const scratch = mkdtempSync(join(tmpdir(), "vouch-example-"));
 * const repo = join(scratch, "repo");
 * execFileSync("git", ["init", "-q", repo]);
 * writeFileSync(join(repo, "a.txt"), "a\n");
 * execFileSync("git", ["add", "."], { cwd: repo });
 * execFileSync("git", ["-c", "user.email=e@x", "-c", "user.name=e", "commit", "-qm", "init"], { cwd: repo });
 * import { createCleanTree } from "./clean_tree.ts";
 * import { removeWorktree } from "./worktree.ts";
 * const root = join(scratch, "worktrees");
 * const edit = (from: string) =>
 *   new TextEncoder().encode(`diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-${from}\n+b\n`);
 * const clean = await createCleanTree({ repo, taskId: "t", attempt: 1, patch: edit("a"), root });
 * try {
 *   deepEqual(clean.changed, ["a.txt"]);
 *   equal(readFileSync(join(clean.worktree.path, "a.txt"), "utf8"), "b\n");
 * } finally {
 *   await removeWorktree(clean.worktree);
 * }
 * await rejects(createCleanTree({ repo, taskId: "t", attempt: 2, patch: edit("zzz"), root }), {
 *   code: "apply_failed",
 * });
 * rmSync(scratch, { recursive: true, force: true });
 * ```
 */
export async function createCleanTree(opts: CleanTreeOptions): Promise<CleanTree> {
  let reused: Worktree | null = null;
  let reset: ResetReport | null = null;
  if (opts.reuse !== undefined) {
    const previous = opts.reuse.worktree;
    const sameBase = opts.base === undefined || opts.base === previous.base;
    const mark = opts.reuse.mark;
    if (sameBase && mark !== null) {
      reset = await resetTree(previous, mark, opts.signal).catch(() => null);
      if (reset !== null) reused = previous;
    }
    if (reused === null) await removeWorktree(previous);
  }
  const wt = reused ?? await createWorktree({
    repo: opts.repo,
    taskId: opts.taskId,
    attempt: opts.attempt,
    purpose: "verify",
    ...(opts.base !== undefined ? { base: opts.base } : {}),
    ...(opts.root !== undefined ? { root: opts.root } : {}),
    ...(opts.resolved !== undefined ? { resolved: opts.resolved } : {}),
  });
  try {
    const sig = opts.signal ? { signal: opts.signal } : {};
    // At the base, untouched (fresh, or just proven clean): what a later reset compares against.
    // A reset hands over the mark of the tree it proved clean (no second walk).
    const mark = opts.mark === false ? null : reset?.mark ?? await markTree(wt, opts.signal);
    const g = (args: string[]) =>
      gitChecked([...worktreeGitArgs(wt), ...args], { cwd: wt.path, timeoutMs: 120_000, ...sig });
    let changed: string[] = [];
    let applied: RawDiffEntry[] | null = [];
    if (opts.patch.length > 0) {
      const tree = { cwd: wt.path, gitArgs: worktreeGitArgs(wt), ...sig };
      const r = await applyPatch(tree, opts.patch, "index");
      if (!r.ok) {
        throw new WorktreeError(
          "apply_failed",
          `Cannot apply patch in the clean tree: ${r.detail}`,
        );
      }
      // git's own account of what it did (modes, symlinks, gitlinks), before protected
      // paths are restored: policy is judged on this, not only on what the patch states.
      applied = await readIndexChanges(tree, wt.base);
      changed = applied === null
        ? splitNul(
          (await g(["diff", "--cached", "--name-only", "-z", "--no-renames", wt.base, "--"]))
            .stdout.head,
        )
        : applied.map((e) => e.path);
    }
    const restored: string[] = [];
    if (opts.isProtected) {
      for (const path of changed) {
        if (!opts.isProtected(path)) continue;
        const inBase = await runGit(
          [...worktreeGitArgs(wt), "cat-file", "-e", `${wt.base}:${path}`],
          { cwd: wt.path, ...sig },
        );
        if (inBase.exitCode === 0) {
          await g(["checkout", wt.base, "--", path]);
        } else {
          await g(["rm", "-q", "-f", "--cached", "--", path]);
          await rm(join(wt.path, path)).catch(() => {});
        }
        restored.push(path);
      }
    }
    return { worktree: wt, changed, applied, restored, mark, reused: reused !== null };
  } catch (error) {
    await removeWorktree(wt);
    if (error instanceof WorktreeError || error instanceof PermissionError) throw error;
    throw new WorktreeError(
      "apply_failed",
      `Cannot prepare the clean tree: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}
