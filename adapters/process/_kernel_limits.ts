/**
 * Limits the kernel enforces on one child, whatever vouch itself may read:
 * under the CLI's Deno flags `/proc/<pid>` and `/sys` are refused ("Requires
 * all access"), so the `/proc` watchdog sees nothing there and only these hold.
 *
 * - rlimits set at exec by util-linux `prlimit`, inside bwrap (after its user
 *   namespace exists, so `RLIMIT_NPROC` counts the sandbox's own processes):
 *   `--fsize` (file size), `--data` (each process's data segment: heap and
 *   private writable mappings, i.e. what it can allocate), `--nproc`
 *   (sandboxed only; per user and namespace), `--core=0`, `--cpu` when the
 *   limits set `cpuSeconds` (soft at the limit: SIGXCPU; hard one second
 *   later: SIGKILL for a process that ignores SIGXCPU). As root (a mapped
 *   sandbox) the launcher shell's `ulimit` sets the same values instead
 *   (`_shell_limits.ts`).
 * - a cgroup per child where this host lets vouch make one under its own
 *   cgroup (cgroup v1 `pids` or a cgroup v2 dir with `pids` delegated, e.g. as
 *   root): `pids.max` (and `memory.max` on v2) for the whole tree. This is what
 *   bounds processes for root, whose host uid 0 the kernel exempts from
 *   `RLIMIT_NPROC`. Detected once per process by a shell (Deno may not read
 *   /sys); absent, nothing is created.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import process from "node:process";
import type { LimitKind, SandboxLimits } from "../sandbox/limits.ts";
import { afterShellRun } from "./_after_shell.ts";
import { isExecutableFile } from "./_program.ts";
import { changedSince } from "./_tree_walk.ts";
import { cgroupHost } from "./_cgroup_host.ts";
import { cgroupOwner, KILL_LEFT, ownedCgroupName, removeCgroups } from "./_cgroup_cleanup.ts";

export { cgroupHost };

const executable = (path: string): boolean => isExecutableFile(path) === "ok";

const PRLIMIT = ["/usr/bin/prlimit", "/bin/prlimit"].find(executable) ?? null;
const SH = ["/bin/sh", "/usr/bin/sh"].find(executable) ?? null;

const MIB = 1024 * 1024;

/**
 * The util-linux `prlimit` vouch sets rlimits with, or null (then no sandbox
 * is offered: see `probeSandbox`).
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { prlimitPath } from "./_kernel_limits.ts";
 * ok(prlimitPath() === null || prlimitPath()!.endsWith("/prlimit"));
 * ```
 */
export function prlimitPath(): string | null {
  return PRLIMIT;
}

/**
 * `prlimit --fsize=N --data=N --core=0 [--nproc=N] --` to put in front of a
 * child's argv (inside bwrap for sandboxed children). `--nproc` only for
 * sandboxed children: unsandboxed, RLIMIT_NPROC would count every process of
 * the user. Empty when `prlimit` is absent (then only cgroups and the
 * watchdog bound the child; `vouch doctor` runs on hosts with util-linux).
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { limitPrefix } from "./_kernel_limits.ts";
 * const p = limitPrefix({ memoryMb: 64, processes: 10, fileSizeMb: 1, tmpMb: 1 }, true);
 * ok(p.length === 0 || (p.includes("--data=67108864") && p.includes("--nproc=12")));
 * const c = limitPrefix({ memoryMb: 64, processes: 10, fileSizeMb: 1, tmpMb: 1, cpuSeconds: 5 }, true);
 * ok(c.length === 0 || c.includes("--cpu=5:6"));
 * ```
 */
export function limitPrefix(limits: SandboxLimits, sandboxed: boolean): string[] {
  if (PRLIMIT === null) return [];
  const out = [
    PRLIMIT,
    `--fsize=${limits.fileSizeMb * MIB}`,
    `--data=${limits.memoryMb * MIB}`,
    "--core=0",
  ];
  if (limits.cpuSeconds !== undefined) {
    out.push(`--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 1}`);
  }
  // bwrap's init (pid 1 of the sandbox) and prlimit itself are in the count.
  if (sandboxed) out.push(`--nproc=${limits.processes + 2}`);
  return [...out, "--"];
}

