/**
 * A process's start time as the kernel records it, which tells a live owner
 * of a lock or a tree from a later process that reuses its pid.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import process from "node:process";

/** Prints `/proc/$1/stat` (nothing when there is no such process). */
const READ_STAT = `read -r s < "/proc/$1/stat" 2>/dev/null && echo "$s"`;

/**
 * The stat line of `pid`: read in-process, or, where Deno refuses that (it asks `--allow-all`
 * for any `/proc/<pid>/*`, which the CLI's own flags do not give), by a shell; null when there is
 * no such process or it cannot be read.
 */
function statLine(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch (error) {
    if ((error as Error | null)?.name !== "NotCapable") return null;
  }
  try {
    const r = spawnSync("/bin/sh", ["-c", READ_STAT, "vouch-stat", String(pid)], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 5000,
      env: { PATH: "/usr/bin:/bin" },
    });
    return r.status === 0 && typeof r.stdout === "string" && r.stdout !== "" ? r.stdout : null;
  } catch {
    return null;
  }
}

/**
 * Reads a process's start time (field 22 of `/proc/<pid>/stat`, clock ticks
 * since boot) on Linux, or null (no such process, no `/proc`). Under the
 * CLI's own Deno flags too (then through a shell).
 *
 * @example
 * ```ts
 * import { equal, notEqual } from "node:assert/strict";
 * import process from "node:process";
 * import { processStartTime } from "./start_time.ts";
 * if (process.platform === "linux") notEqual(processStartTime(process.pid), null);
 * equal(processStartTime(-1), null);
 * ```
 */
export function processStartTime(pid: number): string | null {
  if (!Number.isSafeInteger(pid) || pid <= 0) return null;
  // This process's own never changes (and is asked for by every lock and worktree it makes).
  if (pid === process.pid && ownStart !== undefined) return ownStart;
  const stat = statLine(pid);
  // The comm field may hold spaces and ")", so count the fields after its last ")".
  const start = stat === null ? null : stat.slice(stat.lastIndexOf(")") + 2).trim().split(" ")[19];
  if (pid === process.pid) ownStart = start ?? null;
  return start ?? null;
}

let ownStart: string | null | undefined;
