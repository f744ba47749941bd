import { permissionDenied } from "./permission.ts";
import process from "node:process";
import { SIGNAL_NUMBERS, spawnChild, type SpawnedChild } from "./_spawn.ts";
import { BoundedCapture, type CapturedStream, DEFAULT_MAX_CAPTURE_BYTES } from "./capture.ts";
import type { ProcessResult, ProcessSpec, SpawnError } from "./types.ts";
import { type LimitKind, limitMessage, type SandboxLimits } from "../sandbox/limits.ts";
import { startWatchdog, sweepMarked } from "./_watchdog.ts";
import { type AfterChild, afterChildAsync, exitLimit } from "./_kernel_limits.ts";
import { budgetLimit, watchBudget } from "./_tree_budget.ts";
import { procBlind, watchTreeTotals } from "./_proc_scan.ts";
import { resolveProgram } from "./_program.ts";
import { releaseFifos } from "./_user_launch.ts";
import {
  checkedArgv,
  type ChildPlan,
  cwdError,
  type Launch,
  planChild,
  prepareLaunch,
  removePrivateDirs,
} from "./_launch.ts";

export { childEnv } from "./_child_env.ts";
export { MAX_TIMEOUT_MS } from "./_launch.ts";

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
  const argv = checkedArgv(spec);
  const plan = planChild(spec);
  const failed = (error: SpawnError) => emptyResult(argv, spec, plan.envNames, error, started);
  const badCwd = cwdError(spec.cwd);
  if (badCwd !== null) return failed(badCwd);
  const resolved = resolveProgram(argv[0]!, spec.cwd, plan.path);
  if (typeof resolved !== "string") return failed(resolved);
  const launch = await prepareLaunch(spec, plan, argv, resolved);
  if ("code" in launch) return failed(launch);

  const out = new BoundedCapture(spec.maxCaptureBytes ?? DEFAULT_MAX_CAPTURE_BYTES);
  const err = new BoundedCapture(spec.maxCaptureBytes ?? DEFAULT_MAX_CAPTURE_BYTES);
  const child = await spawnLaunch(spec, launch, out, err);
  if ("code" in child) return failed(child);
  const watch = watchChild(child, spec, launch, plan);
  const exit = await child.status;
  await watch.stop();
  const leftoversKilled = killLeftovers(child.pid, launch);
  await drainStreams(child, spec.drainMs ?? DEFAULT_DRAIN_MS);
  const after = await releaseLaunch(launch, plan.limits);

  const signal = exit.signal ?? null;
  const exitCode = watch.timedOut || watch.cancelled
    ? 124
    : signal !== null
    ? 128 + (SIGNAL_NUMBERS[signal] ?? 0)
    : exit.code;
  const stdout = out.finish();
  const stderr = err.finish();
  const limit = limitHit(watch, after, plan, exitCode, signal, stderr);
  return {
    argv,
    spawnedArgv: launch.argv,
    cwd: spec.cwd,
    exitCode,
    signal,
    timedOut: watch.timedOut,
    cancelled: watch.cancelled,
    durationMs: performance.now() - started,
    stdout,
    stderr,
    envNames: plan.envNames,
    sandbox: plan.sandbox.kind,
    spawnError: null,
    leftoversKilled,
    limit: limit === null || plan.limits === null
      ? null
      : { kind: limit, message: limitMessage(limit, plan.limits) },
  };
}

/**
 * Spawns a launch, its streams into the captures (stdout also to the spec's
 * live sink). A refused or failed spawn undoes the launch's private dirs:
 * Deno refusing it throws a permission error, anything else is a
 * `spawn_failed` error.
 */
