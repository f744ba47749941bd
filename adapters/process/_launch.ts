/**
 * What {@linkcode runProcess} starts a child with, made before the spawn and
 * undone after it: the checked argv, the child's home and TMPDIR (private
 * directories for an unsandboxed child), its environment, the argv that is
 * spawned (resource-limit prefix, bwrap, the user-map launcher, the cgroup),
 * and the write budget's start.
 *
 * @module
 */
import { permissionDenied } from "./permission.ts";
import { mkdtempSync, rmdirSync, rmSync, statSync } from "node:fs";
import { tmpdir as osTmpdir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { type ProcessSpec, ProcessSpecError, type SpawnError } from "./types.ts";
import { BWRAP_HOME, bwrapArgv, leadingProgram, withPrograms } from "../sandbox/bwrap.ts";
import type { BwrapSandbox, SandboxProfile } from "../sandbox/profile.ts";
import { closedToMapped } from "../sandbox/_user_map.ts";
import { DEFAULT_CHECK_LIMITS, type SandboxLimits } from "../sandbox/limits.ts";
import { RUN_MARKER_ENV } from "./_watchdog.ts";
import { type ChildCgroup, childCgroup, limitPrefix, shellPath } from "./_kernel_limits.ts";
import { startBudget, type TreeBudget } from "./_tree_budget.ts";
import { childEnv } from "./_child_env.ts";
import { fifoPrefix, handOverTrees } from "./_user_launch.ts";
import { launcherArgv } from "./_launcher.ts";
import { shellLimits } from "./_shell_limits.ts";

/** The largest timeout a timer can hold (2^31 - 1 ms); more is a spec error, never "fire now". */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * The argv a spec runs (`sh -c` for a shell line); throws
 * {@linkcode ProcessSpecError} for a malformed spec.
 *
 * @example
 * ```ts
 * import { deepEqual, throws } from "node:assert/strict";
 * import { checkedArgv } from "./_launch.ts";
 * deepEqual(checkedArgv({ shell: "true", cwd: "/" }), ["sh", "-c", "true"]);
 * throws(() => checkedArgv({ argv: ["true"], cwd: "relative" }));
 * ```
 */
export function checkedArgv(spec: ProcessSpec): readonly string[] {
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
  return argv;
}

/**
 * The `bad_cwd` spawn error of a cwd that is no directory, or null.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { cwdError } from "./_launch.ts";
 * equal(cwdError("/"), null);
 * equal(cwdError("/nonexistent-vouch")?.code, "bad_cwd");
 * ```
 */
export function cwdError(cwd: string): SpawnError | null {
  try {
    if (statSync(cwd).isDirectory()) return null;
    return { code: "bad_cwd", message: `Cannot run: cwd is not a directory: ${cwd}` };
  } catch {
    return { code: "bad_cwd", message: `Cannot run: cwd does not exist: ${cwd}` };
  }
}

/** How a spec's child is placed, decided before anything is made. */
export interface ChildPlan {
  readonly sandbox: SandboxProfile;
  /** Its resource limits, or null for none. */
  readonly limits: SandboxLimits | null;
  /** An unsandboxed child that is not vouch's own tool: private dirs and the run marker. */
  readonly marked: boolean;
  /** Its HOME and TMPDIR ("" for none) before private dirs are made. */
  readonly home: string;
  readonly tmpdir: string;
  /** The names of its environment, sorted (the result's `envNames`). */
  readonly envNames: string[];
  /** Its PATH, to resolve the program by. */
  readonly path: string;
}

/**
 * Decides a spec's sandbox, limits, HOME, TMPDIR and environment names.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { planChild } from "./_launch.ts";
 * const plan = planChild({ argv: ["git"], cwd: "/", ownTool: true });
 * equal(plan.marked, false);
 * equal(plan.home, "/nonexistent");
 * ```
 */
export function planChild(spec: ProcessSpec): ChildPlan {
  const sandbox = spec.sandbox ?? { kind: "none" as const };
  // bwrap profiles always carry limits (default: a check's); an unsandboxed child only when its
  // caller set them (checks and agents do; vouch's own git commands do not).
  const limits = sandbox.limits ?? (sandbox.kind === "bwrap" ? DEFAULT_CHECK_LIMITS : null);
  const marked = sandbox.kind === "none" && spec.ownTool !== true;
  const [home, tmpdir] = sandbox.kind === "bwrap"
    ? [sandbox.home ?? BWRAP_HOME, "/tmp"]
    : spec.ownTool === true
    ? [spec.home ?? "/nonexistent", osTmpdir()]
    : [spec.home ?? "", ""];
  const probe = childEnv(spec, home, tmpdir);
  const envNames = [...Object.keys(probe), ...(marked ? [RUN_MARKER_ENV] : [])].sort();
  return { sandbox, limits, marked, home, tmpdir, envNames, path: probe.PATH! };
}

/** Everything a child is spawned with, and what to undo after it. */
export interface Launch {
  /** What is spawned (the result's `spawnedArgv`). */
  readonly argv: readonly string[];
  /** Its whole environment. */
  readonly env: Record<string, string>;
  /** The run marker in its environment (unsandboxed children), or null. */
  readonly marker: string | null;
  /** It leads a process group of its own (see {@linkcode ownGroup}). */
  readonly grouped: boolean;
  /** The user map's FIFO prefix (the pair is removed after the child), or null. */
  readonly fifo: string | null;
  readonly cgroup: ChildCgroup | null;
  /** The write budget (sandboxed children with a disk limit), or null. */
  readonly budget: TreeBudget | null;
  /** The private HOME and TMPDIR made for it. */
  readonly privateDirs: readonly string[];
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

/** Removes the private HOME and TMPDIR of a launch. */
export function removePrivateDirs(dirs: readonly string[]): void {
  for (const dir of dirs) removeQuietly(dir);
}

/** An unsandboxed child's private HOME (unless the spec gave one) and TMPDIR. */
function makePrivateDirs(spec: ProcessSpec, plan: ChildPlan) {
  if (!plan.marked) return { home: plan.home, tmpdir: plan.tmpdir, made: [] };
  const home = spec.home ?? mkdtempSync(join(osTmpdir(), "vouch-proc-"));
  // TMPDIR is never HOME (Codex refuses to create its helpers under TMPDIR).
  const tmpdir = mkdtempSync(join(osTmpdir(), "vouch-tmp-"));
  return { home, tmpdir, made: spec.home === undefined ? [home, tmpdir] : [tmpdir] };
}

/**
 * The argv behind the launcher: limit prefix (unless the launcher sets the limits), then bwrap
 * for a sandboxed child.
 */
function sandboxedArgv(
  spec: ProcessSpec,
  plan: ChildPlan,
  argv: readonly string[],
  resolved: string,
  env: Record<string, string>,
  limitsInShell: boolean,
): string[] {
  const { sandbox, limits } = plan;
  const limited = limits === null || limitsInShell
    ? [...argv]
    : [...limitPrefix(limits, sandbox.kind === "bwrap"), ...argv];
  if (sandbox.kind !== "bwrap") return limited;
  return bwrapArgv(visibleProfile(spec, sandbox, resolved), limited, spec.cwd, env);
}

/** The profile with the programs a sandboxed child is started by visible (their real dirs). */
function visibleProfile(spec: ProcessSpec, sandbox: BwrapSandbox, resolved: string): BwrapSandbox {
  const programs = [
    resolved,
    ...(spec.shell !== undefined ? [leadingProgram(spec.shell) ?? ""] : []),
  ];
  return withPrograms(sandbox, programs);
}

/**
 * As root: the `not_executable` error of a program the sandbox's mapped uid cannot reach (a
 * script, or the program a shell line starts, beneath a directory closed to host uid 65534,
 * such as a 0700 one of root's), saying why and what to do; null when it can.
 */
function mappedAccessError(
  spec: ProcessSpec,
  sandbox: BwrapSandbox,
  resolved: string,
): SpawnError | null {
  const visible = visibleProfile(spec, sandbox, resolved);
  const lead = spec.shell !== undefined ? leadingProgram(spec.shell) : null;
  const closed = lead !== null
    ? closedToMapped(visible, resolve(spec.cwd, lead), true)
    : spec.shell === undefined
    ? closedToMapped(visible, resolve(spec.cwd, resolved), false)
    : null;
  if (closed === null) return null;
  const mode = closed.mode.toString(8).padStart(4, "0");
  return {
    code: "not_executable",
    message: `Cannot run: ${closed.program}: vouch runs as root, so the sandbox's user is host ` +
      `uid ${sandbox.userMap?.uid ?? 65534} (no capabilities), which cannot enter ${closed.dir} ` +
      `(mode ${mode}, owner uid ${closed.uid}); make that directory searchable by others ` +
      `(chmod o+x ${closed.dir}), put the program in one that is (/usr/local/bin, /opt), or run ` +
      `vouch as a normal user`,
  };
}

/**
 * Makes what the child is spawned with: private dirs, environment and marker,
 * the argv, the hand-over of the writable trees to a mapped uid, the cgroup and
 * the write budget. A hand-over that fails is a `spawn_failed` error (its
 * private dirs removed); Deno refusing its shell throws a permission error.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { planChild, prepareLaunch } from "./_launch.ts";
 * const spec = { argv: ["true"], cwd: "/", ownTool: true };
 * const launch = await prepareLaunch(spec, planChild(spec), ["true"], "/bin/true");
 * deepEqual("argv" in launch && launch.argv, ["true"]);
 * ```
 */
export async function prepareLaunch(
  spec: ProcessSpec,
  plan: ChildPlan,
  argv: readonly string[],
  resolved: string,
): Promise<Launch | SpawnError> {
  const { sandbox, limits } = plan;
  // A marker in the environment of everything an unsandboxed child starts: the sweep finds
  // `setsid` daemons by it after the child exits.
  const marker = plan.marked ? crypto.randomUUID() : null;
  const dirs = makePrivateDirs(spec, plan);
  const env = {
    ...(sandbox.kind === "bwrap" ? sandbox.env ?? {} : {}),
    ...childEnv(spec, dirs.home, dirs.tmpdir),
    ...(marker !== null ? { [RUN_MARKER_ENV]: marker } : {}),
  };
  // As root, the sandbox's uid 0 is an unprivileged host uid: a launcher writes the map, and
  // the writable trees are that uid's before the write budget starts (chown changes ctime).
  const userMap = sandbox.kind === "bwrap" ? sandbox.userMap : undefined;
  const closed = userMap === undefined || sandbox.kind !== "bwrap"
    ? null
    : mappedAccessError(spec, sandbox, resolved);
  if (closed !== null) {
    removePrivateDirs(dirs.made);
    return closed;
  }
  const sh = shellPath() ?? "/bin/sh";
  // A mapped sandbox's launcher sets the rlimits too (see _shell_limits.ts), when it can exactly.
  const ulimits = userMap !== undefined && limits !== null ? shellLimits(sh, limits) : null;
  const spawnedArgv = sandboxedArgv(spec, plan, argv, resolved, env, ulimits !== null);
  if (userMap !== undefined && sandbox.kind === "bwrap") {
    try {
      await handOverTrees(sandbox.writable, userMap);
    } catch (error) {
      removePrivateDirs(dirs.made);
      // Deno refusing the hand-over's shell is a permission error naming the flag (as a refused
      // spawn), not a sandbox that does not work here.
      const denied = permissionDenied(error);
      if (denied !== null) throw denied;
      return {
        code: "spawn_failed",
        message: error instanceof Error ? error.message : String(error),
      };
    }
  }
  const fifo = userMap === undefined ? null : await fifoPrefix();
  // Kernel-enforced limits for the whole tree where the host gives vouch a cgroup.
  const cgroup = limits === null ? null : childCgroup(limits);
  // The tree's write budget: its growth is measured around the child (sandboxed children only).
  const tree = limits?.diskMb === undefined || sandbox.kind !== "bwrap"
    ? null
    : sandbox.writable[0] ?? null;
  const launched = launcherArgv({
    sh,
    cgroup,
    map: fifo === null ? null : { fifo, uid: userMap!.uid },
    ulimits: ulimits ?? [],
  }, spawnedArgv);
  return {
    argv: launched,
    env,
    marker,
    grouped: ownGroup(spec.sandbox, spec.ownTool === true),
    fifo,
    cgroup,
    budget: tree === null ? null : startBudget(tree),
    privateDirs: dirs.made,
  };
}
