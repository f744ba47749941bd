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

/**
 * The owner of a new cgroup (`<pid namespace>-<pid>-<start time>` of this process, from `/proc`),
 * or null when it cannot be read: then the cgroup is named `vouch-<uuid>`, which no other vouch
 * ever judges.
 */
export type CgroupOwner = string | null;

/**
 * The dir name of a new cgroup of `owner`.
 *
 * @example
 * ```ts
 * import { equal, match } from "node:assert/strict";
 * import { ownedCgroupName } from "./_cgroup_cleanup.ts";
 * match(ownedCgroupName("4026531836-42-1234"), /^vouch-4026531836-42-1234-[0-9a-f-]{36}$/);
 * equal(ownedCgroupName(null).split("-").length, 6); // vouch-<uuid>
 * ```
 */
export function ownedCgroupName(owner: CgroupOwner): string {
  const id = crypto.randomUUID();
  return owner === null ? `vouch-${id}` : `vouch-${owner}-${id}`;
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

/** The cgroup dir `$d`: what is still in it killed, then the dir removed (tried again while the host's init reaps). */
const KILL_AND_REMOVE = `${KILL_LEFT}
  i=0
  while [ $i -lt 200 ] && ! rmdir "$d" 2>/dev/null; do i=$((i + 1)); done`;

/** {@linkcode KILL_AND_REMOVE} for each cgroup dir given. */
const REMOVE = `for d in "$@"; do
  [ -d "$d" ] || continue
  ${KILL_AND_REMOVE}
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

// In a shell (Deno asks --allow-all to read /proc/<pid>/* in-process; the CLI has no such flag):
// this process's (the shell's parent's) owner line, then, in the cgroup dir $1, the cgroups of
// this pid namespace whose owner is certainly gone are emptied and removed: no /proc entry for the
// pid, or one whose start time (field 22 of its stat, counted after the last ")": the command
// name may hold spaces and parentheses) was read and differs. A read that fails (or a fork: none
// is used to read) judges nothing. \`start_of\` sets v: the start time, "gone", or "" (unknown).
const OWNER_AND_SWEEP = `start_of() {
  v=
  if [ ! -e "/proc/$1" ]; then v=gone; return; fi
  { read -r s < "/proc/$1/stat"; } 2>/dev/null || return 0
  s=\${s##*) }
  set -f
  set -- $s
  set +f
  v=\${20}
}
ns=$(readlink /proc/$PPID/ns/pid 2>/dev/null)
ns=\${ns#pid:[}
ns=\${ns%]}
start_of $PPID
case "$ns$v" in *[!0-9]* | "") exit 0 ;; esac
echo "$ns-$PPID-$v"
for d in "$1"/vouch-"$ns"-*; do
  [ -d "$d" ] || continue
  n=\${d##*/vouch-"$ns"-}
  pid=\${n%%-*}
  rest=\${n#*-}
  st=\${rest%%-*}
  case "$pid$st" in *[!0-9]* | "") continue ;; esac
  start_of "$pid"
  case "$v" in "" | "$st") continue ;; esac
  ${KILL_AND_REMOVE}
done`;

let owner: CgroupOwner | undefined;

/**
 * This process's {@linkcode CgroupOwner}, read once; the first read also empties and removes the
 * cgroups in `parent` of vouch processes that are gone (killed with SIGKILL, so their exit handler
 * never ran): what a dead vouch's cgroup still holds must not outlive it. Never those of a vouch
 * that runs, of another pid namespace, or named otherwise.
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import process from "node:process";
 * import { cgroupOwner } from "./_cgroup_cleanup.ts";
 * const me = cgroupOwner("/bin/sh", "/nonexistent"); // nothing to sweep there
 * ok(me === null || new RegExp(`^\\d+-${process.pid}-\\d+$`).test(me));
 * ```
 */
export function cgroupOwner(sh: string, parent: string): CgroupOwner {
  if (owner !== undefined) return owner;
  owner = null;
  try {
    const out = spawnSync(sh, ["-c", OWNER_AND_SWEEP, "vouch-cg", parent], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 10_000,
      env: { PATH: "/usr/bin:/bin" },
    }).stdout?.trim() ?? "";
    if (/^\d+-\d+-\d+$/.test(out)) owner = out;
  } catch {
    owner = null;
  }
  return owner;
}
