import { permissionDenied } from "./permission.ts";
import { mkdtempSync, rmdirSync, rmSync, statSync } from "node:fs";
import { tmpdir as osTmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import process from "node:process";
import { SIGNAL_NUMBERS, spawnChild, type SpawnedChild } from "./_spawn.ts";
import { BoundedCapture, DEFAULT_MAX_CAPTURE_BYTES } from "./capture.ts";
import {
  type ProcessResult,
  type ProcessSpec,
  ProcessSpecError,
  type SpawnError,
} from "./types.ts";
import { BWRAP_HOME, bwrapArgv, leadingProgram, withPrograms } from "../sandbox/bwrap.ts";
import {
  DEFAULT_CHECK_LIMITS,
  type LimitKind,
  limitMessage,
  type SandboxLimits,
} from "../sandbox/limits.ts";
import { RUN_MARKER_ENV, startWatchdog, sweepMarked } from "./_watchdog.ts";
import { afterChildAsync, childCgroup, exitLimit, limitPrefix } from "./_kernel_limits.ts";
import { budgetLimit, startBudget, watchBudget } from "./_tree_budget.ts";
import { procBlind, watchTreeTotals } from "./_proc_scan.ts";
import { childEnv } from "./_child_env.ts";
import { resolveProgram } from "./_program.ts";
import { handOverTrees, mappedLaunch, removeFifos } from "./_user_launch.ts";

export { childEnv } from "./_child_env.ts";

/** The largest timeout a timer can hold (2^31 - 1 ms); more is a spec error, never "fire now". */
export const MAX_TIMEOUT_MS = 2_147_483_647;

const DEFAULT_GRACE_MS = 2000;
const DEFAULT_DRAIN_MS = 1000;

function killGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Removes the private home synchronously (no event-loop hop per check). */
function removeQuietly(dir: string): void {
  try {
    // Usually still empty: a plain rmdir is much cheaper than a recursive walk.
    rmdirSync(dir);
    return;
  } catch {
    // Not empty: fall through.
  }
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    // A child may have left an unremovable file; the temp dir is the OS's to reap.
  }
}

/**
 * How a child is started, with no launcher program in front of it (so Deno's
 * `--allow-run=<list>` names exactly the programs vouch starts):
 *
 * - `bwrap`: spawned plainly. `--unshare-pid` makes bwrap's init pid 1 of the
 *   sandbox, and `--die-with-parent` kills it when bwrap dies; the kernel then
 *   kills everything in the pid namespace. So signalling bwrap's pid ends the
 *   whole sandbox, and the sandbox dies with vouch, even when vouch is killed
 *   with SIGKILL.
 * - unsandboxed checks and agents: `detached` (the runtime calls setsid() in
 *   the child before exec), so the child leads a process group that a timeout
 *   kills whole, and a Ctrl-C at the terminal reaches vouch alone, which then
 *   cancels it; daemons that leave the group are swept by the run marker.
 * - vouch's own tools (`ownTool`: git): spawned plainly and signalled by pid
 *   (a detached spawn costs a fork of the runtime, about 10 ms each).
 */
function ownGroup(sandbox: ProcessSpec["sandbox"], ownTool: boolean): boolean {
  return (sandbox?.kind ?? "none") === "none" && !ownTool;
}

function emptyResult(
  argv: readonly string[],
  spec: ProcessSpec,
  envNames: string[],
  spawnError: SpawnError,
  started: number,
): ProcessResult {
  const empty = new BoundedCapture(2).finish();
  return {
    argv,
    spawnedArgv: [],
    cwd: spec.cwd,
    exitCode: spawnError.code === "not_executable" ? 126 : 127,
    signal: null,
    timedOut: false,
    cancelled: false,
    durationMs: performance.now() - started,
    stdout: empty,
    stderr: { ...empty },
    envNames,
    sandbox: spec.sandbox?.kind ?? "none",
    spawnError,
    leftoversKilled: false,
    limit: null,
  };
}

