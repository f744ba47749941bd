/**
 * A process's start time as the kernel records it, which tells a live owner
 * of a lock or a tree from a later process that reuses its pid.
 *
 * @module
 */
import { readFileSync } from "node:fs";

/**
 * Reads a process's start time (field 22 of `/proc/<pid>/stat`, clock ticks
 * since boot) on Linux, or null (no such process, no `/proc`).
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
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The comm field may hold spaces and ")", so count the fields after its last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19] ?? null;
  } catch {
    return null;
  }
}