async function spawnLaunch(
  spec: ProcessSpec,
  launch: Launch,
  out: BoundedCapture,
  err: BoundedCapture,
): Promise<SpawnedChild | SpawnError> {
  try {
    // `env` replaces the whole environment (nothing of vouch's own leaks in).
    return await spawnChild({
      program: launch.argv[0]!,
      args: launch.argv.slice(1),
      cwd: spec.cwd,
      env: launch.env,
      detached: launch.grouped,
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
    removePrivateDirs(launch.privateDirs);
    if (launch.fifo !== null) releaseFifos(launch.fifo);
    // The runtime refusing the spawn (Deno's --allow-run) is no result of the command: a
    // permission error naming the flag, never "not found" or "not a repository" further up.
    const denied = permissionDenied(error);
    if (denied !== null) throw denied;
    const message = error instanceof Error ? error.message : String(error);
    return { code: "spawn_failed", message: `Cannot run: ${message}` };
  }
}

/** What watching a running child found, and how to stop watching once it exited. */
interface ChildWatch {
  readonly timedOut: boolean;
  readonly cancelled: boolean;
  /** The limit that killed it while it ran, or null. */
  readonly limit: LimitKind | null;
  /** Marks the child exited, then stops the watchers, timers and abort listener. */
  stop(): Promise<void>;
}

/** Sends a signal to the child's group, or to the child alone when it has none yet. */
function signaller(child: SpawnedChild, grouped: boolean): (signal: NodeJS.Signals) => void {
  return (signal) => {
    // Before setsid() has run the group does not exist yet: signal the child itself. A child
    // without a group of its own (bwrap, vouch's git) is signalled by pid (see ownGroup).
    if (!grouped || !killGroup(child.pid, signal)) {
      try {
        child.kill(signal);
      } catch { /* already exited */ }
    }
  };
}

/**
 * Watches a running child: its timeout and the spec's abort signal end it
 * (SIGTERM to the group, `graceMs`, then SIGKILL); a memory, process or write
 * limit exceeded kills it at once.
 */
function watchChild(
  child: SpawnedChild,
  spec: ProcessSpec,
  launch: Launch,
  plan: ChildPlan,
): ChildWatch {
  const { limits } = plan;
  const state = {
    timedOut: false,
    cancelled: false,
    limit: null as LimitKind | null,
    exited: false,
  };
  const signalAll = signaller(child, launch.grouped);
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  const terminate = () => {
    if (state.exited) return;
    signalAll("SIGTERM");
    killTimer = setTimeout(() => {
      if (!state.exited) signalAll("SIGKILL");
    }, spec.graceMs ?? DEFAULT_GRACE_MS);
  };
  const timeoutTimer = spec.timeoutMs !== undefined
    ? setTimeout(() => {
      if (state.exited || state.cancelled) return;
      state.timedOut = true;
      terminate();
    }, Math.max(0, spec.timeoutMs))
    : undefined;
  const onAbort = () => {
    if (state.exited || state.timedOut) return;
    state.cancelled = true;
    terminate();
  };
  if (spec.signal?.aborted) onAbort();
  else spec.signal?.addEventListener("abort", onAbort, { once: true });
  // Memory and process limits, and the tree's write budget at its peak (a listing every second
  // or so): exceeding one kills the whole child at once.
  const onLimit = (kind: LimitKind) => {
    if (state.exited) return;
    state.limit = kind;
    signalAll("SIGKILL");
  };
  // bwrap and its init are in the tree besides the command's own.
  const overhead = plan.sandbox.kind !== "bwrap" ? 0 : 2;
  const pid = child.pid;
  const watchdog = limits === null ? null : startWatchdog(pid, limits, onLimit, { overhead });
  // Where vouch may not read /proc itself (the CLI's flags), a shell scans it every second or so.
  const totalsWatch = limits === null || !procBlind()
    ? null
    : watchTreeTotals(pid, limits, overhead, onLimit);
  const budgetWatch = launch.budget === null || limits?.diskMb === undefined
    ? null
    : watchBudget(launch.budget, limits.diskMb, () => onLimit("disk"));
  return {
    get timedOut() {
      return state.timedOut;
    },
    get cancelled() {
      return state.cancelled;
    },
    get limit() {
      return state.limit;
    },
    async stop() {
      state.exited = true;
      watchdog?.stop();
      await budgetWatch?.stop();
      await totalsWatch?.stop();
      clearTimeout(timeoutTimer);
      clearTimeout(killTimer);
      spec.signal?.removeEventListener("abort", onAbort);
    },
  };
}

/** Kills what the child left running; true when there was something. */
function killLeftovers(pid: number, launch: Launch): boolean {
  // Anything still in the group is a leftover grandchild: kill it so pipes close. (A sandbox's
  // processes died with its pid namespace when bwrap's init exited.)
  const inGroup = launch.grouped && killGroup(pid, "SIGKILL");
  // Unsandboxed: daemons that left the group (setsid) are found by the marker and killed.
  const swept = launch.marker !== null && sweepMarked(launch.marker, pid) > 0;
  return inGroup || swept;
}

/** Waits at most `drainMs` for the child's pipes to close, then cuts them. */
async function drainStreams(child: SpawnedChild, drainMs: number): Promise<void> {
  let drainTimer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<"late">((r) => drainTimer = setTimeout(() => r("late"), drainMs));
  const drained = await Promise.race([
    Promise.all([child.outDone, child.errDone]).then(() => "done" as const),
    bound,
  ]);
  clearTimeout(drainTimer);
  if (drained === "late") {
    await child.cancelStreams();
    await Promise.all([child.outDone, child.errDone]);
  }
}

/** Undoes a launch after its child: private dirs, FIFOs back; reads the cgroup and write budget. */
async function releaseLaunch(
  launch: Launch,
  limits: SandboxLimits | null,
): Promise<AfterChild | null> {
  removePrivateDirs(launch.privateDirs);
  if (launch.fifo !== null) releaseFifos(launch.fifo);
  const after = limits === null
    ? null
    : await afterChildAsync(launch.cgroup?.dir ?? null, launch.budget);
  return after;
}

/**
 * The limit the child hit: one a watcher killed it for, else the cgroup's
 * verdict, the write budget's, or what its exit shows (not after a timeout or
 * abort).
 */
function limitHit(
  watch: ChildWatch,
  after: AfterChild | null,
  plan: ChildPlan,
  exitCode: number,
  signal: string | null,
  stderr: CapturedStream,
): LimitKind | null {
  const { limits } = plan;
  let limit = watch.limit ?? after?.cgroupLimit ?? null;
  if (limit === null && after !== null && limits?.diskMb !== undefined) {
    limit = budgetLimit(after, limits.diskMb, limits.fileSizeMb);
  }
  if (limit === null && !watch.timedOut && !watch.cancelled) {
    limit = exitLimit(exitCode, signal, stderr, plan.sandbox);
  }
  return limit;
}
