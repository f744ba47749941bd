/**
 * The write budget of a sandboxed child's tree: its worktree (a clean tree,
 * an agent's worktree) is a host directory, where per-file `RLIMIT_FSIZE`
 * bounds each file but not how many. The tree's disk usage (allocated bytes,
 * sparse-aware, one filesystem) is measured by `du` right before and right
 * after the child; growth past `diskMb` fails the child (`disk`), and so does
 * a file cut at exactly the file-size cap (a write the kernel refused that
 * the child swallowed).
 *
 * What it bounds: what a child leaves in its tree. What it does not: the peak
 * while it runs (a child can fill the host disk until it exits, and the
 * kernel's ENOSPC is then the bound), and writes to other writable mounts
 * (`/tmp`, `/dev/shm` are size-capped tmpfs).
 *
 * @module
 */
import { spawnSync } from "node:child_process";

const MIB = 1024 * 1024;

function du(dir: string): number | null {
  const r = spawnSync("du", ["-s", "-x", "-B1", "--", dir], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
    timeout: 60_000,
    env: { PATH: "/usr/bin:/bin" },
  });
  const n = Number(/^(\d+)\s/.exec(typeof r.stdout === "string" ? r.stdout : "")?.[1]);
  return Number.isFinite(n) ? n : null;
}

function fileAtCap(dir: string, capBytes: number): boolean {
  const r = spawnSync(
    "find",
    [dir, "-xdev", "-type", "f", "-size", `${capBytes}c`, "-print", "-quit"],
    {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 60_000,
      env: { PATH: "/usr/bin:/bin" },
    },
  );
  return typeof r.stdout === "string" && r.stdout.trim() !== "";
}

/** A measurement started before a child. */
export interface TreeBudget {
  /** After the child: `disk` when it grew the tree past the budget, `file_size` for a cut file. */
  finish(): "disk" | "file_size" | null;
}

/**
 * Measures `dir` now; `finish()` measures again. Null when `du` cannot
 * measure it (then only the per-file limit holds).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { treeBudget } from "./_tree_budget.ts";
 * const dir = Deno.makeTempDirSync();
 * const b = treeBudget(dir, 1, 1);
 * Deno.writeFileSync(`${dir}/big`, new Uint8Array(2 * 1024 * 1024).fill(1));
 * equal(b?.finish(), "disk");
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function treeBudget(dir: string, diskMb: number, fileSizeMb: number): TreeBudget | null {
  const before = du(dir);
  if (before === null) return null;
  return {
    finish() {
      const after = du(dir);
      if (after !== null && after - before > diskMb * MIB) return "disk";
      return fileAtCap(dir, fileSizeMb * MIB) ? "file_size" : null;
    },
  };
}
