/**
 * The write budget of a sandboxed child's tree: its worktree (a clean tree,
 * an agent's worktree) is a host directory, where per-file `RLIMIT_FSIZE`
 * bounds each file but not how many. The tree's disk usage (allocated bytes,
 * sparse-aware, one filesystem) is measured by `du` right before and right
 * after the child (after: in the one shell of `afterChild`); growth past
 * `diskMb` fails the child (`disk`), and so does a file cut at exactly the
 * file-size cap (a write the kernel refused that the child swallowed).
 *
 * What it bounds: what a child leaves in its tree. What it does not: the peak
 * while it runs (a child can fill the host disk until it exits, and the
 * kernel's ENOSPC is then the bound), and writes to other writable mounts
 * (`/tmp`, `/dev/shm` are size-capped tmpfs).
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import type { AfterChild } from "./_kernel_limits.ts";

const MIB = 1024 * 1024;

/**
 * The tree's allocated bytes now (`du -s -x -B1`), or null when `du` cannot
 * measure it (then only the per-file limit holds).
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { treeBytes } from "./_tree_budget.ts";
 * const dir = Deno.makeTempDirSync();
 * ok((treeBytes(dir) ?? 0) >= 0);
 * Deno.removeSync(dir);
 * ```
 */
export function treeBytes(dir: string): number | null {
  const r = spawnSync("du", ["-s", "-x", "-B1", "--", dir], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
    timeout: 60_000,
    env: { PATH: "/usr/bin:/bin" },
  });
  const n = Number(/^(\d+)\s/.exec(typeof r.stdout === "string" ? r.stdout : "")?.[1]);
  return Number.isFinite(n) ? n : null;
}

/**
 * The limit the tree's measurements show: `disk` when it grew by more than
 * `diskMb`, `file_size` for a file cut at the cap.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { budgetLimit } from "./_tree_budget.ts";
 * equal(budgetLimit(0, { cgroupLimit: null, treeBytes: 3 * 1024 * 1024, cutFile: false }, 1), "disk");
 * equal(budgetLimit(0, { cgroupLimit: null, treeBytes: 1024, cutFile: false }, 1), null);
 * ```
 */
export function budgetLimit(
  before: number | null,
  after: AfterChild,
  diskMb: number,
): "disk" | "file_size" | null {
  if (before !== null && after.treeBytes !== null && after.treeBytes - before > diskMb * MIB) {
    return "disk";
  }
  return after.cutFile ? "file_size" : null;
}
