/**
 * How vouch's cgroups are removed: at this process's exit (what is still in
 * one is killed first: a child started as vouch exits, a sandbox whose bwrap
 * was killed while it was set up), and, before this process makes its first,
 * those of a vouch that is gone. A cgroup's dir name says which vouch process
 * made it (pid namespace, pid, start time). A vouch killed with SIGKILL runs no
 * exit handler: its cgroups stay, and so does whatever was in them; the next
 * vouch that makes a cgroup beside them empties and removes them, as their own
 * exit would have.
 *
 * Owns: the names, the judgement "its owner is gone" and the removal. Never: a
 * cgroup whose owner runs, one made in another pid namespace (its pid means
 * nothing here), or one whose name it did not write (older names, other tools).
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readlinkSync } from "node:fs";
import process from "node:process";
import { processStartTime } from "./start_time.ts";

/** This process's pid namespace (the inode of `/proc/self/ns/pid`), or null when unreadable. */
function ownPidNamespace(): string | null {
  try {
    return /^pid:\[(\d+)\]$/.exec(readlinkSync("/proc/self/ns/pid"))?.[1] ?? null;
  } catch {
    return null;
  }
}

const OWNED = /^vouch-(\d+)-(\d+)-(\d+)-[0-9a-f-]{36}$/;

/**
 * The dir name of a new cgroup of this process (`vouch-<pidns>-<pid>-<start>-<uuid>`), or
 * `vouch-<uuid>` when this process's namespace or start time cannot be read (such a cgroup is
 * never judged by another vouch).
 *
 * @example
 * ```ts
 * import { match } from "node:assert/strict";
 * import { ownedCgroupName } from "./_cgroup_cleanup.ts";
 * match(ownedCgroupName(), /^vouch-(\d+-\d+-\d+-)?[0-9a-f-]{36}$/);
 * ```
 */
export function ownedCgroupName(): string {
  const ns = ownPidNamespace();
  const start = processStartTime(process.pid);
  const id = crypto.randomUUID();
  return ns === null || start === null
    ? `vouch-${id}`
    : `vouch-${ns}-${process.pid}-${start}-${id}`;
}

/** Whether the process `pid` that started at `start` still runs (or is not yet reaped). */
export type OwnerAlive = (pid: number, start: string) => boolean;

const ownerAlive: OwnerAlive = (pid, start) => processStartTime(pid) === start;

/**
 * Of the names in a cgroup dir, those of cgroups vouch made in this pid namespace whose owner is
 * gone: no process has its pid, or the one that has it started at another time (a reused pid).
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { goneOwnerCgroups } from "./_cgroup_cleanup.ts";
 * const id = "0123abcd-0000-4000-8000-000000000000";
 * const names = [`vouch-7-10-99-${id}`, `vouch-7-11-99-${id}`, `vouch-8-10-99-${id}`, `vouch-${id}`];
 * const alive = (pid: number) => pid === 11;
 * deepEqual(goneOwnerCgroups(names, "7", alive), [`vouch-7-10-99-${id}`]);
 * ```
 */
export function goneOwnerCgroups(
  names: readonly string[],
  namespace: string | null = ownPidNamespace(),
  alive: OwnerAlive = ownerAlive,
): string[] {
  if (namespace === null) return [];
  return names.filter((name) => {
    const m = OWNED.exec(name);
    if (m === null || m[1] !== namespace) return false;
    return !alive(Number(m[2]), m[3]!);
  });
}

/**
 * Shell lines that SIGKILL every process in the cgroup dir `$d` (`cgroup.kill` where there is
 * one; else each pid of `cgroup.procs`, again until it is empty or 50 rounds passed: zombies stay
 * listed until they are reaped).
 */
export const KILL_LEFT = `[ -w "$d/cgroup.kill" ] && echo 1 > "$d/cgroup.kill"
      j=0
      while [ $j -lt 50 ] && read -r n < "$d/cgroup.procs"; do
        while read -r p; do kill -9 "$p" 2>/dev/null; done < "$d/cgroup.procs"
        j=$((j + 1))
      done`;

/** Each cgroup dir given: what is still in it killed, then the dir removed (tried again while the host's init reaps). */
const REMOVE = `for d in "$@"; do
  [ -d "$d" ] || continue
  ${KILL_LEFT}
  i=0
  while [ $i -lt 200 ] && ! rmdir "$d" 2>/dev/null; do i=$((i + 1)); done
done`;

/**
 * Kills what `dirs` still hold and removes them, in one shell `sh` (synchronous: it also runs
 * in exit handlers). A dir that is gone already is passed over.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { existsSync, mkdtempSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { removeCgroups } from "./_cgroup_cleanup.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-cg-")); // an empty dir stands in for a cgroup
 * removeCgroups("/bin/sh", [dir, join(dir, "gone")]);
 * equal(existsSync(dir), false);
 * ```
 */
export function removeCgroups(sh: string, dirs: readonly string[]): void {
  if (dirs.length === 0) return;
  spawnSync(sh, ["-c", REMOVE, "vouch-cg", ...dirs], {
    stdio: "ignore",
    timeout: 5000,
    env: { PATH: "/usr/bin:/bin" },
  });
}

let sweptGoneOwners = false;

/**
 * Once per process, before its first cgroup: the cgroups in `parent` of vouch processes that are
 * gone ({@linkcode goneOwnerCgroups}) are emptied and removed ({@linkcode removeCgroups}).
 *
 * @example
 * ```ts
 * import { removeGoneOwners } from "./_cgroup_cleanup.ts";
 * removeGoneOwners("/bin/sh", "/nonexistent"); // nothing to read: nothing done, no throw
 * ```
 */
export function removeGoneOwners(sh: string, parent: string): void {
  if (sweptGoneOwners) return;
  sweptGoneOwners = true;
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  removeCgroups(sh, goneOwnerCgroups(names).map((name) => `${parent}/${name}`));
}
