/**
 * Where `vouch verify` (and `vouch gc`) find the repository: its top level,
 * common git dir and the base's full commit id. Remembered per process for a
 * real directory (`vouch batch` verifies many patches against one base: one
 * lookup instead of two git calls per patch), bounded, and looked up again
 * when the git dir is gone; a symbolic revision (`HEAD`) is always resolved
 * afresh.
 *
 * @module
 */
import { realpath, stat } from "node:fs/promises";
import { permissionDenied } from "../process/permission.ts";
import { GitError } from "./git_checked.ts";
import { runGit } from "./hardened_git.ts";
import { resolveCommit } from "./repo_info.ts";

/** A located repository: what verification needs of it, resolved once. */
export interface LocatedRepo {
  /** Absolute, symlink-resolved top level of the checkout. */
  readonly top: string;
  /** Absolute path of the common git directory (`.git`). */
  readonly commonDir: string;
  /** Full commit id the base revision resolves to. */
  readonly base: string;
}

/**
 * Repositories located in this process (real directory -> top level and common
 * git dir) and the full commit ids verified in each. Bounded; an entry whose
 * git dir is gone is looked up again.
 */
const located = new Map<string, { top: string; commonDir: string; commits: Set<string> }>();
const MAX_LOCATED = 64;
const FULL_COMMIT = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * The repository `dir` is in, with `rev` resolved, in two git calls (or
 * fewer, when this process located it before); throws {@linkcode GitError}
 * `not_a_repo` / `bad_rev`, or a `PermissionError` when git cannot start.
 *
 * @example
 * ```ts
 * import { equal, match, rejects } from "node:assert/strict";
 * import { execFileSync } from "node:child_process";
 * import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { locateRepo } from "./locate_repo.ts";
 * const scratch = realpathSync(mkdtempSync(join(tmpdir(), "vouch-example-")));
 * const repo = join(scratch, "repo");
 * execFileSync("git", ["init", "-q", repo]);
 * writeFileSync(join(repo, "a.txt"), "a\n");
 * execFileSync("git", ["add", "."], { cwd: repo });
 * execFileSync("git", ["-c", "user.email=e@x", "-c", "user.name=e", "commit", "-qm", "init"], { cwd: repo });
 * const found = await locateRepo(repo, "HEAD");
 * equal(found.top, repo);
 * match(found.base, /^[0-9a-f]{40}$/);
 * await rejects(locateRepo(scratch, "HEAD"), { code: "not_a_repo" });
 * rmSync(scratch, { recursive: true, force: true });
 * ```
 */
export async function locateRepo(dir: string, rev: string): Promise<LocatedRepo> {
  const abs = await realpath(dir).catch(() => null);
  const remembered = abs === null ? undefined : located.get(abs);
  const known = remembered !== undefined && await exists(remembered.commonDir)
    ? remembered
    : await locateUncached(dir, abs);
  const full = FULL_COMMIT.test(rev);
  const base = full && known.commits.has(rev) ? rev : await resolveCommit(known.top, rev);
  if (full) known.commits.add(base);
  return { top: known.top, commonDir: known.commonDir, base };
}

async function exists(path: string): Promise<boolean> {
  return await stat(path).then(() => true, () => false);
}

/** Asks git for the top level and common git dir of `dir` (`abs`: its real path) and remembers them. */
async function locateUncached(
  dir: string,
  abs: string | null,
): Promise<{ top: string; commonDir: string; commits: Set<string> }> {
  let top: string | undefined;
  let commonDir: string | undefined;
  try {
    const r = await runGit(
      ["rev-parse", "--show-toplevel", "--path-format=absolute", "--git-common-dir"],
      { cwd: abs ?? await realpath(dir) },
    );
    if (r.exitCode === 0) [top, commonDir] = r.stdout.head.split("\n");
  } catch (error) {
    // A refused permission (git cannot start, the directory cannot be read) is not "not a repo".
    const denied = permissionDenied(error);
    if (denied !== null) throw denied;
    top = undefined;
  }
  if (!top || !commonDir) {
    throw new GitError("not_a_repo", `Cannot use ${dir}: not inside a git work tree`);
  }
  const found = { top: await realpath(top), commonDir, commits: new Set<string>() };
  if (abs !== null) {
    if (located.size >= MAX_LOCATED) located.delete(located.keys().next().value!);
    located.set(abs, found);
  }
  return found;
}
