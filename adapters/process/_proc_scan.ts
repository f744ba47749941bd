/**
 * The process tree's totals read by a shell, for when vouch itself cannot
 * read `/proc` (the CLI's Deno flags refuse `/proc/<pid>`, so the in-process
 * watchdog sees one process and 0 bytes there). Every second, or ten times as
 * long as the last scan took, never two at once, one `sh` prints
 * `pid ppid rss-pages` for every process of the host (builtins only); the
 * child's tree is found from its pid through the parent links. Past
 * `processes` (beyond the sandbox's own wrapper processes) or past `memoryMb`
 * of summed resident memory the child is killed.
 *
 * What it bounds: the whole tree's resident memory and process count as
 * often as it scans (the total that `RLIMIT_DATA`, per process, does not,
 * where no cgroup v2 memory controller is delegated; the process count of
 * root, whom `RLIMIT_NPROC` exempts, where no pids cgroup exists). What it
 * does not: what happens between two scans (a fork bomb can reach far past
 * the limit in one second; the kernel's own limits are the hard bounds), and
 * processes that left the tree (a daemon reparented to the host's init; in a
 * bwrap sandbox they stay in its pid namespace, under its init).
 *
 * @module
 */
import process from "node:process";
import type { LimitKind, SandboxLimits } from "../sandbox/limits.ts";
import { type PollingScan, pollingScan } from "./_polling_scan.ts";
import { treeUsage } from "./_watchdog.ts";

const PAGE_BYTES = 4096;
const MIB = 1024 * 1024;

// One line per process: pid, ppid, rss (pages). The command name (field 2) may hold spaces and
// parentheses: the fields after its last ") " are split.
const SCAN = `for f in /proc/[0-9]*/stat; do
  { read -r l < "$f"; } 2>/dev/null || continue
  r=\${l##*) }; p=\${f#/proc/}; p=\${p%/stat}
  set -f; set -- $r; set +f
  echo "$p $2 \${22}"
done`;

/**
 * The process count and summed resident bytes of `root`'s tree in a scan's
 * output (`pid ppid rss` lines).
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { treeTotals } from "./_proc_scan.ts";
 * const scan = "1 0 100\n10 1 5\n11 10 7\n12 10 1\n20 1 9\n";
 * deepEqual(treeTotals(scan, 10), { processes: 3, rssBytes: 13 * 4096 });
 * ```
 */
export function treeTotals(scan: string, root: number): { processes: number; rssBytes: number } {
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const line of scan.split("\n")) {
    const [pid, ppid, pages] = line.split(" ").map(Number);
    if (!Number.isInteger(pid) || !Number.isInteger(ppid)) continue;
    rss.set(pid!, Number.isFinite(pages) ? pages! : 0);
    const list = children.get(ppid!);
    if (list === undefined) children.set(ppid!, [pid!]);
    else list.push(pid!);
  }
  if (!rss.has(root)) return { processes: 0, rssBytes: 0 };
  const seen = new Set<number>();
  const queue = [root];
  let pages = 0;
  while (queue.length > 0) {
    const pid = queue.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    pages += rss.get(pid) ?? 0;
    queue.push(...(children.get(pid) ?? []));
  }
  return { processes: seen.size, rssBytes: pages * PAGE_BYTES };
}

let blind: boolean | undefined;

/**
 * Whether this process cannot read `/proc/<pid>` itself (its own resident
 * memory reads as 0: Deno without all-access), checked once.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { procBlind } from "./_proc_scan.ts";
 * equal(typeof procBlind(), "boolean");
 * ```
 */
export function procBlind(): boolean {
  blind ??= treeUsage(process.pid, 1).rssBytes === 0;
  return blind;
}

/** A running {@linkcode watchTreeTotals}. */
export type TreeTotalsWatch = PollingScan;

/**
 * Scans `root`'s tree while it runs (see the module doc) and calls
 * `onExceeded` once with the limit it crossed. `overhead`: the wrapper
 * processes that are not the child's own (bwrap and its init, launchers).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import process from "node:process";
 * import { watchTreeTotals } from "./_proc_scan.ts";
 * // This process is far more than 1 MiB resident: exceeded at the first scan.
 * const kind = await new Promise((resolve) => {
 *   const w = watchTreeTotals(process.pid, { memoryMb: 1, processes: 1000, fileSizeMb: 1, tmpMb: 1 }, 0, (k) => {
 *     void w.stop().then(() => resolve(k));
 *   }, { firstMs: 0 });
 * });
 * equal(kind, "memory");
 * ```
 */
export function watchTreeTotals(
  root: number,
  limits: SandboxLimits,
  overhead: number,
  onExceeded: (kind: LimitKind) => void,
  options: { readonly firstMs?: number } = {},
): TreeTotalsWatch {
  return pollingScan(
    "/bin/sh",
    ["-c", SCAN],
    (stdout): LimitKind | null => {
      const totals = treeTotals(stdout, root);
      return totals.processes - overhead > limits.processes
        ? "processes"
        : totals.rssBytes > limits.memoryMb * MIB
        ? "memory"
        : null;
    },
    onExceeded,
    options,
  );
}
