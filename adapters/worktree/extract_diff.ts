/**
 * Diff extraction that trusts the worktree, never the worker: everything in
 * the worktree is staged into a temporary index (`GIT_INDEX_FILE`, starting
 * from the base tree) and diffed against the base commit with hardened flags.
 * For a `work` worktree the temporary index starts as a copy of the index as
 * checked out (kept in the vouch-owned container, out of the worker's reach),
 * so `git add -A` re-reads only files whose stat data (size, inode, mtime,
 * ctime) moved instead of hashing the whole repository every round.
 * git is pointed at the worktree's real git directory explicitly, so a `.git`
 * file the worker rewrote cannot redirect it.
 *
 * @module
 */
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sha256Hex } from "../digest/sha256.ts";
import { gitChecked, splitNul } from "../git/git_checked.ts";
import { WorktreeError } from "./errors.ts";
import { baseIndexPath, keepIndexCopy, type Worktree } from "./worktree.ts";

/** The flags of the authoritative diff (after `diff --cached`). */
export const EXTRACT_DIFF_FLAGS: readonly string[] = [
  "--binary",
  "--full-index",
  "--no-ext-diff",
  "--no-textconv",
  "--no-color",
  "--no-renames",
  "--src-prefix=a/",
  "--dst-prefix=b/",
  "--ignore-submodules=none",
];

/**
 * Python bytecode and compiled modules are never part of an extracted diff:
 * running the tests writes bytecode next to the source (`__pycache__/`), an
 * in-place build (`build_ext --inplace`) writes `*.so`, and a patch may not
 * carry either (`DEFAULT_FORBID`), so a repository that does not ignore them
 * would otherwise see every honest round refused. Excluded from staging, each
 * stays as the base has it.
 */
export const EXTRACT_EXCLUDE_PATHSPECS: readonly string[] = [
  ":(exclude,glob)**/__pycache__/**",
  ":(exclude,glob)**/*.pyc",
  ":(exclude,glob)**/*.pyo",
  ":(exclude,glob)**/*.so",
  ":(exclude,glob)**/*.pyd",
];

/** Config that makes git's stat cache compare ctime, inode and size as well. */
const STRICT_STAT = [
  "-c",
  "core.trustctime=true",
  "-c",
  "core.checkStat=default",
  "-c",
  "core.ignoreStat=false",
];

/** Where the previous extraction's staging index is kept (in the worktree's container). */
function extractIndexPath(container: string): string {
  return join(container, "extract.index");
}

/** One changed path as git lists it (`--name-status -z --no-renames`). */
export interface ChangedPath {
  /** `A`, `M`, `D`, `T` (type change). */
  readonly status: string;
  /** Repository-relative path (raw bytes decoded as UTF-8). */
  readonly path: string;
}

/** The real diff of a worktree against its base. */
export interface ExtractedDiff {
  /** Exact bytes of `git diff --cached --binary --full-index ... <base>`. */
  readonly bytes: Uint8Array;
  /** `sha256:<hex>` of `bytes`. */
  readonly digest: string;
  /** The base commit the diff is relative to. */
  readonly base: string;
  /** Authoritative changed-path list. */
  readonly changed: readonly ChangedPath[];
}

/** Options of {@linkcode extractDiff}. */
export interface ExtractDiffOptions {
  /** Refuse patches larger than this (default 32 MiB): `patch_too_large`. */
  readonly maxBytes?: number;
  /** Abort signal (e.g. the run's deadline). */
  readonly signal?: AbortSignal;
}

/** Hardened git arguments addressing a worktree through its real git dir. */
export function worktreeGitArgs(wt: Worktree): string[] {
  return [`--git-dir=${wt.gitDir}`, `--work-tree=${wt.path}`, "--no-replace-objects"];
}