/**
 * The shell of the launcher and the after-child script (`/bin/sh`, else `/usr/bin/sh`), or null.
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { shellPath } from "./_kernel_limits.ts";
 * ok(shellPath() === null || shellPath()!.endsWith("/sh"));
 * ```
 */
export function shellPath(): string | null {
  return SH;
}

/** A child's own cgroup, made and joined by the launcher (`_launcher.ts`). */
export interface ChildCgroup {
  /** The cgroup dir (made by the launcher on its first use). */
  readonly dir: string;
  /** Its `pids.max`, on top of what it still holds. */
  readonly pidsMax: number;
  /** Its `memory.max` (cgroup v2 with memory delegated), or null. */
  readonly memoryMax: number | null;
}

/** A cgroup dir between children, with the event counts it had after the last one. */
interface PooledCgroup {
  readonly dir: string;
  readonly max: number;
  readonly oom: number;
}

/**
 * Cgroups are reused from child to child (making and removing one per child
 * cost two execs): free ones here, removed when this process exits; one that
 * still holds processes after its child has them killed, is never reused and
 * is removed later. At exit, what any of them still holds is killed first.
 */
const pool: PooledCgroup[] = [];
const inUse = new Map<string, PooledCgroup>();
const abandoned = new Set<string>();
let cleanupRegistered = false;

function removeAllAtExit(): void {
  if (cleanupRegistered || SH === null) return;
  cleanupRegistered = true;
  const sh = SH;
  const removeAll = () => {
    const dirs = [...pool.map((c) => c.dir), ...inUse.keys(), ...abandoned];
    pool.length = 0;
    inUse.clear();
    abandoned.clear();
    removeCgroups(sh, dirs);
  };
  // Node's exit (process.exit too), and Deno's unload (Deno.exit too).
  process.on("exit", removeAll);
  (globalThis as { addEventListener?: (t: string, f: () => void) => void }).addEventListener?.(
    "unload",
    removeAll,
  );
}

/**
 * A cgroup for one child with `limits` (a free one of this process, or a new
 * one), or null when the host has none to give (then rlimits and the watchdog
 * are what bound it).
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { childCgroup } from "./_kernel_limits.ts";
 * const cg = childCgroup({ memoryMb: 64, processes: 10, fileSizeMb: 1, tmpMb: 1 });
 * ok(cg === null || cg.pidsMax === 14);
 * ```
 */
export function childCgroup(limits: SandboxLimits): ChildCgroup | null {
  const host = cgroupHost();
  if (host === null || SH === null) return null;
  removeAllAtExit();
  const entry = pool.pop() ??
    { dir: `${host.parent}/${ownedCgroupName(cgroupOwner(SH, host.parent))}`, max: 0, oom: 0 };
  inUse.set(entry.dir, entry);
  // The launcher shell, bwrap and bwrap's init are in the tree too.
  return {
    dir: entry.dir,
    pidsMax: limits.processes + 4,
    memoryMax: host.version === 2 && host.memory ? limits.memoryMb * MIB : null,
  };
}

// After a child, in one shell (builtins only, but for find): the cgroup's event counts and
// whether a live process is still in it (read again up to 400 times first: bwrap's init may still
// be exiting when bwrap, told the command's status, has exited); what is still there then is
// killed (SIGKILL, `cgroup.kill` where there is one): the cgroup is this child's alone, and a
// sandbox whose init outlived bwrap (one released by its user map after bwrap was killed, before
// `--die-with-parent` was armed) must not outlive its child; removal of cgroups left with processes earlier, and,
// only when the walk of this process left a file undecided (`_tree_walk.ts`), every file of the
// tree whose status changed since the budget's start (ctime: a child can set mtime back, not
// ctime), with its allocated 512-byte blocks and size. $1 cgroup dir or "-", $2 tree or "-",
// $3 the start (`@<s>.<ms>`), then older cgroup dirs to remove.
const AFTER = `d=$1 t=$2 s=$3; shift 3
if [ "$d" != - ] && [ -d "$d" ]; then
  for f in "$d/pids.events" "$d/memory.events"; do
    [ -r "$f" ] && while read -r l; do echo "$l"; done < "$f"
  done
  i=0
  while read -r n < "$d/cgroup.procs"; do
    if [ $i -ge 400 ]; then
      echo "live $n"
      ${KILL_LEFT}
      break
    fi
    i=$((i + 1))
  done
fi
for o in "$@"; do rmdir "$o" 2>/dev/null || { [ -d "$o" ] && echo "busy $o"; }; done
[ "$t" = - ] || find "$t" -xdev -type f -newerct "$s" -printf 'w %b %s\\n' 2>/dev/null
true`;

