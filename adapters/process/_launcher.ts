/**
 * The one shell a child is started through when it needs any of: its own
 * cgroup (`_kernel_limits.ts`), the user map of a root-started sandbox
 * (`_user_launch.ts`), rlimits set by the shell's `ulimit` (`_shell_limits.ts`).
 * Before, each was a program of its own in front of bwrap (a cgroup shell, a
 * map shell, `prlimit` inside): two execs more per check.
 *
 * In that order, with builtins only (but `mkdir` for a new cgroup and
 * `mkfifo` for a FIFO pair not made ahead):
 *
 * 1. the cgroup: made on first use, `pids.max` (and `memory.max`) set, the
 *    shell moves itself into it, so everything it starts is counted there.
 *    `pids.max` counts on top of what the cgroup still holds: an exited
 *    sandbox's init can linger as a zombie of the host's init (which reaps
 *    when it will), still charged to the cgroup.
 * 2. the rlimits (`ulimit`), inherited by bwrap, its init and the command.
 * 3. the user map: a mapper in the background reads the sandbox's pid from
 *    bwrap's `--info-fd 8` and writes `0 <uid> 1` and `1 0 1` to its
 *    `uid_map` and `gid_map` while bwrap waits on `--userns-block-fd 9`; a
 *    map that cannot be written kills bwrap before anything runs, and a
 *    bwrap already gone (killed while its sandbox waited: this shell is then
 *    another's child) has its sandbox killed instead of released (its init
 *    would not yet have armed `--die-with-parent`, so it would outlive
 *    bwrap). A bwrap killed between that check and the map is caught after
 *    the child, by its cgroup (`_kernel_limits.ts`).
 * 4. `exec` of the argv (bwrap), so it stays vouch's own child and dies with
 *    it (`--die-with-parent`). fds 8 and 9 stay open for bwrap; inside, the
 *    command starts behind a shell that closes them and every fd vouch
 *    inherited, but 0, 1 and 2 (`adapters/sandbox/_close_fds.ts`).
 *
 * Fails closed: whatever cannot be set up ends the shell with status 125 and
 * a `vouch:` line on stderr before the argv runs.
 *
 * @module
 */

// $1 cgroup dir or "-", $2 pids.max, $3 memory.max or "-", $4 FIFO prefix or "-", $5 uid,
// $6 how many ulimit arguments follow (option, value pairs), those, then the argv.
const LAUNCH = `d=$1 p=$2 m=$3 f=$4 u=$5 n=$6; shift 6
if [ "$d" != - ]; then
  { [ -d "$d" ] || mkdir "$d"; } && read -r c < "$d/pids.current" && echo $((p + c)) > "$d/pids.max" &&
    { [ "$m" = - ] || echo "$m" > "$d/memory.max"; } && echo $$ > "$d/cgroup.procs" ||
    { echo "vouch: cannot set up the cgroup $d" >&2; exit 125; }
fi
while [ "$n" -gt 0 ]; do
  ulimit "$1" "$2" || { echo "vouch: cannot set the limit ulimit $1 $2" >&2; exit 125; }
  shift 2; n=$((n - 2))
done
[ "$f" = - ] && exec "$@"
{ [ -p "$f.i" ] && [ -p "$f.b" ]; } || mkfifo -m 600 "$f.i" "$f.b" ||
  { echo "vouch: cannot make $f.i" >&2; exit 125; }
{
  exec 4<"$f.i" 5<>"$f.b"
  c=
  while read -r l <&4; do case $l in *'"child-pid"'*) c=\${l#*: }; c=\${c%,};; esac; done
  m="0 $u 1
1 0 1"
  # bwrap gone (killed while its sandbox waited for the map; this shell is then another's child):
  # the sandbox is killed, never released.
  read -r s < /proc/self/stat; s=\${s##*) }; s=\${s#* }; s=\${s%% *}
  if [ -n "$c" ] && [ "$s" != $$ ]; then kill -9 "$c"; exit 0; fi
  if [ -n "$c" ] && ! { echo "$m" > "/proc/$c/uid_map" && echo "$m" > "/proc/$c/gid_map"; }; then
    echo "vouch: cannot map the sandbox's user to uid $u" >&2; kill -9 $$
  fi
} &
exec "$@" 8>"$f.i" 9<"$f.b"`;

/** The name the launcher runs under (its `$0`). */
export const LAUNCHER_NAME = "vouch-launch";

/** What the launcher sets up before it execs the argv. */
export interface LauncherPlan {
  /** The shell that runs it. */
  readonly sh: string;
  /** The child's cgroup: its dir, `pids.max` and `memory.max` (null: not set). */
  readonly cgroup: {
    readonly dir: string;
    readonly pidsMax: number;
    readonly memoryMax: number | null;
  } | null;
  /** The user map: the FIFO pair's prefix and the host uid of the sandbox's uid 0. */
  readonly map: { readonly fifo: string; readonly uid: number } | null;
  /** `ulimit` arguments, option and value pairs (`-f`, `2097152`, ...). */
  readonly ulimits: readonly string[];
}

/**
 * `argv` started through the launcher, or `argv` itself when the plan asks
 * for nothing.
 *
 * @example
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * import { launcherArgv } from "./_launcher.ts";
 * const none = { sh: "/bin/sh", cgroup: null, map: null, ulimits: [] };
 * deepEqual(launcherArgv(none, ["true"]), ["true"]);
 * const a = launcherArgv({ ...none, ulimits: ["-c", "0"] }, ["true"]);
 * equal(a[0], "/bin/sh");
 * deepEqual(a.slice(3), ["vouch-launch", "-", "0", "-", "-", "-", "2", "-c", "0", "true"]);
 * ```
 */
export function launcherArgv(plan: LauncherPlan, argv: readonly string[]): string[] {
  const { cgroup, map, ulimits } = plan;
  if (cgroup === null && map === null && ulimits.length === 0) return [...argv];
  return [
    plan.sh,
    "-c",
    LAUNCH,
    LAUNCHER_NAME,
    cgroup?.dir ?? "-",
    String(cgroup?.pidsMax ?? 0),
    cgroup === null || cgroup.memoryMax === null ? "-" : String(cgroup.memoryMax),
    map?.fifo ?? "-",
    map === null ? "-" : String(map.uid),
    String(ulimits.length),
    ...ulimits,
    ...argv,
  ];
}
