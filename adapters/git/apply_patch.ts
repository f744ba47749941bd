/**
 * The one way vouch applies patch bytes with git, and reads back what git did.
 * `git apply` only (never `--unsafe-paths`, `--reject` or `--3way`), hardened
 * like every git call; the bytes go through a private temp file.
 *
 * @module
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseRawDiff, type RawDiffEntry } from "../../kernel/diff/raw.ts";
import { runGit } from "./hardened_git.ts";

/**
 * Where the patch goes: `index` (work tree and index, `--index`: the clean
 * verification tree), `worktree` (work tree only: a backend's worktree), or
 * `cached` (index only, `--cached`: building an integration commit).
 */
export type ApplyMode = "index" | "worktree" | "cached";

/** The exact git arguments of each {@link ApplyMode}. */
export const APPLY_ARGS: Readonly<Record<ApplyMode, readonly string[]>> = {
  index: ["apply", "--index", "--whitespace=nowarn"],
  worktree: ["apply"],
  cached: ["apply", "--cached", "--whitespace=nowarn"],
};

/** The repository or worktree a patch is applied to. */
export interface ApplyTree {
  /** Working directory of the git call. */
  readonly cwd: string;
  /** Leading git arguments (e.g. `--git-dir=... --work-tree=...`). */
  readonly gitArgs?: readonly string[];
  /** Extra environment (e.g. `GIT_INDEX_FILE`). */
  readonly env?: Readonly<Record<string, string>>;
  /** @default 120000 */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** Whether git applied the patch; when not, git's first lines of complaint. */
export type ApplyResult = { readonly ok: true } | { readonly ok: false; readonly detail: string };

/**
 * Applies patch bytes with `git apply` in the given mode. An empty patch is
 * applied trivially (git refuses empty input).
 *
 * @example
 * ```ts
 * import { deepEqual, match } from "node:assert/strict";
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
 * const patch = new TextEncoder().encode(
 *   "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n",
 * );
 * import { applyPatch } from "./apply_patch.ts";
 * deepEqual(await applyPatch({ cwd: repo }, patch, "index"), { ok: true });
 * const again = await applyPatch({ cwd: repo }, patch, "index"); // a.txt is "b" now
 * match(again.ok ? "" : again.detail, /patch does not apply/);
 * rmSync(scratch, { recursive: true, force: true });
 * ```
 */
export async function applyPatch(
  tree: ApplyTree,
  bytes: Uint8Array,
  mode: ApplyMode,
): Promise<ApplyResult> {
  if (bytes.length === 0) return { ok: true };
  const tmp = await mkdtemp(join(tmpdir(), "vouch-apply-"));
  try {
    const file = join(tmp, "patch");
    await writeFile(file, bytes, { mode: 0o600 });
    const r = await runGit([...(tree.gitArgs ?? []), ...APPLY_ARGS[mode], "--", file], {
      cwd: tree.cwd,
      timeoutMs: tree.timeoutMs ?? 120_000,
      ...(tree.env !== undefined ? { env: tree.env } : {}),
      ...(tree.signal !== undefined ? { signal: tree.signal } : {}),
    });
    if (r.exitCode === 0) return { ok: true };
    const detail = (r.stderr.head + r.stderr.tail).trim().split("\n").slice(0, 8).join("\n");
    return { ok: false, detail: detail || `git apply exited ${r.exitCode}` };
  } finally {
    await rm(tmp, { recursive: true, force: true }).catch(() => {});
  }
}

/**
 * git's own account of the index against `base`: every changed path with its
 * old and new mode (`git diff --cached --raw -z --no-renames --no-abbrev`).
 * Null when git fails or its output is not that format (callers fail closed).
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
 * const patch = new TextEncoder().encode(
 *   "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n",
 * );
 * import { applyPatch, readIndexChanges } from "./apply_patch.ts";
 * const base = execFileSync("git", ["rev-parse", "HEAD"], { cwd: repo, encoding: "utf8" }).trim();
 * await applyPatch({ cwd: repo }, patch, "index");
 * const entries = await readIndexChanges({ cwd: repo }, base);
 * deepEqual(entries?.map((e) => [e.status, e.path, e.oldMode, e.newMode]), [
 *   ["M", "a.txt", "100644", "100644"], // git's own modes, whatever the patch claimed
 * ]);
 * rmSync(scratch, { recursive: true, force: true });
 * ```
 */
export async function readIndexChanges(
  tree: ApplyTree,
  base: string,
): Promise<RawDiffEntry[] | null> {
  const r = await runGit(
    [
      ...(tree.gitArgs ?? []),
      "diff",
      "--cached",
      "--raw",
      "-z",
      "--no-renames",
      "--no-abbrev",
      "--no-ext-diff",
      "--no-textconv",
      base,
      "--",
    ],
    {
      cwd: tree.cwd,
      timeoutMs: tree.timeoutMs ?? 120_000,
      ...(tree.env !== undefined ? { env: tree.env } : {}),
      ...(tree.signal !== undefined ? { signal: tree.signal } : {}),
    },
  );
  if (r.exitCode !== 0 || r.stdout.truncated) return null;
  return parseRawDiff(r.stdout.head);
}