/** What {@linkcode afterChild} saw. */
export interface AfterChild {
  /** The cgroup refused a fork (`processes`) or OOM-killed (`memory`) during this child. */
  readonly cgroupLimit: LimitKind | null;
  /** Allocated bytes of the tree's files changed during the child, or null when not measured. */
  readonly writtenBytes: number | null;
  /** Sizes of the files changed during the child (bytes), for the file-size cap. */
  readonly largestFile: number;
}

/** A write budget's start, as `_tree_budget.ts` makes it. */
type BudgetStart = { readonly tree: string; readonly since: string; readonly sinceMs: number };

/** The walk's answer, or null when it left a file undecided (then `find` lists the tree). */
function walked(budget: BudgetStart | null): { written: number; largest: number } | null {
  if (budget === null) return null;
  const c = changedSince(budget.tree, budget.sinceMs);
  return c.undecided ? null : { written: c.writtenBytes, largest: c.largestFile };
}

/**
 * One shell after a child: reads its cgroup's events (`dir`; the cgroup goes
 * back to the pool when empty); the files of `tree` changed since the
 * budget's start `since` come from a walk of this process, or from `find`
 * in that shell where the walk cannot decide (see `_tree_budget.ts`).
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { equal } from "node:assert/strict";
 * import { afterChild } from "./_kernel_limits.ts";
 * import { startBudget } from "./_tree_budget.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-"));
 * const budget = startBudget(dir);
 * await new Promise((r) => setTimeout(r, 20));
 * writeFileSync(`${dir}/f`, new Uint8Array(8192).fill(1));
 * const a = afterChild(null, budget);
 * equal(a.largestFile, 8192);
 * rmSync(dir, { recursive: true, force: true });
 * ```
 */
export function afterChild(dir: string | null, budget: BudgetStart | null): AfterChild {
  return afterChildWith(dir, budget, walked(budget));
}

function afterChildWith(
  dir: string | null,
  budget: BudgetStart | null,
  walk: { written: number; largest: number } | null,
): AfterChild {
  const args = afterArgs(dir, budget, walk);
  if (args === null) return walk === null ? NO_AFTER : fromWalk(walk);
  // Without a cgroup to read, `find` alone (one exec less per child).
  const [program, argv] = dir === null && args.length === 3 && budget !== null
    ? ["find", [
      budget.tree,
      "-xdev",
      "-type",
      "f",
      "-newerct",
      budget.since,
      "-printf",
      "w %b %s\\n",
    ]]
    : [SH!, ["-c", AFTER, "vouch-after", ...args]];
  const r = spawnSync(program, argv, {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
    env: { PATH: "/usr/bin:/bin" },
  });
  const out = typeof r.stdout === "string" ? r.stdout : "";
  return readAfter(out, dir, budget, r.error !== undefined, walk);
}

const fromWalk = (walk: { written: number; largest: number }): AfterChild => ({
  cgroupLimit: null,
  writtenBytes: walk.written,
  largestFile: walk.largest,
});

/**
 * {@linkcode afterChild} without a process of its own: the same script run by
 * a long-lived shell of this process (`_after_shell.ts`), which forks only
 * `find` (for a tree the walk left undecided); no shell at all without a
 * cgroup and with the walk decided; the one-shot shell when the long-lived
 * one is unavailable.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { afterChildAsync } from "./_kernel_limits.ts";
 * equal((await afterChildAsync(null, null)).writtenBytes, null);
 * ```
 */
export async function afterChildAsync(
  dir: string | null,
  budget: BudgetStart | null,
): Promise<AfterChild> {
  const walk = walked(budget);
  const args = afterArgs(dir, budget, walk);
  if (args === null) return walk === null ? NO_AFTER : fromWalk(walk);
  const answer = await afterShellRun(SH!, AFTER, args);
  if (answer !== null) return readAfter(answer.out, dir, budget, answer.cutShort, walk);
  for (const o of args.slice(3)) abandoned.add(o);
  return afterChildWith(dir, budget, walk);
}

