/**
 * The write budget of a sandboxed child's tree: its worktree (a clean tree,
 * an agent's worktree) is a host directory, where per-file `RLIMIT_FSIZE`
 * bounds each file but not how many. Right before the child vouch writes a
 * stamp file; after it, `find -cnewer` lists every file of the tree whose
 * status changed since (ctime: a child can set a file's mtime back, never
 * its ctime) with its allocated blocks (sparse-aware, one filesystem). More
 * than `diskMb` allocated in those files fails the child (`disk`), and so
 * does a file of exactly the file-size cap (a write the kernel cut that the
 * child swallowed: `file_size`).
 *
 * What it bounds: what a child leaves in its tree (files it rewrote count
 * whole). What it does not: the peak while it runs (a child can fill the
 * host disk until it exits; the kernel's ENOSPC is then the bound), and
 * writes to other writable mounts (`/tmp`, `/dev/shm` are size-capped tmpfs).
 *
 * @module
 */
import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AfterChild } from "./_kernel_limits.ts";

const MIB = 1024 * 1024;

/** A budget measurement started before a child. */
export interface TreeBudget {
  /** The tree measured. */
  readonly tree: string;
  /** The stamp file (its mtime is the start). */
  readonly stamp: string;
  /** Removes the stamp. */
  dispose(): void;
}

/**
 * Writes the stamp for `tree`, or null when it cannot (then only the
 * per-file limit holds).
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { startBudget } from "./_tree_budget.ts";
 * const b = startBudget("/tmp");
 * ok(b === null || b.stamp.includes("vouch-stamp-"));
 * b?.dispose();
 * ```
 */
export function startBudget(tree: string): TreeBudget | null {
  const stamp = join(tmpdir(), `vouch-stamp-${crypto.randomUUID()}`);
  try {
    writeFileSync(stamp, "");
  } catch {
    return null;
  }
  return {
    tree,
    stamp,
    dispose: () => rmSync(stamp, { force: true }),
  };
}

/**
 * The limit the tree's listing shows: `disk` when the files the child changed
 * hold more than `diskMb`, `file_size` for a file of exactly the cap.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { budgetLimit } from "./_tree_budget.ts";
 * const after = { cgroupLimit: null, writtenBytes: 3 * 1024 * 1024, largestFile: 1024 };
 * equal(budgetLimit(after, 1, 1), "disk");
 * equal(budgetLimit({ ...after, writtenBytes: 1024 }, 1, 1), null);
 * equal(budgetLimit({ ...after, writtenBytes: 1024, largestFile: 1024 * 1024 }, 1, 1), "file_size");
 * ```
 */
export function budgetLimit(
  after: AfterChild,
  diskMb: number,
  fileSizeMb: number,
): "disk" | "file_size" | null {
  if (after.writtenBytes !== null && after.writtenBytes > diskMb * MIB) return "disk";
  return after.largestFile === fileSizeMb * MIB ? "file_size" : null;
}
