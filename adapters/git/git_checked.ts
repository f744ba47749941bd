/**
 * Hardened git invocations that must succeed: a non-zero exit becomes a
 * {@linkcode GitError} with a stable code and git's stderr tail.
 *
 * @module
 */
import { VouchError } from "../../kernel/errors/mod.ts";
import { runGit, type RunGitOptions } from "./hardened_git.ts";
import type { ProcessResult } from "../process/types.ts";

/** Stable codes of {@linkcode GitError}. */
export type GitErrorCode = "not_a_repo" | "bad_rev" | "git_failed" | "git_timeout";

/**
 * A git operation vouch needed did not succeed.
 *
 * @example
 * ```ts
 * import { GitError } from "./git_checked.ts";
 * const e = new GitError("bad_rev", "Cannot resolve revision: nope");
 * if (e.code !== "bad_rev") throw new Error();
 * ```
 */
export class GitError extends VouchError<GitErrorCode> {
  constructor(code: GitErrorCode, message: string) {
    super(code, message);
  }
}

function tail(text: string, max = 600): string {
  const t = text.trim();
  return t.length <= max ? t : "…" + t.slice(t.length - max);
}

/**
 * Runs hardened git and throws {@linkcode GitError} (`git_failed` or
 * `git_timeout`) unless it exits 0.
 *
 * @example
 * ```ts
 * import { gitChecked } from "./git_checked.ts";
 * const r = await gitChecked(["--version"], { cwd: "/" });
 * if (!r.stdout.head.startsWith("git version")) throw new Error();
 * ```
 */
export async function gitChecked(
  args: readonly string[],
  opts: RunGitOptions,
): Promise<ProcessResult> {
  const r = await runGit(args, opts);
  if (r.timedOut) {
    throw new GitError("git_timeout", `Cannot run git ${args[0] ?? ""}: timed out`);
  }
  if (r.spawnError !== null) {
    throw new GitError("git_failed", `Cannot run git: ${r.spawnError.message}`);
  }
  if (r.exitCode !== 0) {
    throw new GitError(
      "git_failed",
      `Cannot run git ${
        args.filter((a) => !a.startsWith("--git-dir") && !a.startsWith("--work-tree"))[0] ?? ""
      }: exit ${r.exitCode}: ${tail(r.stderr.head + r.stderr.tail)}`,
    );
  }
  return r;
}

/** Splits NUL-terminated git output (`-z`) into its entries. */
export function splitNul(text: string): string[] {
  const parts = text.split("\0");
  if (parts.at(-1) === "") parts.pop();
  return parts;
}