const NO_AFTER: AfterChild = { cgroupLimit: null, writtenBytes: null, largestFile: 0 };

/**
 * The arguments of the after-child script (`dir tree since retried...`), or null when there is
 * nothing to do; the cgroups left with processes earlier are handed to it. The tree only when
 * the walk left it undecided.
 */
function afterArgs(
  dir: string | null,
  budget: BudgetStart | null,
  walk: { written: number; largest: number } | null,
): string[] | null {
  const find = budget !== null && walk === null;
  if (SH === null || (dir === null && !find)) return null;
  const retry = [...abandoned];
  abandoned.clear();
  return [dir ?? "-", find ? budget.tree : "-", find ? budget.since : "-", ...retry];
}

/** What the after-child script printed, judged. */
function readAfter(
  out: string,
  dir: string | null,
  budget: BudgetStart | null,
  cutShort: boolean,
  walk: { written: number; largest: number } | null,
): AfterChild {
  for (const m of out.matchAll(/^busy (\/sys\/fs\/cgroup\/.+)$/gm)) abandoned.add(m[1]!);
  const count = (name: string) => {
    const n = Number(new RegExp(`^${name} (\\d+)$`, "m").exec(out)?.[1]);
    return Number.isFinite(n) ? n : null;
  };
  let cgroupLimit: LimitKind | null = null;
  if (dir !== null) {
    const before = inUse.get(dir) ?? { dir, max: 0, oom: 0 };
    inUse.delete(dir);
    const max = count("max") ?? before.max;
    const oom = count("oom_kill") ?? before.oom;
    cgroupLimit = max > before.max ? "processes" : oom > before.oom ? "memory" : null;
    // Reused when no live process is left in it (zombies awaiting the host's init may be:
    // pids.max is set on top of them); otherwise removed after a later child.
    if (count("live") === null && count("max") !== null) pool.push({ dir, max, oom });
    else abandoned.add(dir);
  }
  if (walk !== null) return { cgroupLimit, writtenBytes: walk.written, largestFile: walk.largest };
  let written = 0;
  let largest = 0;
  for (const m of out.matchAll(/^w (\d+) (\d+)$/gm)) {
    written += Number(m[1]) * 512;
    largest = Math.max(largest, Number(m[2]));
  }
  return {
    cgroupLimit,
    // A listing cut short (timeout, buffer) is not a measurement.
    writtenBytes: budget === null || cutShort ? null : written,
    largestFile: largest,
  };
}

/**
 * A limit an exit status or its stderr shows: SIGXFSZ (file size); SIGXCPU
 * (CPU time, also as a shell's exit status 152 or its "CPU time limit
 * exceeded" line for a killed grandchild); ENOSPC on
 * the private /tmp or /dev/shm (tmp); an allocation refused under the data
 * limit (memory: `MemoryError`, `Cannot allocate memory`, `memory exhausted`,
 * V8's `out of memory`, ...); a fork refused under the process limit.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { exitLimit } from "./_kernel_limits.ts";
 * equal(exitLimit(1, null, { head: "MemoryError\n", tail: "" }, { kind: "bwrap" }), "memory");
 * equal(exitLimit(0, null, { head: "MemoryError\n", tail: "" }, { kind: "bwrap" }), null);
 * equal(exitLimit(152, null, { head: "", tail: "" }, { kind: "bwrap" }), "cpu");
 * ```
 */
export function exitLimit(
  exitCode: number,
  signal: string | null,
  stderr: { head: string; tail: string },
  sandbox: { kind: string },
): LimitKind | null {
  if (signal === "SIGXFSZ" || exitCode === 128 + 25) return "file_size";
  if (signal === "SIGXCPU" || exitCode === 128 + 24) return "cpu";
  if (exitCode === 0) return null;
  const text = stderr.head + stderr.tail;
  if (/CPU time limit exceeded/.test(text)) return "cpu";
  if (sandbox.kind === "bwrap" && /No space left on device/.test(text)) return "tmp";
  if (
    /\bMemoryError\b|Cannot allocate memory|memory exhausted|[Oo]ut of memory|std::bad_alloc|allocation failed/
      .test(text)
  ) return "memory";
  if (/[Cc]an(not|'t) fork|fork: (retry: )?Resource temporarily unavailable/.test(text)) {
    return "processes";
  }
  return null;
}
