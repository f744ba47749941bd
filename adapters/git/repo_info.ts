/**
 * What vouch needs to know about the user's repository before it starts:
 * its top level, the base commit, and whether the checkout is dirty (and so
 * differs from the base vouch will use).
 *
 * @module
 */
import { realpath } from "node:fs/promises";
import { gitChecked, GitError, splitNul } from "./git_checked.ts";
import { runGit } from "./hardened_git.ts";

/** The user's repository as vouch sees it. */
export interface RepoInfo {
  /** Absolute, symlink-resolved top level of the checkout. */
  readonly top: string;
  /** Absolute path of the common git directory (`.git`). */
  readonly commonDir: string;
  /** Full commit id the base revision resolves to. */
  readonly base: string;
  /** The revision as given (e.g. `HEAD`). */
  readonly baseRev: string;
  /** Number of paths with uncommitted changes (including untracked files). */
  readonly dirtyPaths: number;
  /** A user-facing note when the checkout is dirty, else null. */
  readonly dirtyMessage: string | null;
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
 * import { resolveCommit } from "./repo_info.ts";
 * match(await resolveCommit(repo, "HEAD"), /^[0-9a-f]{40}$/);
 * await rejects(resolveCommit(repo, "no-such-branch"), { code: "bad_rev" });
 * await rejects(resolveCommit(repo, "--output=x"), { code: "bad_rev" }); // never an option
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
    throw new GitError(
      "bad_rev",
      `Cannot resolve revision ${JSON.stringify(rev)} to a commit in ${repo}`,
    );
  }
  return sha;
}

/**
 * Inspects the repository containing `dir`: top level, base commit and dirtiness.
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
 * import { readRepoInfo } from "./repo_info.ts";
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
  let absDir: string;
  try {
    absDir = await realpath(dir);
  } catch {
    throw new GitError("not_a_repo", `Cannot use ${dir}: no such directory`);
  }
  const probe = await runGit(
    ["rev-parse", "--show-toplevel", "--path-format=absolute", "--git-common-dir"],
    { cwd: absDir },
  );
  if (probe.exitCode !== 0) {
    throw new GitError("not_a_repo", `Cannot use ${dir}: not inside a git work tree`);
  }
  const [topRaw, commonRaw] = probe.stdout.head.split("\n");
  if (!topRaw || !commonRaw) {
    throw new GitError("not_a_repo", `Cannot use ${dir}: not inside a git work tree`);
  }
  const top = await realpath(topRaw);
  const base = await resolveCommit(top, baseRev);
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
  return { top, commonDir: commonRaw, base, baseRev, dirtyPaths, dirtyMessage };
}
