/**
 * Where `vouch verify` finds the repository: its top level, common git dir
 * and the base's full commit id. Remembered per process for a real directory
 * (`vouch batch` verifies many patches against one base: one lookup instead
 * of two git calls per patch), bounded, and looked up again when the git dir
 * is gone; a symbolic revision (`HEAD`) is always resolved afresh.
 *
 * @module
 */
import { realpath, stat } from "node:fs/promises";
import { resolveCommit } from "../git/repo_info.ts";
import { gitChecked, GitError } from "../git/git_checked.ts";
import { permissionDenied } from "../process/permission.ts";

/**
 * Repositories located in this process (real directory -> top level and common
 * git dir) and the full commit ids verified in each (`vouch batch` verifies
 * many patches against one base: one lookup, not two git calls per patch).
 * Bounded; an entry whose git dir is gone is looked up again.
 */
const located = new Map<string, { top: string; commonDir: string; commits: Set<string> }>();
const MAX_LOCATED = 64;
const FULL_COMMIT = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** The repository's top level, common git dir and resolved base, in two git calls (or none). */
export async function locateRepo(
  dir: string,
  rev: string,
): Promise<{ top: string; commonDir: string; base: string }> {
  const abs = await realpath(dir).catch(() => null);
  const known = abs === null ? undefined : located.get(abs);
  if (known !== undefined && await exists(known.commonDir)) {
    if (FULL_COMMIT.test(rev) && known.commits.has(rev)) return { ...known, base: rev };
    const base = await resolveCommit(known.top, rev);
    if (FULL_COMMIT.test(rev)) known.commits.add(base);
    return { top: known.top, commonDir: known.commonDir, base };
  }
  const found = await locateUncached(dir, rev);
  if (abs !== null) {
    if (located.size >= MAX_LOCATED) located.delete(located.keys().next().value!);
    located.set(abs, {
      top: found.top,
      commonDir: found.commonDir,
      commits: new Set(FULL_COMMIT.test(rev) ? [found.base] : []),
    });
  }
  return found;
}

async function exists(path: string): Promise<boolean> {
  return await stat(path).then(() => true, () => false);
}

async function locateUncached(
  dir: string,
  rev: string,
): Promise<{ top: string; commonDir: string; base: string }> {
  let top: string | undefined;
  let commonDir: string | undefined;
  try {
    const abs = await realpath(dir);
    const r = await gitChecked(
      ["rev-parse", "--show-toplevel", "--path-format=absolute", "--git-common-dir"],
      { cwd: abs },
    );
    [top, commonDir] = r.stdout.head.split("\n");
  } catch (error) {
    // A refused permission (git cannot start, the directory cannot be read) is not "not a repo".
    const denied = permissionDenied(error);
    if (denied !== null) throw denied;
    top = undefined;
  }
  if (!top || !commonDir) {
    throw new GitError("not_a_repo", `Cannot use ${dir}: not inside a git work tree`);
  }
  const realTop = await realpath(top);
  return { top: realTop, commonDir, base: await resolveCommit(realTop, rev) };
}
