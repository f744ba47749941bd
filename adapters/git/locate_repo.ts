/**
 * Where vouch finds the user's repository (`vouch run`, `verify`, `gc`): its
 * top level, common git dir and the base's full commit id (`resolveCommit`);
 * for `vouch run`, whether the checkout is dirty (`readRepoInfo`). Remembered
 * per process for a real directory (`vouch batch` verifies many patches
 * against one base: one lookup instead of two git calls per patch), bounded,
 * and looked up again when the git dir is gone; a symbolic revision (`HEAD`)
 * is always resolved afresh.
 *
 * @module
 */
import { realpath, stat } from "node:fs/promises";
import { permissionDenied } from "../process/permission.ts";
import { gitChecked, GitError, splitNul } from "./git_checked.ts";
import { runGit } from "./hardened_git.ts";

/** A located repository: what a run or a verification needs of it, resolved once. */
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
  let cwd = abs;
  if (cwd === null) {
    try {
      cwd = await realpath(dir);
    } catch (error) {
      const denied = permissionDenied(error);
      if (denied !== null) throw denied;
      throw new GitError("not_a_repo", `Cannot use ${dir}: no such directory`);
    }
  }
  let top: string | undefined;
  let commonDir: string | undefined;
  try {
    const r = await runGit(
      ["rev-parse", "--show-toplevel", "--path-format=absolute", "--git-common-dir"],
      { cwd },
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

/**
 * Resolves a revision to a full commit id in `repo`; throws {@linkcode GitError} `bad_rev`.
 *
 * @example
 * ```ts
 * import { match, rejects } from "node:assert/strict";
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
 * import { resolveCommit } from "./locate_repo.ts";
 * match(await resolveCommit(repo, "HEAD"), /^[0-9a-f]{40}$/);
 * await rejects(resolveCommit(repo, "no-such-branch"), { code: "bad_rev" });
 * await rejects(resolveCommit(repo, "--output=x"), { code: "bad_rev" }); // never an option
 * const empty = join(scratch, "empty");
 * execFileSync("git", ["init", "-q", empty]);
 * await rejects(resolveCommit(empty, "HEAD"), /has no commit yet/);
 * rmSync(scratch, { recursive: true, force: true });
 * ```
 */
export async function resolveCommit(repo: string, rev: string): Promise<string> {
  if (rev.startsWith("-")) throw new GitError("bad_rev", `Cannot resolve revision: ${rev}`);
  const r = await runGit([
    "rev-parse",
    "--verify",
    "--quiet",
    "--end-of-options",
    `${rev}^{commit}`,
  ], {
    cwd: repo,
  });
  const sha = r.stdout.head.trim();
  if (r.exitCode !== 0 || !/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(sha)) {
    // The default base of a repository with no commit yet: say that, not "HEAD" (never typed).
    const any = rev === "HEAD"
      ? await runGit(["rev-list", "-n", "1", "--all"], { cwd: repo })
      : null;
    if (any !== null && any.exitCode === 0 && any.stdout.head.trim() === "") {
      throw new GitError(
        "bad_rev",
        `Cannot verify in ${repo}: the repository has no commit yet (a patch is judged against ` +
          "a commit: commit the base first)",
      );
    }
    throw new GitError(
      "bad_rev",
      `Cannot resolve revision ${JSON.stringify(rev)} to a commit in ${repo}`,
    );
  }
  return sha;
}

/** The user's repository as vouch sees it. */
export interface RepoInfo extends LocatedRepo {
  /** The revision as given (e.g. `HEAD`). */
  readonly baseRev: string;
  /** Number of paths with uncommitted changes (including untracked files). */
  readonly dirtyPaths: number;
  /** A user-facing note when the checkout is dirty, else null. */
  readonly dirtyMessage: string | null;
}

/**
 * Inspects the repository containing `dir`: where it is and its base, as
 * {@linkcode locateRepo} finds them, and whether the checkout is dirty.
 * Throws {@linkcode GitError} `not_a_repo` / `bad_rev`.
 *
 * @example
 * ```ts
 * import { equal, match, rejects } from "node:assert/strict";
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
 * import { readRepoInfo } from "./locate_repo.ts";
 * writeFileSync(join(repo, "a.txt"), "uncommitted\n");
 * const info = await readRepoInfo(repo, "HEAD");
 * match(info.base, /^[0-9a-f]{40}$/);
 * equal(info.dirtyPaths, 1);
 * match(info.dirtyMessage!, /uncommitted changes in 1 path/);
 * await rejects(readRepoInfo(scratch), { code: "not_a_repo" });
 * rmSync(scratch, { recursive: true, force: true });
 * ```
 */
export async function readRepoInfo(dir: string, baseRev = "HEAD"): Promise<RepoInfo> {
  const { top, commonDir, base } = await locateRepo(dir, baseRev);
  const status = await gitChecked(
    ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignore-submodules=none"],
    { cwd: top },
  );
  const dirtyPaths = splitNul(status.stdout.head).filter((e) => /^[ MADRCU?!]{2} /.test(e)).length;
  const dirtyMessage = dirtyPaths === 0
    ? null
    : `Note: the checkout has uncommitted changes in ${dirtyPaths} path${
      dirtyPaths === 1 ? "" : "s"
    }; they are not part of the base ${
      base.slice(0, 12)
    } (${baseRev}) and vouch will not touch them.`;
  return { top, commonDir, base, baseRev, dirtyPaths, dirtyMessage };
}
