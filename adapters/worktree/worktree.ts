/**
 * Creating and removing one throwaway git worktree per task and attempt.
 *
 * @module
 */
import {
  chmod,
  copyFile,
  mkdir,
  readdir,
  readFile,
  realpath,
  rm,
  rmdir,
  stat,
  utimes,
  writeFile,
} from "node:fs/promises";
import process from "node:process";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { runGit } from "../git/hardened_git.ts";
import { processStartTime } from "../process/start_time.ts";
import { resolveCommit } from "../git/locate_repo.ts";
import { WorktreeError } from "./errors.ts";
import { addDetachedWorktree, pruneWorktrees, removeRegisteredWorktree } from "./_git_admin.ts";
import { trackTree, untrackTree } from "./live_trees.ts";
import { defaultWorktreeRoot, repoKey, TASK_ID_PATTERN, worktreeRootProblem } from "./location.ts";

/** Marker `schema` value in `owner.json`. */
export const OWNER_SCHEMA = "vouch.worktree/v1";

/** What `owner.json` records about who created a worktree. */
export interface WorktreeOwner {
  readonly schema: typeof OWNER_SCHEMA;
  /** Absolute top level of the repository the worktree belongs to. */
  readonly repo: string;
  /** The task the worktree is for. */
  readonly taskId: string;
  /** The attempt the worktree is for. */
  readonly attempt: number;
  /** What the worktree is for: the agent's work or a clean verification. */
  readonly purpose: WorktreePurpose;
  readonly base: string;
  /** Process id of the vouch process that created it. */
  readonly pid: number;
  /** Start time of that process (from /proc), to tell a reused pid apart; null if unknown. */
  readonly pidStart: string | null;
  /** ISO time of creation. */
  readonly createdAt: string;
}

/** `work`: where a backend works; `verify`: the clean re-verification tree. */
export type WorktreePurpose = "work" | "verify";

/** A live worktree created by {@linkcode createWorktree}. */
export interface Worktree {
  /** Absolute top level of the user's repository. */
  readonly repo: string;
  /** Absolute path of the checkout (the worktree itself). */
  readonly path: string;
  /** The vouch-owned directory holding `owner.json` and the checkout. */
  readonly container: string;
  /** Absolute path of this worktree's private git directory (inside the repo's `.git/worktrees/`). */
  readonly gitDir: string;
  /** Full commit id of the base. */
  readonly base: string;
  /** The task the worktree belongs to. */
  readonly taskId: string;
  /** The attempt number (a task may create several worktrees). */
  readonly attempt: number;
  /** What the worktree is for (`work`: the backend edits it; `verify`: a clean tree for checks). */
  readonly purpose: WorktreePurpose;
}

/** Options of {@linkcode createWorktree}. */
export interface CreateWorktreeOptions {
  /** The user's repository (any directory inside it). */
  readonly repo: string;
  readonly taskId: string;
  readonly attempt: number;
  /** Base revision (default `HEAD`). */
  readonly base?: string;
  /** Worktree root (default {@linkcode defaultWorktreeRoot}). */
  readonly root?: string;
  /** Default `work`. */
  readonly purpose?: WorktreePurpose;
  /**
   * The repository's top level (real path) and the base's full commit id,
   * already resolved by the caller (the clean verifier knows both): they are
   * used as given instead of being asked of git again.
   */
  readonly resolved?: { readonly top: string; readonly base: string };
}

/** Re-exported where the worktree module's users have found it. */
export { processStartTime };

async function repoTop(dir: string): Promise<string> {
  const r = await runGit(["rev-parse", "--show-toplevel"], { cwd: resolve(dir) });
  if (r.exitCode !== 0) {
    throw new WorktreeError(
      "create_failed",
      `Cannot create worktree: ${dir} is not a git work tree`,
    );
  }
  return await realpath(r.stdout.head.trim());
}

