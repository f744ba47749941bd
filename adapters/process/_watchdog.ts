/**
 * The watchdog that enforces per-child memory and process limits by polling
 * `/proc` (the child's tree through `task/<tid>/children`), and the sweep
 * that kills what an unsandboxed child left behind (found by a per-run
 * environment marker, since a `setsid` daemon leaves the process group).
 */
import { readdirSync, readFileSync } from "node:fs";
import process from "node:process";
import type { LimitKind, SandboxLimits } from "../sandbox/limits.ts";

const PAGE_BYTES = 4096;

function readText(path: string): string | null {
  try {
    return readFileSync(path, "latin1");
  } catch {
    return null;
  }
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const t of list(`/proc/${pid}/task`)) {
    const text = readText(`/proc/${pid}/task/${t}/children`);
    if (text === null) continue;
    for (const part of text.split(" ")) {
      const n = Number(part);
      if (part !== "" && Number.isInteger(n)) out.push(n);
    }
  }
  return out;
}

function rssBytes(pid: number): number {
  const stat = readText(`/proc/${pid}/stat`);
  if (stat === null) return 0;
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Field 24 of stat (rss, in pages) is index 21 after the command name.
  return (Number(fields[21]) || 0) * PAGE_BYTES;
}

/**
 * The live processes of `root`'s tree and their summed resident memory.
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { treeUsage } from "./_watchdog.ts";
 * import process from "node:process";
 * const u = treeUsage(process.pid);
 * ok(u.processes >= 1 && u.rssBytes > 0);
 * ```
 */
export function treeUsage(root: number, cap = 100_000): { processes: number; rssBytes: number } {
  const seen = new Set<number>();
  const queue = [root];
  let rss = 0;
  while (queue.length > 0 && seen.size < cap) {
    const pid = queue.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    rss += rssBytes(pid);
    queue.push(...childrenOf(pid));
  }
  return { processes: seen.size, rssBytes: rss };
}

/** A running watchdog. */
export interface Watchdog {
  /** Stops polling. */
  stop(): void;
}

/**
 * Polls `root`'s tree every `intervalMs` and calls `onExceeded` once when it
 * holds more than `limits.processes` processes or more than `limits.memoryMb`
 * resident memory.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { startWatchdog } from "./_watchdog.ts";
 * import process from "node:process";
 * let exceeded = "";
 * const w = startWatchdog(process.pid, { memoryMb: 1 << 20, processes: 1 << 20, fileSizeMb: 1, tmpMb: 1 }, (kind) => {
 *   exceeded = kind;
 * });
 * w.stop();
 * equal(exceeded, ""); // far below both limits: never called
 * ```
 */
export function startWatchdog(
  root: number,
  limits: SandboxLimits,
  onExceeded: (kind: LimitKind) => void,
  options: { readonly intervalMs?: number; readonly overhead?: number } = {},
): Watchdog {
  const overhead = options.overhead ?? 0;
  let fired = false;
  const timer = setInterval(() => {
    if (fired) return;
    const usage = treeUsage(root, limits.processes + overhead + 2);
    // The sandbox wrapper (bwrap and its pid-1 init) is not the child's own.
    const own = usage.processes - overhead;
    const kind: LimitKind | null = own > limits.processes
      ? "processes"
      : usage.rssBytes > limits.memoryMb * 1024 * 1024
      ? "memory"
      : null;
    if (kind !== null) {
      fired = true;
      clearInterval(timer);
      onExceeded(kind);
    }
  }, options.intervalMs ?? 100);
  return { stop: () => clearInterval(timer) };
}

/** The environment variable that marks every process of one unsandboxed child. */
export const RUN_MARKER_ENV = "VOUCH_RUN_MARKER";

/**
 * Kills (SIGKILL) every process of this user whose environment carries
 * `RUN_MARKER_ENV=<marker>`: what an unsandboxed child left behind, `setsid`
 * daemons included. Only pids above `since` (the child's) are read, unless
 * pid numbers wrapped meanwhile. Cannot catch a process that replaced its
 * environment (see docs/sandbox.md). Returns how many were killed.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { sweepMarked } from "./_watchdog.ts";
 * equal(sweepMarked("no-such-marker-" + crypto.randomUUID()), 0);
 * ```
 */
export function sweepMarked(marker: string, since = 0): number {
  const needle = `${RUN_MARKER_ENV}=${marker}\0`;
  // Descendants get pids above the child's, unless pid numbers wrapped since (then scan all).
  const last = Number(readText("/proc/loadavg")?.trim().split(" ")[4]?.split("/")[0] ?? NaN);
  const floor = Number.isInteger(last) && last >= since ? since : 0;
  let killed = 0;
  // Two passes: a daemon may fork between reading and killing.
  for (let pass = 0; pass < 2; pass++) {
    let found = 0;
    for (const name of list("/proc")) {
      const pid = Number(name);
      if (!Number.isInteger(pid) || pid <= floor || pid === process.pid) continue;
      const env = readText(`/proc/${pid}/environ`);
      if (env === null || !(env + "\0").includes(needle)) continue;
      try {
        process.kill(pid, "SIGKILL");
        killed++;
        found++;
      } catch {
        // gone already
      }
    }
    if (found === 0) break;
  }
  return killed;
}
