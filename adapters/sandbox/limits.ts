/**
 * Resource limits of one sandboxed child (a check, a setup command or an
 * agent), how they are enforced, and the defaults.
 *
 * - `memoryMb`: resident memory of the child's whole process tree, polled by
 *   the process runner's watchdog (RLIMIT_AS is not used: V8 and Go reserve
 *   far more address space than they use, and Deno aborts under 4 GiB).
 * - `processes`: processes alive in the child's tree at once (watchdog; under
 *   bwrap run by a non-root user RLIMIT_NPROC is set too, which counts only
 *   the sandbox's own user namespace).
 * - `fileSizeMb`: largest file the child may write (RLIMIT_FSIZE via `prlimit`, or as root
 *   the launcher shell's `ulimit`).
 * - `tmpMb`: size of the private `/tmp` tmpfs, of `/dev/shm` and of every scratch tmpfs.
 * - `diskMb`: how much a child may grow its tree (the clean tree, an agent's
 *   worktree), measured before and after it (`du`, allocated bytes).
 * - `cpuSeconds`: CPU time of each process (RLIMIT_CPU, set like RLIMIT_FSIZE: SIGXCPU
 *   at the limit, SIGKILL a second later); absent, only the timeout bounds it.
 *
 * @module
 */

/** Limits of one child; every field in MiB or a count. */
export interface SandboxLimits {
  /** Resident memory of the whole process tree, MiB. */
  readonly memoryMb: number;
  /** Processes alive at once in the tree. */
  readonly processes: number;
  /** Largest file written, MiB. */
  readonly fileSizeMb: number;
  /** Private `/tmp` size, MiB (bwrap only; `none` has no private tmpfs). */
  readonly tmpMb: number;
  /** Growth of the child's tree allowed, MiB (bwrap only; default 8192, agents 16384). */
  readonly diskMb?: number;
  /** CPU time of each process, seconds (absent: only the wall-clock timeout). */
  readonly cpuSeconds?: number;
}

/** Which limit a child exceeded. */
export type LimitKind = "memory" | "processes" | "file_size" | "tmp" | "disk" | "cpu";

/** Defaults for checks and setup commands. */
export const DEFAULT_CHECK_LIMITS: SandboxLimits = {
  memoryMb: 4096,
  processes: 256,
  fileSizeMb: 1024,
  tmpMb: 512,
  diskMb: 8192,
};

/** Defaults for agents (they run a whole CLI, language servers and test runs). */
export const DEFAULT_AGENT_LIMITS: SandboxLimits = {
  memoryMb: 8192,
  processes: 1024,
  fileSizeMb: 4096,
  tmpMb: 2048,
  diskMb: 16384,
};

/** Ceilings a contract or flag may ask for (larger values are a usage error). */
export const MAX_LIMITS: SandboxLimits = {
  memoryMb: 1024 * 1024,
  processes: 100_000,
  fileSizeMb: 1024 * 1024,
  tmpMb: 1024 * 1024,
  diskMb: 1024 * 1024 * 1024,
  cpuSeconds: 7 * 24 * 3600,
};

/**
 * Fills the fields a contract left out with `defaults`.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { DEFAULT_CHECK_LIMITS, withDefaultLimits } from "./limits.ts";
 * const l = withDefaultLimits({ memoryMb: 64 }, DEFAULT_CHECK_LIMITS);
 * equal(l.memoryMb, 64);
 * equal(l.processes, DEFAULT_CHECK_LIMITS.processes);
 * ```
 */
export function withDefaultLimits(
  partial: Partial<SandboxLimits> | undefined,
  defaults: SandboxLimits,
): SandboxLimits {
  const cpuSeconds = partial?.cpuSeconds ?? defaults.cpuSeconds;
  return {
    memoryMb: partial?.memoryMb ?? defaults.memoryMb,
    processes: partial?.processes ?? defaults.processes,
    fileSizeMb: partial?.fileSizeMb ?? defaults.fileSizeMb,
    tmpMb: partial?.tmpMb ?? defaults.tmpMb,
    ...(partial?.diskMb ?? defaults.diskMb) !== undefined
      ? { diskMb: (partial?.diskMb ?? defaults.diskMb)! }
      : {},
    ...cpuSeconds !== undefined ? { cpuSeconds } : {},
  };
}

/**
 * The human sentence for an exceeded limit.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { DEFAULT_CHECK_LIMITS, limitMessage } from "./limits.ts";
 * equal(limitMessage("processes", DEFAULT_CHECK_LIMITS), "exceeded the process limit (256 at once)");
 * ```
 */
export function limitMessage(kind: LimitKind, limits: SandboxLimits): string {
  switch (kind) {
    case "memory":
      return `exceeded the memory limit (${limits.memoryMb} MiB)`;
    case "processes":
      return `exceeded the process limit (${limits.processes} at once)`;
    case "file_size":
      return `exceeded the file size limit (${limits.fileSizeMb} MiB per file)`;
    case "tmp":
      return `filled its private /tmp (${limits.tmpMb} MiB)`;
    case "disk":
      return `wrote more than its tree's budget (${limits.diskMb ?? "?"} MiB)`;
    case "cpu":
      return `exceeded the CPU time limit (${limits.cpuSeconds ?? "?"} s per process)`;
  }
}
