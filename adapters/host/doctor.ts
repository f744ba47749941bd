import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { runGit } from "../git/hardened_git.ts";
import { runProcess } from "../process/run.ts";
import { probeSandbox, type SandboxProbe } from "./sandbox_probe.ts";
import { cgroupHost, prlimitPath } from "../process/_kernel_limits.ts";
import { bwrapProfile } from "../sandbox/bwrap.ts";
import { SYSTEM_DIRS } from "../sandbox/_system_root.ts";

function toolchainView(): string[] {
  let dir: string | null = null;
  try {
    dir = mkdtempSync(join(tmpdir(), "vouch-doctor-"));
    const profile = bwrapProfile({ worktree: dir, bwrapPath: "/bin/true" });
    return (profile.root ?? []).filter((m) =>
      m.kind === "ro" && !SYSTEM_DIRS.some((d) => m.path === d || m.path.startsWith(d + "/"))
    ).map((m) => m.path);
  } catch {
    return [];
  } finally {
    if (dir !== null) rmSync(dir, { recursive: true, force: true });
  }
}

/** Minimum git: 2.39.2 carries the CVE-2023-23946 fix ("beyond a symbolic link"). */
export const MIN_GIT_VERSION: readonly [number, number, number] = [2, 39, 2];

/** One line of the doctor report. */
export interface DoctorItem {
  /** Whether it is usable. */
  readonly ok: boolean;
  /** Version or detail. */
  readonly detail: string;
  /** Why not (or `null`). */
  readonly reason: string | null;
}

/** Whether vouch runs as root (`id -u`: Deno may refuse `process.getuid` under the CLI's flags). */
function runningAsRoot(): boolean {
  try {
    return execFileSync("id", ["-u"], { encoding: "utf8", env: { PATH: "/usr/bin:/bin" } })
      .trim() === "0";
  } catch {
    return false;
  }
}

/** What `vouch doctor` reports. */
export interface DoctorReport {
  /** The Deno runtime running vouch. */
  readonly deno: DoctorItem;
  /** git (required). */
  readonly git: DoctorItem;
  /** Killing a whole process group (timeouts reach grandchildren). */
  readonly processGroups: DoctorItem;
  /** The sandbox probe. */
  readonly sandbox: SandboxProbe;
  /**
   * The profile `auto` (the default) uses: `bwrap`, or `none` when bwrap does
   * not work here, in which case `vouch run`/`verify` stop (exit 5) unless
   * `--sandbox none` is passed explicitly.
   */
  readonly recommendedSandbox: "bwrap" | "none";
  /** What a sandboxed check sees beyond system dirs and its tree: toolchain dirs found on PATH. */
  readonly sandboxToolchains: readonly string[];
  /**
   * How the kernel bounds each child: `prlimit` (rlimits), the cgroup dir
   * vouch makes a cgroup per child in (null: none here), and whether the
   * process limit is enforced (not for root without a cgroup: uid 0 is exempt
   * from RLIMIT_NPROC).
   */
  readonly sandboxLimits: {
    readonly prlimit: string | null;
    readonly cgroup: string | null;
    readonly processesEnforced: boolean;
  };
  /** Whether everything required is present. */
  readonly ok: boolean;
}

/**
 * Parses `git version X.Y.Z...` and compares with {@linkcode MIN_GIT_VERSION}.
 *
 * @example
 * ```ts
 * import { gitVersionOk } from "./doctor.ts";
 * if (!gitVersionOk("git version 2.39.5") || gitVersionOk("git version 2.39.1")) throw new Error();
 * if (gitVersionOk("nonsense")) throw new Error();
 * ```
 */
export function gitVersionOk(line: string): boolean {
  const m = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(line);
  if (!m) return false;
  const v = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
  for (let i = 0; i < 3; i++) {
    if (v[i]! !== MIN_GIT_VERSION[i]!) return v[i]! > MIN_GIT_VERSION[i]!;
  }
  return true;
}

/**
 * Collects what vouch needs from this machine, by running things for real:
 * git, a process-group kill, and the sandbox probe.
 *
 * @example
 * ```ts
 * import { equal, match } from "node:assert/strict";
 * import { collectDoctorReport } from "./doctor.ts";
 * const report = await collectDoctorReport();
 * match(report.git.detail, /^git version /); // git is required, and here
 * equal(report.ok, report.git.ok && report.processGroups.ok && report.sandbox.bwrap.available);
 * equal(report.recommendedSandbox, report.sandbox.bwrap.available ? "bwrap" : "none");
 * ```
 */
export async function collectDoctorReport(): Promise<DoctorReport> {
  // The runtime vouch runs on (the item keeps its name; under Node it says node).
  const versions = process.versions as { deno?: string; node: string };
  const deno: DoctorItem = {
    ok: true,
    detail: versions.deno !== undefined ? `deno ${versions.deno}` : `node ${versions.node}`,
    reason: null,
  };
  const gitRun = await runGit(["--version"], { cwd: "/", timeoutMs: 10_000 });
  const gitLine = gitRun.stdout.head.trim();
  const git: DoctorItem = gitRun.spawnError !== null
    ? { ok: false, detail: "git not found", reason: gitRun.spawnError.message }
    : gitVersionOk(gitLine)
    ? { ok: true, detail: gitLine, reason: null }
    : {
      ok: false,
      detail: gitLine,
      reason: `git ${MIN_GIT_VERSION.join(".")} or newer is required`,
    };
  const group = await runProcess({
    shell: 'trap "" TERM; sleep 30 & echo $!; sleep 30',
    cwd: "/",
    timeoutMs: 100,
    graceMs: 100,
  });
  const pid = Number(group.stdout.head.trim());
  let survivor = false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    survivor = !/\) [ZX] /.test(stat);
  } catch {
    survivor = false;
  }
  const processGroups: DoctorItem = group.timedOut && pid > 0 && !survivor
    ? { ok: true, detail: "timeouts kill the whole process group", reason: null }
    : {
      ok: false,
      detail: "process-group kill failed",
      reason: `a grandchild (pid ${pid}) survived the timeout`,
    };
  // The doctor probes afresh: a success an earlier run remembered is checked again.
  const sandbox = await probeSandbox({ fresh: true });
  return {
    deno,
    git,
    processGroups,
    sandbox,
    recommendedSandbox: sandbox.bwrap.available ? "bwrap" : "none",
    sandboxToolchains: toolchainView(),
    sandboxLimits: {
      prlimit: prlimitPath(),
      cgroup: cgroupHost()?.parent ?? null,
      processesEnforced: prlimitPath() !== null && (cgroupHost() !== null || !runningAsRoot()),
    },
    // The default requires a working sandbox: without one, runs stop unless --sandbox none.
    ok: git.ok && processGroups.ok && sandbox.bwrap.available,
  };
}
