/**
 * Where per-child cgroups can be made on this host: the controller dir vouch
 * itself is in (cgroup v1 `pids`, or v2 with `pids` delegated), detected once
 * per process by a shell (Deno may not read /sys). It never creates a cgroup
 * and never looks anywhere else in the hierarchy.
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { isExecutableFile } from "./_program.ts";
import { requireRun } from "./permission.ts";

const SH = ["/bin/sh", "/usr/bin/sh"].find((path) => isExecutableFile(path) === "ok") ?? null;

/** Where per-child cgroups can be made: the controller dir vouch itself is in. */
export interface CgroupHost {
  readonly version: 1 | 2;
  /** The cgroup dir vouch is in (children are made inside it). */
  readonly parent: string;
  /** Whether `memory.max` can be set (v2 with memory delegated). */
  readonly memory: boolean;
}

// Prints "1 <dir>" or "2 <dir> <memory?>" when a writable cgroup with a pids controller exists
// at vouch's own position (never anywhere else in the hierarchy), else nothing.
const DETECT = `
own_v1=$(sed -n 's/^[0-9]*:pids:\\(.*\\)$/\\1/p' /proc/self/cgroup)
own_v2=$(sed -n 's/^0::\\(.*\\)$/\\1/p' /proc/self/cgroup)
if [ -n "$own_v1" ] && [ -w "/sys/fs/cgroup/pids\${own_v1%/}/cgroup.procs" ]; then
  echo "1 /sys/fs/cgroup/pids\${own_v1%/}"
elif [ -n "$own_v2" ] && [ -f /sys/fs/cgroup/cgroup.controllers ]; then
  d="/sys/fs/cgroup\${own_v2%/}"
  if [ -w "$d/cgroup.procs" ] && grep -qw pids "$d/cgroup.subtree_control" 2>/dev/null; then
    if grep -qw memory "$d/cgroup.subtree_control"; then echo "2 $d memory"; else echo "2 $d"; fi
  fi
fi
`;

let detected: CgroupHost | null | undefined;

/**
 * The cgroup host of this process, detected once (a shell reads
 * /proc/self/cgroup and tests the dir); null when there is none to use.
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { cgroupHost } from "./_cgroup_host.ts";
 * const h = cgroupHost();
 * ok(h === null || h.parent.startsWith("/sys/fs/cgroup"));
 * ```
 */
export function cgroupHost(): CgroupHost | null {
  if (detected !== undefined) return detected;
  if (SH === null) return (detected = null);
  // Deno refusing the shell would read as "no cgroup here" and drop the limits silently.
  requireRun(SH, "the cgroup probe and launcher");
  detected = null;
  try {
    const out = execFileSync(SH, ["-c", DETECT], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 5000,
      env: { PATH: "/usr/bin:/bin" },
    }).trim();
    const m = /^([12]) (\/sys\/fs\/cgroup\S*?)( memory)?$/.exec(out);
    if (m !== null) {
      detected = { version: m[1] === "1" ? 1 : 2, parent: m[2]!, memory: m[3] !== undefined };
    }
  } catch {
    detected = null;
  }
  return detected;
}