function isInside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * Creates a detached worktree of `base` in a vouch-owned directory outside the
 * repository (`git worktree add --detach`), with an ownership marker next to
 * it. The user's checkout and its uncommitted changes are not touched.
 *
 * @example
 * ```ts
 * import { equal, ok } from "node:assert/strict";
 * import { existsSync } from "node:fs";
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
 * const root = join(scratch, "worktrees"); // outside the repository
 * import { createWorktree, removeWorktree } from "./worktree.ts";
 * const wt = await createWorktree({ repo, taskId: "t1", attempt: 1, root });
 * try {
 *   ok(wt.path.startsWith(root));
 *   equal(existsSync(join(wt.path, "a.txt")), true);
 *   equal(wt.base.length, 40); // the full commit id of HEAD
 * } finally {
 *   await removeWorktree(wt);
 * }
 * rmSync(scratch, { recursive: true, force: true });
 * ```
 */
export async function createWorktree(opts: CreateWorktreeOptions): Promise<Worktree> {
  if (!TASK_ID_PATTERN.test(opts.taskId)) {
    throw new WorktreeError(
      "bad_task_id",
      `Cannot create worktree: bad task id ${JSON.stringify(opts.taskId)}`,
    );
  }
  if (!Number.isSafeInteger(opts.attempt) || opts.attempt < 1) {
    throw new WorktreeError("bad_task_id", `Cannot create worktree: bad attempt ${opts.attempt}`);
  }
  const repo = opts.resolved?.top ?? await repoTop(opts.repo);
  const purpose = opts.purpose ?? "work";
  const rootInput = resolve(opts.root ?? defaultWorktreeRoot());
  await mkdir(rootInput, { recursive: true, mode: 0o700 });
  const problem = opts.root === undefined ? worktreeRootProblem(rootInput) : null;
  if (problem !== null) throw new WorktreeError("create_failed", problem);
  const root = await realpath(rootInput);
  if (isInside(root, repo) || isInside(repo, root)) {
    throw new WorktreeError(
      "inside_repo",
      `Cannot create worktree: root ${root} must be outside the repository ${repo}`,
    );
  }
  const base = opts.resolved?.base ?? await resolveCommit(repo, opts.base ?? "HEAD");
  const repoDir = join(root, repoKey(repo));
  const container = join(
    repoDir,
    `${opts.taskId}-${opts.attempt}${purpose === "verify" ? "-verify" : ""}`,
  );
  for (let attempt = 0;; attempt++) {
    await mkdir(repoDir, { recursive: true, mode: 0o700 });
    try {
      await mkdir(container, { mode: 0o700 });
      break;
    } catch (error) {
      const code = (error as { code?: string } | null)?.code;
      if (code === "EEXIST") {
        throw new WorktreeError("exists", `Cannot create worktree: ${container} already exists`);
      }
      // The last tree of this repository was removed in between, and its emptied folder with it.
      if (code === "ENOENT" && attempt < 3) continue;
      throw new WorktreeError("create_failed", `Cannot create worktree: ${String(error)}`);
    }
  }
  const owner: WorktreeOwner = {
    schema: OWNER_SCHEMA,
    repo,
    taskId: opts.taskId,
    attempt: opts.attempt,
    purpose,
    base,
    pid: process.pid,
    pidStart: processStartTime(process.pid),
    createdAt: new Date().toISOString(),
  };
  await writeFile(join(container, "owner.json"), JSON.stringify(owner, null, 2) + "\n");
  const path = join(container, "tree");
  trackTree({ repo, path, container });
  try {
    // Hardened git: the checkout runs no hooks (post-checkout) and no fsmonitor.
    await addDetachedWorktree(repo, path, base);
    const gitDir = await readGitDirFile(path);
    // The checkout's own index (stat data of every file) kept where the worker cannot reach:
    // extraction starts from it and re-reads only files whose stat data moved.
    if (purpose === "work") await keepIndexCopy(join(gitDir, "index"), baseIndexPath(container));
    return {
      repo,
      path,
      container,
      gitDir,
      base,
      taskId: opts.taskId,
      attempt: opts.attempt,
      purpose,
    };
  } catch (error) {
    await forceRemove(repo, path, container);
    throw new WorktreeError(
      "create_failed",
      `Cannot create worktree: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/**
 * Where a `work` worktree's index as checked out is kept (beside the tree, in
 * the vouch-owned container the worker never sees).
 */
export function baseIndexPath(container: string): string {
  return join(container, "base.index");
}

/** Copies an index file keeping its mtime (git's racy-entry check compares against it). */
export async function keepIndexCopy(from: string, to: string): Promise<void> {
  await copyFile(from, to);
  const info = await stat(from);
  await utimes(to, info.atime, info.mtime);
}

/** Reads the absolute private git dir of a fresh linked worktree from its `.git` file. */
async function readGitDirFile(path: string): Promise<string> {
  const text = await readFile(join(path, ".git"), "utf8");
  const dir = /^gitdir: (.+)$/m.exec(text)?.[1]?.trim();
  if (dir === undefined || !isAbsolute(dir)) {
    throw new WorktreeError(
      "create_failed",
      `Cannot create worktree: unexpected .git file in ${path}`,
    );
  }
  return dir;
}

async function forceRemove(repo: string, path: string, container: string): Promise<void> {
  const removed = await removeRegisteredWorktree(repo, path);
  if (!removed) {
    // An agent may have left read-only directories behind: make them writable, then delete.
    await chmodWritable(path).catch(() => {});
  }
  await rm(container, { recursive: true, force: true }).catch(() => {});
  // When git could not remove it, its admin entry is stale now the directory is gone.
  if (!removed) await pruneWorktrees(repo);
  untrackTree(container);
  // The per-repository folder goes with its last tree (rmdir refuses a non-empty one).
  await rmdir(dirname(container)).catch(() => {});
}

/**
 * Removes a worktree, its git admin entry and its container. Idempotent;
 * never throws (removal happens on success, failure and kill paths alike).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { existsSync } from "node:fs";
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
 * const root = join(scratch, "worktrees"); // outside the repository
 * import { createWorktree, removeWorktree } from "./worktree.ts";
 * const wt = await createWorktree({ repo, taskId: "t1", attempt: 1, root });
 * await removeWorktree(wt);
 * await removeWorktree(wt); // idempotent
 * equal(existsSync(wt.container), false);
 * rmSync(scratch, { recursive: true, force: true });
 * ```
 */
export async function removeWorktree(wt: Worktree): Promise<void> {
  await forceRemove(wt.repo, wt.path, wt.container);
}

async function chmodWritable(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory() && !entry.isSymbolicLink()) {
      await chmod(p, 0o700).catch(() => {});
      await chmodWritable(p);
    }
  }
}

/**
 * Creates a worktree, runs `fn` with it and always removes it afterwards.
 *
 * @example
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * import { existsSync, readdirSync } from "node:fs";
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
 * const root = join(scratch, "worktrees"); // outside the repository
 * import { withWorktree } from "./worktree.ts";
 * let path = "";
 * const files = await withWorktree({ repo, taskId: "t", attempt: 1, root }, (wt) => {
 *   path = wt.path;
 *   return readdirSync(wt.path).sort();
 * });
 * deepEqual(files, [".git", "a.txt"]);
 * equal(existsSync(path), false); // removed afterwards
 * rmSync(scratch, { recursive: true, force: true });
 * ```
 */
export async function withWorktree<T>(
  opts: CreateWorktreeOptions,
  fn: (wt: Worktree) => Promise<T> | T,
): Promise<T> {
  const wt = await createWorktree(opts);
  try {
    return await fn(wt);
  } finally {
    await removeWorktree(wt);
  }
}
