/**
 * A one-commit repository for CLI tests: `root/repo` (`a.txt` is `1`) and
 * `root/fix.patch` setting it to `2`.
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const PATCH = "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-1\n+2\n";

/** A repository `root/repo` with one commit (`a.txt` is `1`) and `root/fix.patch` setting it to 2. */
export function oneCommitRepo(root: string): { repo: string; patch: string } {
  const repo = join(root, "repo");
  execFileSync("git", ["init", "-q", "-b", "main", repo]);
  writeFileSync(join(repo, "a.txt"), "1\n");
  execFileSync("git", ["add", "."], { cwd: repo });
  execFileSync("git", ["-c", "user.email=a@b.invalid", "-c", "user.name=a", "commit", "-qm", "x"], {
    cwd: repo,
  });
  const patch = join(root, "fix.patch");
  writeFileSync(patch, PATCH);
  return { repo, patch };
}
