/**
 * The rlimits of a root-started (mapped) sandbox set by its launcher shell's
 * `ulimit` (`_launcher.ts`) instead of `prlimit` inside bwrap: one exec less
 * per check, the same limits on the command (bwrap and its init, which host
 * root runs, inherit them too and stay far below them).
 *
 * Only where that is the same: `RLIMIT_NPROC` set before bwrap makes the user
 * namespace is what the command inherits, and a namespace made by host root
 * bounds nothing above it (the kernel takes root's limit there as unlimited),
 * so it counts the sandbox's own processes, as `prlimit` inside did. Set by a
 * normal user it would also bound the namespace by all of that user's host
 * processes: unmapped sandboxes keep `prlimit` inside.
 *
 * Shells differ (`ulimit -f` counts 512-byte blocks in dash and POSIX-mode
 * bash, 1024-byte ones in bash otherwise; processes are `-p` in dash, `-u` in
 * bash): once per process a probe sets test values in a subshell and reads the
 * kernel's `/proc/self/limits` back. Anything it cannot confirm exactly (soft
 * and hard) leaves `prlimit` in place.
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import type { SandboxLimits } from "../sandbox/limits.ts";
import { requireRun } from "./permission.ts";

const MIB = 1024 * 1024;

// Test values in a subshell (the shell's own limits stay), then what the kernel holds.
const PROBE = `(
ulimit -f 8 && ulimit -d 8 && ulimit -c 0 && ulimit -t 7 && ulimit -St 5 || exit 1
if ulimit -u 77 2>/dev/null; then echo "nproc -u"; elif ulimit -p 77 2>/dev/null; then echo "nproc -p"; fi
while IFS= read -r l; do echo "$l"; done < /proc/self/limits
)`;

/** How this host's shell sets each limit: bytes per unit, and the option for processes. */
export interface UlimitUnits {
  readonly fileBytes: number;
  readonly dataBytes: number;
  readonly nproc: "-u" | "-p";
}

/**
 * The units the probe's output shows, or null unless every test value came
 * back exactly (soft and hard).
 *
 * @example
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * import { readUnits } from "./_shell_limits.ts";
 * const out = `nproc -p
 * Max cpu time              5                    7                    seconds
 * Max file size             4096                 4096                 bytes
 * Max data size             8192                 8192                 bytes
 * Max core file size        0                    0                    bytes
 * Max processes             77                   77                   processes`;
 * deepEqual(readUnits(out), { fileBytes: 512, dataBytes: 1024, nproc: "-p" });
 * equal(readUnits(out.replace("0                    0", "0                    unlimited")), null);
 * ```
 */
export function readUnits(out: string): UlimitUnits | null {
  const pair = (name: string): [number, number] | null => {
    const m = new RegExp(`^Max ${name}\\s+(\\d+)\\s+(\\d+)\\s`, "m").exec(out);
    return m === null ? null : [Number(m[1]), Number(m[2])];
  };
  const same = (name: string): number | null => {
    const p = pair(name);
    return p !== null && p[0] === p[1] ? p[0] : null;
  };
  const nproc = /^nproc (-u|-p)$/m.exec(out)?.[1] as "-u" | "-p" | undefined;
  const cpu = pair("cpu time");
  const file = same("file size");
  const data = same("data size");
  if (
    nproc === undefined || same("processes") !== 77 || same("core file size") !== 0 ||
    cpu?.[0] !== 5 || cpu[1] !== 7 || file === null || data === null
  ) return null;
  const fileBytes = file / 8;
  const dataBytes = data / 8;
  const unit = (b: number) => b === 512 || b === 1024;
  return unit(fileBytes) && unit(dataBytes) ? { fileBytes, dataBytes, nproc } : null;
}

let probed: UlimitUnits | null | undefined;

function units(sh: string): UlimitUnits | null {
  if (probed !== undefined) return probed;
  probed = null;
  try {
    requireRun(sh, "the rlimits of the sandbox's launcher");
    probed = readUnits(execFileSync(sh, ["-c", PROBE], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 5000,
      env: { PATH: "/usr/bin:/bin" },
    }));
  } catch {
    probed = null;
  }
  return probed;
}

/**
 * The `ulimit` arguments (option, value pairs) that set what
 * `limitPrefix(limits, true)` sets: file size, data, core 0, CPU (soft at the
 * limit, hard a second later) and processes (`processes + 2`: as before, room
 * for bwrap's init and the launcher's exec). Null when this host's shell
 * could not be confirmed to set them exactly: then `prlimit` does.
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { shellLimits } from "./_shell_limits.ts";
 * const u = shellLimits("/bin/sh", { memoryMb: 64, processes: 10, fileSizeMb: 1, tmpMb: 1, cpuSeconds: 5 });
 * ok(u === null || (u.includes("-St") && u.includes("5") && u.includes("12")));
 * ```
 */
export function shellLimits(sh: string, limits: SandboxLimits): string[] | null {
  const u = units(sh);
  const file = limits.fileSizeMb * MIB / (u?.fileBytes ?? 1);
  const data = limits.memoryMb * MIB / (u?.dataBytes ?? 1);
  if (u === null || !Number.isSafeInteger(file) || !Number.isSafeInteger(data)) return null;
  const out = ["-f", String(file), "-d", String(data), "-c", "0"];
  // Hard first (both set), then the soft limit under it.
  if (limits.cpuSeconds !== undefined) {
    out.push("-t", String(limits.cpuSeconds + 1), "-St", String(limits.cpuSeconds));
  }
  out.push(u.nproc, String(limits.processes + 2));
  return out;
}
