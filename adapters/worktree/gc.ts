/**
 * Garbage collection of worktrees left behind by crashed or killed runs.
 * Only directories carrying a valid vouch ownership marker are ever removed.
 *
 * @module
 */
import type { Dirent } from "node:fs";
import { readdir, readFile, rm, rmdir } from "node:fs/promises";
import process from "node:process";
import { join } from "node:path";
import { z } from "zod";
import { runProcess } from "../process/run.ts";
import { pruneWorktrees, removeRegisteredWorktree } from "./_git_admin.ts";
import { defaultWorktreeRoot, repoKey } from "./location.ts";
import { processStartTime } from "../process/start_time.ts";
import { OWNER_SCHEMA } from "./worktree.ts";

const OwnerSchema = z.lazy(() =>
  z.object({
    schema: z.literal(OWNER_SCHEMA),
    repo: z.string().startsWith("/"),
    pid: z.number().int(),
    pidStart: z.string().nullable(),
  })
);

/** Options of {@linkcode gcWorktrees}. */
export interface GcOptions {
  /** Worktree root to scan (default {@linkcode defaultWorktreeRoot}). */
  readonly root?: string;
  /** Remove worktrees even when their owning process still runs. */
  readonly force?: boolean;
  /** Only report what would be removed. */
  readonly dryRun?: boolean;
  /**
   * Only the worktrees of this repository (its top-level path, as
   * `git rev-parse --show-toplevel` prints it): other repositories' trees under
   * the same root are neither removed nor listed (`vouch gc --dir`).
   */
  readonly repo?: string;
}

/** What {@linkcode gcWorktrees} did. */
export interface GcReport {
  /** Containers removed (or that would be, with `dryRun`). */
  readonly removed: readonly string[];
  /** Containers kept because their owner is still running. */
  readonly kept: readonly string[];
  /** Directories skipped because they carry no valid vouch marker. */
  readonly skipped: readonly string[];
}

/**
 * Whether the process that created a worktree still runs. On Linux, from
 * /proc (pid plus start time, so a reused pid does not count); elsewhere with
 * `kill -0` (a process we may not signal still counts as alive).
 */
export async function ownerAlive(pid: number, pidStart: string | null): Promise<boolean> {
  if (pid === process.pid) return true;
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  if (processStartTime(process.pid) !== null) {
    const start = processStartTime(pid);
    if (start === null) return false;
    return pidStart === null || start === pidStart;
  }
  const r = await runProcess({ argv: ["kill", "-0", String(pid)], cwd: "/", timeoutMs: 5000 });
  if (r.exitCode === 0) return true;
  return /not permitted|EPERM/i.test(r.stderr.head);
}

/**
 * Removes worktrees whose owning vouch process is gone (or all, with `force`),
 * including their admin entries in the repositories they belong to.
 *
 * @example
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
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
 * import { createWorktree } from "./worktree.ts";
 * import { gcWorktrees } from "./gc.ts";
 * const root = join(scratch, "worktrees");
 * const wt = await createWorktree({ repo, taskId: "t1", attempt: 1, root });
 * // Its owner (this process) is alive: kept.
 * deepEqual((await gcWorktrees({ root })).removed, []);
 * equal(existsSync(wt.path), true);
 * // force removes it anyway; dryRun would only report it.
 * equal((await gcWorktrees({ root, force: true, dryRun: true })).removed.length, 1);
 * equal(existsSync(wt.path), true);
 * equal((await gcWorktrees({ root, force: true })).removed.length, 1);
 * equal(existsSync(wt.path), false);
 * rmSync(scratch, { recursive: true, force: true });
 * ```
 */
export async function gcWorktrees(opts: GcOptions = {}): Promise<GcReport> {
  const root = opts.root ?? defaultWorktreeRoot();
  const removed: string[] = [];
  const kept: string[] = [];
  const skipped: string[] = [];
  const repos = new Set<string>();
  let repoDirs: Dirent[];
  try {
    repoDirs = await readdir(root, { withFileTypes: true });
  } catch {
    return { removed, kept, skipped };
  }
  const only = opts.repo === undefined ? null : repoKey(opts.repo);
  for (const repoDir of repoDirs) {
    if (!repoDir.isDirectory() || repoDir.isSymbolicLink()) continue;
    // Scoped to one repository: its own folder only (the key of its top-level path).
    if (only !== null && repoDir.name !== only) continue;
    const dir = join(root, repoDir.name);
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue; // removed concurrently
    }
    for (const entry of entries) {
      const container = join(dir, entry.name);
      if (!entry.isDirectory() || entry.isSymbolicLink()) {
        skipped.push(container);
        continue;
      }
      let owner: z.infer<typeof OwnerSchema>;
      try {
        const parsed = OwnerSchema.safeParse(
          JSON.parse(await readFile(join(container, "owner.json"), "utf8")),
        );
        if (!parsed.success) {
          skipped.push(container);
          continue;
        }
        owner = parsed.data;
        if (opts.repo !== undefined && owner.repo !== opts.repo) {
          skipped.push(container);
          continue;
        }
      } catch {
        skipped.push(container);
        continue;
      }
      if (!opts.force && await ownerAlive(owner.pid, owner.pidStart)) {
        kept.push(container);
        continue;
      }
      removed.push(container);
      if (opts.dryRun) continue;
      const tree = join(container, "tree");
      await removeRegisteredWorktree(owner.repo, tree);
      await rm(container, { recursive: true, force: true }).catch(() => {});
      repos.add(owner.repo);
    }
    // The per-repository folder goes too once nothing is left in it.
    if (!opts.dryRun) await rmdir(dir).catch(() => {});
  }
  for (const repo of repos) {
    await pruneWorktrees(repo);
  }
  return { removed, kept, skipped };
}