/**
 * Extracts the real diff of everything in the worktree (tracked changes,
 * deletions, new untracked files; ignored files excluded) against the base.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
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
 * import { extractDiff } from "./extract_diff.ts";
 * const wt = await createWorktree({ repo, taskId: "t1", attempt: 1, root });
 * writeFileSync(join(wt.path, "b.txt"), "new, untracked\n");
 * const diff = await extractDiff(wt);
 * deepEqual(diff.changed, [{ status: "A", path: "b.txt" }]);
 * await removeWorktree(wt);
 * rmSync(scratch, { recursive: true, force: true });
 * ```
 */
export async function extractDiff(
  wt: Worktree,
  opts: ExtractDiffOptions = {},
): Promise<ExtractedDiff> {
  const maxBytes = opts.maxBytes ?? 32 * 1024 * 1024;
  const tmp = await mkdtemp(join(tmpdir(), "vouch-extract-"));
  try {
    const env = { GIT_INDEX_FILE: join(tmp, "index") };
    const g = (args: string[]) =>
      gitChecked([...worktreeGitArgs(wt), ...args], {
        cwd: wt.path,
        env,
        timeoutMs: 120_000,
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
    try {
      const previous = extractIndexPath(wt.container);
      if (wt.purpose === "work" && await exists(previous)) {
        // The previous extraction's own index (vouch's, kept with its mtime so git's racy-entry
        // checks hold): `read-tree --reset` makes its entries the base tree again and keeps the stat
        // data where the blob is the base's, so only files whose stat data moved are read. The
        // checkout's index (base.index) cannot serve every round: its entries written in the
        // index's last second are racily clean and read again at every extraction.
        await keepIndexCopy(previous, env.GIT_INDEX_FILE);
        await g(["read-tree", "--reset", wt.base]);
      } else if (wt.purpose === "work" && await exists(baseIndexPath(wt.container))) {
        // The index as checked out (stat data included): only files whose stat data moved
        // are read again; the worker never had access to this copy.
        await keepIndexCopy(baseIndexPath(wt.container), env.GIT_INDEX_FILE);
      } else {
        await g(["read-tree", wt.base]);
      }
      // git trusts stat data only where ctime, inode and size agree too, whatever the
      // repository's config says.
      await g([...STRICT_STAT, "add", "-A", "--", ".", ...EXTRACT_EXCLUDE_PATHSPECS]);
      if (wt.purpose === "work") await keepIndexCopy(env.GIT_INDEX_FILE, previous);
      const patchFile = join(tmp, "patch");
      await g(["diff", "--cached", ...EXTRACT_DIFF_FLAGS, `--output=${patchFile}`, wt.base, "--"]);
      const info = await stat(patchFile);
      if (info.size > maxBytes) {
        throw new WorktreeError(
          "patch_too_large",
          `Cannot extract diff: ${info.size} bytes exceeds the limit of ${maxBytes}`,
        );
      }
      const bytes = new Uint8Array(await readFile(patchFile));
      const names = await g(nameStatusArgs(wt.base));
      return {
        bytes,
        digest: sha256Hex(bytes),
        base: wt.base,
        changed: nameStatusPairs(names.stdout.head),
      };
    } catch (error) {
      if (error instanceof WorktreeError) throw error;
      throw new WorktreeError(
        "extract_failed",
        `Cannot extract diff: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  } finally {
    await rm(tmp, { recursive: true, force: true }).catch(() => {});
  }
}

async function exists(path: string): Promise<boolean> {
  return await stat(path).then(() => true, () => false);
}

/** The changed-path listing of a temporary index against the base. */
function nameStatusArgs(base: string): string[] {
  return ["diff", "--cached", "--name-status", "-z", "--no-renames", "--no-ext-diff", base, "--"];
}

/** Pairs of `--name-status -z` output. */
function nameStatusPairs(out: string): ChangedPath[] {
  const parts = splitNul(out);
  const changed: ChangedPath[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    changed.push({ status: parts[i]!, path: parts[i + 1]! });
  }
  return changed;
}