/**
 * Runs one process with a cleared, allowlisted environment, stdin from
 * `/dev/null` (unless bytes are given), in its own process group, under the
 * given sandbox profile, with bounded capture of both streams. Never throws
 * for a command that cannot run: that is a result with `spawnError` set.
 * Throws {@linkcode ProcessSpecError} only for a malformed spec.
 *
 * On timeout or abort: SIGTERM to the whole group, `graceMs`, then SIGKILL;
 * exit code 124. After the child exits, anything left in its group is killed
 * and pipes are drained for at most `drainMs`.
 *
 * @example
 * ```ts
 * import { runProcess } from "./run.ts";
 * const r = await runProcess({ argv: ["echo", "hi"], cwd: "/" });
 * if (r.exitCode !== 0 || r.stdout.head !== "hi\n") throw new Error();
 * ```
 */
export async function runProcess(spec: ProcessSpec): Promise<ProcessResult> {
  const started = performance.now();
  if ((spec.argv === undefined) === (spec.shell === undefined)) {
    throw new ProcessSpecError("invalid_spec", "Cannot run: give exactly one of argv and shell");
  }
  const argv: readonly string[] = spec.shell !== undefined ? ["sh", "-c", spec.shell] : spec.argv!;
  if (argv.length === 0) throw new ProcessSpecError("invalid_spec", "Cannot run: empty argv");
  if (!isAbsolute(spec.cwd)) {
    throw new ProcessSpecError("invalid_spec", `Cannot run: cwd must be absolute: ${spec.cwd}`);
  }
  if (
    spec.timeoutMs !== undefined &&
    !(Number.isFinite(spec.timeoutMs) && spec.timeoutMs <= MAX_TIMEOUT_MS)
  ) {
    throw new ProcessSpecError(
      "invalid_spec",
      `Cannot run: timeout ${spec.timeoutMs} ms is past the timer range (max ${MAX_TIMEOUT_MS} ms)`,
    );
  }
  const sandbox = spec.sandbox ?? { kind: "none" as const };
  // bwrap profiles always carry limits (default: a check's); an unsandboxed child only when its
  // caller set them (checks and agents do; vouch's own git commands do not).
  const limits: SandboxLimits | null = sandbox.limits ??
    (sandbox.kind === "bwrap" ? DEFAULT_CHECK_LIMITS : null);

  let privateDir: string | null = null;
  let privateTmp: string | null = null;
  let home: string;
  let tmpdir: string;
  if (sandbox.kind === "bwrap") {
    home = sandbox.home ?? BWRAP_HOME;
    tmpdir = "/tmp";
  } else if (spec.ownTool === true) {
    home = spec.home ?? "/nonexistent";
    tmpdir = osTmpdir();
  } else if (spec.home !== undefined) {
    home = spec.home;
    tmpdir = "";
  } else {
    home = "";
    tmpdir = "";
  }
  const envProbe = childEnv(spec, home, tmpdir);
  const envNames = [
    ...Object.keys(envProbe),
    ...(sandbox.kind === "none" && spec.ownTool !== true ? [RUN_MARKER_ENV] : []),
  ].sort();

  try {
    if (!statSync(spec.cwd).isDirectory()) {
      return emptyResult(argv, spec, envNames, {
        code: "bad_cwd",
        message: `Cannot run: cwd is not a directory: ${spec.cwd}`,
      }, started);
    }
  } catch {
    return emptyResult(argv, spec, envNames, {
      code: "bad_cwd",
      message: `Cannot run: cwd does not exist: ${spec.cwd}`,
    }, started);
  }
  const resolved = resolveProgram(argv[0]!, spec.cwd, envProbe.PATH!);
  if (typeof resolved !== "string") return emptyResult(argv, spec, envNames, resolved, started);

  // A marker in the environment of everything an unsandboxed child starts: the sweep finds
  // `setsid` daemons by it after the child exits.
  const marker = sandbox.kind === "none" && spec.ownTool !== true ? crypto.randomUUID() : null;
  if (sandbox.kind === "none" && spec.ownTool !== true) {
    if (spec.home === undefined) {
      privateDir = mkdtempSync(join(osTmpdir(), "vouch-proc-"));
      home = privateDir;
    }
    // TMPDIR is never HOME (Codex refuses to create its helpers under TMPDIR).
    privateTmp = mkdtempSync(join(osTmpdir(), "vouch-tmp-"));
    tmpdir = privateTmp;
  }
  const env = {
    ...(sandbox.kind === "bwrap" ? sandbox.env ?? {} : {}),
    ...childEnv(spec, home, tmpdir),
    ...(marker !== null ? { [RUN_MARKER_ENV]: marker } : {}),
  };
  const limited = limits === null
    ? [...argv]
    : [...limitPrefix(limits, sandbox.kind === "bwrap"), ...argv];
  // The programs a sandboxed child is started by must be visible inside (their real dirs).
  const spawnedArgv = sandbox.kind === "bwrap"
    ? bwrapArgv(
      withPrograms(sandbox, [
        resolved,
        ...(spec.shell !== undefined ? [leadingProgram(spec.shell) ?? ""] : []),
      ]),
      limited,
      spec.cwd,
      env,
    )
    : limited;
  // As root, the sandbox's uid 0 is an unprivileged host uid: a launcher writes the map, and
  // the writable trees are that uid's before the write budget's stamp (chown changes ctime).
  const userMap = sandbox.kind === "bwrap" ? sandbox.userMap : undefined;
  if (userMap !== undefined && sandbox.kind === "bwrap") {
    try {
      await handOverTrees(sandbox.writable, userMap);
    } catch (error) {
      if (privateDir) removeQuietly(privateDir);
      if (privateTmp) removeQuietly(privateTmp);
      // Deno refusing the hand-over's shell is a permission error naming the flag (as a refused
      // spawn below), not a sandbox that does not work here.
      const denied = permissionDenied(error);
      if (denied !== null) throw denied;
      return emptyResult(argv, spec, envNames, {
        code: "spawn_failed",
        message: error instanceof Error ? error.message : String(error),
      }, started);
    }
  }
  const mapped = userMap === undefined ? spawnedArgv : mappedLaunch(spawnedArgv, userMap);
  // Kernel-enforced limits for the whole tree where the host gives vouch a cgroup.
  const cgroup = limits === null ? null : childCgroup(limits);
  const contained = cgroup === null ? mapped : cgroup.wrap(mapped);
  const launch = contained;
  const grouped = ownGroup(spec.sandbox, spec.ownTool === true);
  // The tree's write budget: its growth is measured around the child (sandboxed children only).
  const tree = limits?.diskMb === undefined || sandbox.kind !== "bwrap"
    ? null
    : sandbox.writable[0] ?? null;
  const budget = tree === null ? null : startBudget(tree);

  const out = new BoundedCapture(spec.maxCaptureBytes ?? DEFAULT_MAX_CAPTURE_BYTES);
  const err = new BoundedCapture(spec.maxCaptureBytes ?? DEFAULT_MAX_CAPTURE_BYTES);
  let child: SpawnedChild;
  try {
    // `env` replaces the whole environment (nothing of vouch's own leaks in).
    child = await spawnChild({
      program: launch[0]!,
      args: launch.slice(1),
      cwd: spec.cwd,
      env,
      detached: grouped,
      stdin: spec.stdin ?? undefined,
      openStdin: spec.openStdin,
      onStdout: (chunk) => {
        out.push(chunk);
        if (spec.onStdout !== undefined) {
          try {
            spec.onStdout(chunk);
          } catch {
            // a broken live sink never changes the capture
          }
        }
      },
      onStderr: (chunk) => err.push(chunk),
    });
  } catch (error) {
    if (privateDir) removeQuietly(privateDir);
    if (privateTmp) removeQuietly(privateTmp);
    budget?.dispose();
    // The runtime refusing the spawn (Deno's --allow-run) is no result of the command: a
    // permission error naming the flag, never "not found" or "not a repository" further up.
    const denied = permissionDenied(error);
    if (denied !== null) throw denied;
    const message = error instanceof Error ? error.message : String(error);
    return emptyResult(argv, spec, envNames, {
      code: "spawn_failed",
      message: `Cannot run: ${message}`,
    }, started);
  }
  const pid = child.pid;
  const status = child.status;
  const outDone = child.outDone;
  const errDone = child.errDone;

  let timedOut = false;
  let cancelled = false;
  let exited = false;
  let limit: LimitKind | null = null;
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  const signalAll = (signal: NodeJS.Signals) => {
    // Before setsid() has run the group does not exist yet: signal the child itself. A child
    // without a group of its own (bwrap, vouch's git) is signalled by pid (see ownGroup).
    if (!grouped || !killGroup(pid, signal)) {
      try {
        child.kill(signal);
      } catch { /* already exited */ }
    }
  };
  const terminate = () => {
    if (exited) return;
    signalAll("SIGTERM");
    killTimer = setTimeout(() => {
      if (!exited) signalAll("SIGKILL");
    }, spec.graceMs ?? DEFAULT_GRACE_MS);
  };
  const timeoutTimer = spec.timeoutMs !== undefined
    ? setTimeout(() => {
      if (exited || cancelled) return;
      timedOut = true;
      terminate();
    }, Math.max(0, spec.timeoutMs))
    : undefined;
  const onAbort = () => {
    if (exited || timedOut) return;
    cancelled = true;
    terminate();
  };
  if (spec.signal?.aborted) onAbort();
  else spec.signal?.addEventListener("abort", onAbort, { once: true });
  // Memory and process limits, and the tree's write budget at its peak (a listing every second
  // or so): exceeding one kills the whole child at once.
  const onLimit = (kind: LimitKind) => {
    if (exited) return;
    limit = kind;
    signalAll("SIGKILL");
  };
  // bwrap and its init are in the tree besides the command's own.
  const overhead = sandbox.kind !== "bwrap" ? 0 : 2;
  const watchdog = limits === null ? null : startWatchdog(pid, limits, onLimit, { overhead });
  // Where vouch may not read /proc itself (the CLI's flags), a shell scans it every second or so.
  const totalsWatch = limits === null || !procBlind()
    ? null
    : watchTreeTotals(pid, limits, overhead, onLimit);
  const budgetWatch = budget === null || limits?.diskMb === undefined
    ? null
    : watchBudget(budget, limits.diskMb, () => onLimit("disk"));

  const { code: exitStatus, signal: exitSignal } = await status;
  exited = true;
  watchdog?.stop();
  await budgetWatch?.stop();
  await totalsWatch?.stop();
  clearTimeout(timeoutTimer);
  clearTimeout(killTimer);
  spec.signal?.removeEventListener("abort", onAbort);
  // Anything still in the group is a leftover grandchild: kill it so pipes close. (A sandbox's
  // processes died with its pid namespace when bwrap's init exited.)
  let leftoversKilled = grouped && killGroup(pid, "SIGKILL");
  // Unsandboxed: daemons that left the group (setsid) are found by the marker and killed.
  if (marker !== null && sweepMarked(marker, pid) > 0) leftoversKilled = true;

  let drainTimer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<"late">((r) =>
    drainTimer = setTimeout(() => r("late"), spec.drainMs ?? DEFAULT_DRAIN_MS)
  );
  const drained = await Promise.race([
    Promise.all([outDone, errDone]).then(() => "done" as const),
    bound,
  ]);
  clearTimeout(drainTimer);
  if (drained === "late") {
    await child.cancelStreams();
    await Promise.all([outDone, errDone]);
  }
  if (privateDir) removeQuietly(privateDir);
  if (privateTmp) removeQuietly(privateTmp);
  if (userMap !== undefined) removeFifos(mapped);
  const after = limits === null ? null : await afterChildAsync(cgroup?.dir ?? null, budget);
  budget?.dispose();

  const signal = exitSignal ?? null;
  const exitCode = timedOut || cancelled
    ? 124
    : signal !== null
    ? 128 + (SIGNAL_NUMBERS[signal] ?? 0)
    : exitStatus;
  const stdoutCapture = out.finish();
  const stderrCapture = err.finish();
  if (limit === null) limit = after?.cgroupLimit ?? null;
  if (limit === null && after !== null && limits?.diskMb !== undefined) {
    limit = budgetLimit(after, limits.diskMb, limits.fileSizeMb);
  }
  if (limit === null && !timedOut && !cancelled) {
    limit = exitLimit(exitCode, signal, stderrCapture, sandbox);
  }
  return {
    argv,
    spawnedArgv: launch,
    cwd: spec.cwd,
    exitCode,
    signal,
    timedOut,
    cancelled,
    durationMs: performance.now() - started,
    stdout: stdoutCapture,
    stderr: stderrCapture,
    envNames,
    sandbox: sandbox.kind,
    spawnError: null,
    leftoversKilled,
    limit: limit === null || limits === null
      ? null
      : { kind: limit, message: limitMessage(limit, limits) },
  };
}
