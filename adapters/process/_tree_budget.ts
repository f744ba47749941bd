/**
 * The write budget of a sandboxed child's tree: its worktree (a clean tree,
 * an agent's worktree) is a host directory, where per-file `RLIMIT_FSIZE`
 * bounds each file but not how many. Right before the child vouch notes the
 * time; after it, a walk of this process (`_tree_walk.ts`: no process start)
 * lists every file of the tree whose status changed since (ctime: a child can
 * set a file's mtime back, never its ctime) with its allocated blocks
 * (sparse-aware, one filesystem); where Deno's whole-second ctime leaves a
 * file undecided, `find -newerct @<time>` (exact ctime) decides instead. More
 * than `diskMb` allocated in those files fails the child (`disk`), and so
 * does a file of exactly the file-size cap (a write the kernel cut that the
 * child swallowed: `file_size`).
 *
 * The time is one millisecond past the clock's when the budget starts, so no
 * change vouch made before it (the hand-over's chown, a checkout) counts,
 * while the child, started after it, takes longer than that to write
 * anything. Before, a stamp file written and removed per child stood for it
 * (an exec-free but journalled create and unlink: about 1.5 ms of vouch's CPU
 * per check), and a vouch killed by SIGKILL left it in the temp dir.
 *
 * While the child runs, {@linkcode watchBudget} repeats the same listing
 * (every second, or ten times as long as the last listing took, whichever
 * is longer, never two at once) and kills the child as soon as the changed
 * files hold more than `diskMb`: the peak is bounded by `diskMb` plus what
 * the child writes between two listings.
 *
 * What it bounds: what a child leaves in its tree (files it rewrote count
 * whole) and, to within one listing interval, its peak. What it does not:
 * writes faster than the interval can see (a child writing 1 GB/s may get
 * about 1 GB past the budget before the listing stops it), files it created
 * and removed between two listings, and writes to other writable mounts
 * (`/tmp`, `/dev/shm` are size-capped tmpfs).
 *
 * @module
 */
import type { AfterChild } from "./_kernel_limits.ts";
import { type PollingScan, pollingScan } from "./_polling_scan.ts";
import { requireRun } from "./permission.ts";

const MIB = 1024 * 1024;

/** A budget measurement started before a child. */
export interface TreeBudget {
  /** The tree measured. */
  readonly tree: string;
  /** When it started, as `find -newerct` takes it: `@<seconds>.<milliseconds>`. */
  readonly since: string;
  /** The same time, milliseconds since the epoch (the walk of `_tree_walk.ts`). */
  readonly sinceMs: number;
}

/**
 * `ms` (milliseconds since the epoch) as a `find -newerct` time.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { findTime } from "./_tree_budget.ts";
 * equal(findTime(1_700_000_000_042), "@1700000000.042");
 * ```
 */
export function findTime(ms: number): string {
  const whole = Math.floor(ms);
  return `@${Math.floor(whole / 1000)}.${String(whole % 1000).padStart(3, "0")}`;
}

/**
 * Starts the budget of `tree`: changes from now on count.
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { startBudget } from "./_tree_budget.ts";
 * const b = startBudget("/tmp");
 * ok(b.tree === "/tmp" && /^@\d+\.\d{3}$/.test(b.since) && b.sinceMs > 0);
 * ```
 */
export function startBudget(tree: string): TreeBudget {
  // Deno refusing `find` would leave the write budget unmeasured, silently.
  requireRun("find", "the write-budget walk");
  const sinceMs = Math.floor(Date.now()) + 1;
  return { tree, since: findTime(sinceMs), sinceMs };
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

/** A running {@linkcode watchBudget}. */
export type BudgetWatch = PollingScan;

/**
 * Lists the files of `budget.tree` changed since its start while a child
 * runs and calls `onExceeded` once when they hold more than `diskMb`
 * (allocated bytes). First listing after `firstMs` (default 1000 ms), then
 * every `max(1000, 10 x the last listing's duration)` ms, one at a time.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { equal } from "node:assert/strict";
 * import { startBudget, watchBudget } from "./_tree_budget.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-"));
 * const budget = startBudget(dir);
 * await new Promise((r) => setTimeout(r, 20));
 * writeFileSync(join(dir, "f"), new Uint8Array(3 * 1024 * 1024).fill(1));
 * const exceeded = await new Promise<boolean>((resolve) => {
 *   const w = watchBudget(budget, 1, () => void w.stop().then(() => resolve(true)), { firstMs: 0 });
 * });
 * equal(exceeded, true);
 * rmSync(dir, { recursive: true, force: true });
 * ```
 */
export function watchBudget(
  budget: TreeBudget,
  diskMb: number,
  onExceeded: () => void,
  options: { readonly firstMs?: number } = {},
): BudgetWatch {
  return pollingScan(
    "find",
    [budget.tree, "-xdev", "-type", "f", "-newerct", budget.since, "-printf", "%b\\n"],
    (stdout) => {
      let blocks = 0;
      for (const line of stdout.split("\n")) blocks += Number(line) || 0;
      return blocks * 512 > diskMb * MIB ? true : null;
    },
    () => onExceeded(),
    options,
  );
}
