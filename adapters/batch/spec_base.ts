/**
 * A task's test patch as a protected spec: it is committed on top of the base
 * (without touching any checkout: a temporary index, `git apply --cached`,
 * `write-tree`, `commit-tree` with a fixed identity and date, so every machine
 * makes the same commit), kept alive under `refs/vouch/specs/`, and its paths
 * become protected globs, so a candidate that edits the spec's tests is rejected.
 *
 * @module
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyPatch } from "../git/apply_patch.ts";
import { gitChecked, GitError, splitNul } from "../git/git_checked.ts";

/** The commit the candidates of a task apply to, and the paths it protects. */
export interface SpecBase {
  /** The base plus the test patch (the base itself without one). */
  readonly commit: string;
  /** Paths the test patch touches (protected; empty without one). */
  readonly protect: readonly string[];
}

const FIXED_IDENTITY = {
  GIT_AUTHOR_NAME: "vouch batch",
  GIT_AUTHOR_EMAIL: "vouch@localhost",
  GIT_AUTHOR_DATE: "1970-01-01T00:00:00Z",
  GIT_COMMITTER_NAME: "vouch batch",
  GIT_COMMITTER_EMAIL: "vouch@localhost",
  GIT_COMMITTER_DATE: "1970-01-01T00:00:00Z",
};

/** Escapes glob metacharacters so a path matches only itself. */
function literalGlob(path: string): string {
  return path.replace(/[\\*?[\]{}!]/g, (c) => `\\${c}`);
}

/**
 * Commits `testPatch` on top of `base` in `repo` (deterministically) and
 * returns the commit and the patch's paths as protected globs. Throws a
 * `GitError` when the test patch does not apply.
 *
 * @example
 * ```ts
 * import { deepEqual, equal, notEqual } from "node:assert/strict";
 * import { execFileSync } from "node:child_process";
 * import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { commitSpec } from "./spec_base.ts";
 *
 * const repo = mkdtempSync(join(tmpdir(), "vouch-spec-example-"));
 * const git = (...args: string[]) => execFileSync("git", args, { cwd: repo }).toString().trim();
 * git("init", "-q");
 * git("config", "user.email", "e@example.invalid");
 * git("config", "user.name", "e");
 * writeFileSync(join(repo, "a.txt"), "a\n");
 * git("add", ".");
 * git("commit", "-qm", "init");
 * const base = git("rev-parse", "HEAD");
 * const testPatch = "diff --git a/t[1].txt b/t[1].txt\nnew file mode 100644\n--- /dev/null\n+++ b/t[1].txt\n@@ -0,0 +1 @@\n+t\n";
 * const spec = await commitSpec(repo, base, testPatch);
 * notEqual(spec.commit, base);
 * deepEqual(spec.protect, ["t\\[1\\].txt"]);
 * equal((await commitSpec(repo, base, testPatch)).commit, spec.commit); // deterministic
 * deepEqual(await commitSpec(repo, base, null), { commit: base, protect: [] });
 * rmSync(repo, { recursive: true, force: true });
 * ```
 */
export async function commitSpec(
  repo: string,
  base: string,
  testPatch: string | null,
): Promise<SpecBase> {
  if (testPatch === null || testPatch.trim() === "") return { commit: base, protect: [] };
  const dir = await mkdtemp(join(tmpdir(), "vouch-spec-"));
  try {
    const env = { GIT_INDEX_FILE: join(dir, "index"), ...FIXED_IDENTITY };
    await gitChecked(["read-tree", base], { cwd: repo, env });
    const applied = await applyPatch(
      { cwd: repo, env },
      new TextEncoder().encode(testPatch),
      "cached",
    );
    if (!applied.ok) {
      throw new GitError("git_failed", `Cannot apply the test patch: ${applied.detail}`);
    }
    const tree = (await gitChecked(["write-tree"], { cwd: repo, env })).stdout.head.trim();
    const commit = (await gitChecked(
      ["commit-tree", tree, "-p", base, "-m", "vouch batch: test patch (protected spec)"],
      { cwd: repo, env },
    )).stdout.head.trim();
    await gitChecked(["update-ref", `refs/vouch/specs/${commit}`, commit], { cwd: repo });
    const names = await gitChecked(
      ["diff", "--name-only", "-z", "--no-renames", base, commit],
      { cwd: repo },
    );
    return { commit, protect: splitNul(names.stdout.head).map(literalGlob) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
