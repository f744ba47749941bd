/**
 * Carrying out a {@linkcode DependencyPlan} in a clean tree: private copies of
 * the user's installed dependency directories, and running setup commands.
 *
 * @module
 */
import { constants } from "node:fs";
import { cp, lstat, mkdir, realpath, rm, stat } from "node:fs/promises";
import process from "node:process";
import { dirname, join } from "node:path";
import { VouchError } from "../../kernel/errors/mod.ts";
import { runProcess } from "../process/run.ts";
import type { ProcessResult } from "../process/types.ts";
import type { SandboxProfile } from "../sandbox/profile.ts";
import type { DependencyPlan } from "./dependency_plan.ts";
import type { DependencySnapshots, DependencyView } from "./shared.ts";
import type { CheckRun } from "../../kernel/contract/types.ts";
import { clampTimeout } from "../contract/evaluate.ts";

/** The user's dependency directories made available in a clean tree. */
export interface ProvidedDependencies {
  /** Relative paths provided as private copies (`<tree>/<rel>` is a copy of `<repo>/<rel>`). */
  readonly copied: readonly string[];
  /** Read-only views of shared snapshots (only with `shared`): the sandbox must bind them. */
  readonly views: readonly DependencyView[];
  /** Absolute sources in the user's checkout (symlinks resolved), in `copied` (or `views`) order. */
  readonly sources: readonly string[];
  /** Relative paths skipped because the clean tree already had something there or no parent dir. */
  readonly skipped: readonly string[];
  /** Wall time spent copying, in milliseconds. */
  readonly durationMs: number;
}

/** Thrown when a dependency directory cannot be copied (disk full, unreadable files). */
export class DependencyCopyError extends VouchError<"dependency_copy_failed"> {
  constructor(message: string) {
    super("dependency_copy_failed", message);
    this.name = "DependencyCopyError";
  }
}

/**
 * Copies `source` (a directory) to `dest` (absent): copy-on-write clones
 * where the filesystem supports them (`cp -a --reflink=auto` on Linux),
 * symlinks copied verbatim (the `.bin` links and npm workspace links are
 * relative, so they resolve inside the copy), modes and times preserved.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { copyDirectory } from "./provide.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.mkdir(`${dir}/a/.bin`, { recursive: true });
 * await Deno.writeTextFile(`${dir}/a/x.js`, "x");
 * await Deno.symlink("../x.js", `${dir}/a/.bin/x`);
 * await copyDirectory(`${dir}/a`, `${dir}/b`);
 * equal(await Deno.readTextFile(`${dir}/b/.bin/x`), "x");
 * equal(await Deno.readLink(`${dir}/b/.bin/x`), "../x.js");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function copyDirectory(source: string, dest: string): Promise<void> {
  if (process.platform === "linux") {
    await mkdir(dest);
    const r = await runProcess({
      argv: ["cp", "-a", "--reflink=auto", "--", `${source}/.`, dest],
      cwd: "/",
      timeoutMs: 600_000,
    });
    if (r.exitCode === 0 && r.spawnError === null) return;
    if (r.spawnError === null) {
      throw new DependencyCopyError(
        `Cannot copy dependencies ${source}: ${
          (r.stderr.head || `cp exited ${r.exitCode}`).trim()
        }`,
      );
    }
    // No usable `cp`: fall through to the portable copy.
    await rm(dest, { recursive: true });
  }
  try {
    await cp(source, dest, {
      recursive: true,
      verbatimSymlinks: true,
      preserveTimestamps: true,
      mode: constants.COPYFILE_FICLONE,
    });
  } catch (error) {
    throw new DependencyCopyError(`Cannot copy dependencies ${source}: ${String(error)}`);
  }
}

/**
 * Gives the clean tree a PRIVATE, WRITABLE copy of each of the plan's
 * dependency directories from the user's checkout (nothing for `setup` /
 * `refuse` plans). Checks may write into it (eslint's
 * `node_modules/.cache/.eslintcache`, babel and jest caches) under any
 * sandbox, and the user's directories never change. A dependency directory
 * that is a symlink in the user's checkout (`node_modules -> ../shared/nm`) is
 * copied from its target. Never overwrites an existing path in the clean tree.
 *
 * With `shared` (a batch under bwrap), nothing is copied into the tree: each
 * directory is snapshotted once per batch and returned as a read-only
 * {@linkcode DependencyView} (an empty mount point is made at `<tree>/<rel>`);
 * the caller's sandbox profile must bind the views (`withDependencyViews`).
 *
 * @example
 * ```ts ignore
 * import { provideDependencyDirs } from "./provide.ts";
 * const provided = await provideDependencyDirs(plan, repo, cleanTree.worktree.path);
 * ```
 */
export async function provideDependencyDirs(
  plan: DependencyPlan,
  repo: string,
  tree: string,
  shared?: DependencySnapshots,
): Promise<ProvidedDependencies> {
  const started = performance.now();
  if (plan.mode !== "copy") {
    return { copied: [], views: [], sources: [], skipped: [], durationMs: 0 };
  }
  const copied: string[] = [];
  const views: DependencyView[] = [];
  const sources: string[] = [];
  const skipped: string[] = [];
  for (const rel of plan.dirs) {
    if (rel.startsWith("/") || rel.split("/").some((p) => p === ".." || p === "." || p === "")) {
      skipped.push(rel);
      continue;
    }
    const at = join(tree, rel);
    const parent = await lstat(dirname(at)).catch(() => null);
    const existing = await lstat(at).catch(() => null);
    const source = await realpath(join(repo, rel)).catch(() => null);
    const info = source === null ? null : await stat(source).catch(() => null);
    if (existing !== null || parent === null || !parent.isDirectory() || !info?.isDirectory()) {
      skipped.push(rel);
      continue;
    }
    if (shared !== undefined) {
      const snapshot = await shared.snapshot(source!);
      await mkdir(at);
      const cache = await lstat(join(snapshot, ".cache")).catch(() => null);
      views.push({
        source: snapshot,
        path: at,
        scratch: cache?.isDirectory() ? join(at, ".cache") : null,
      });
      sources.push(source!);
      continue;
    }
    await copyDirectory(source!, at);
    copied.push(rel);
    sources.push(source!);
  }
  return {
    copied,
    views,
    sources,
    skipped,
    durationMs: Math.round(performance.now() - started),
  };
}

/** One setup command: a shell string (`sh -c`), or an argv / shell run like a check's. */
export type SetupCommand = string | CheckRun;

/** Options of {@linkcode runSetup}. */
export interface SetupOptions {
  /** The clean tree (cwd of every command). */
  readonly tree: string;
  /** Confinement; network stays denied by `bwrap` unless the caller built a profile allowing it. */
  readonly sandbox?: SandboxProfile;
  /** Per-command timeout (default 10 minutes), clamped to what `deadline` leaves. */
  readonly timeoutMs?: number;
  /** The run's deadline (ms since epoch): no command may outlive it. */
  readonly deadline?: number;
  /** Extra environment on top of the runner's allowlist. */
  readonly env?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
  /** Called with each result (e.g. to record a receipt); `startedAt` is ms since epoch. */
  readonly onResult?: (
    command: string,
    result: ProcessResult,
    startedAt: number,
  ) => Promise<void> | void;
}

/** What {@linkcode runSetup} did. */
export interface SetupReport {
  /** Whether every command exited 0. */
  readonly ok: boolean;
  readonly results: readonly { readonly command: string; readonly result: ProcessResult }[];
  /** The first failing command, if any. */
  readonly failed: string | null;
  /** Why it failed (`exit 1`, `timed out`, `cancelled`, ...), or `null`. */
  readonly reason: string | null;
}

/**
 * How a setup command is shown (the shell string, or the argv joined by spaces).
 *
 * @example
 * ```ts
 * import { setupCommandText } from "./provide.ts";
 * if (setupCommandText({ argv: ["npm", "ci"] }) !== "npm ci") throw new Error();
 * if (setupCommandText("npm ci") !== "npm ci") throw new Error();
 * ```
 */
export function setupCommandText(command: SetupCommand): string {
  if (typeof command === "string") return command;
  return "shell" in command ? command.shell : command.argv.join(" ");
}

function failureReason(result: ProcessResult): string {
  if (result.spawnError !== null) return `cannot start: ${result.spawnError.message}`;
  if (result.cancelled) return "cancelled";
  if (result.timedOut) return "timed out";
  return `exit ${result.exitCode}`;
}

/**
 * Runs setup commands in the clean tree in order, stopping at the first
 * failure (fail closed: a setup that did not succeed means the checks cannot
 * be trusted to run). A command the deadline leaves no time for is not started
 * and fails the setup.
 *
 * @example
 * ```ts ignore
 * import { runSetup } from "./provide.ts";
 * const report = await runSetup(["npm ci"], { tree });
 * if (!report.ok) console.error(`setup failed: ${report.failed} (${report.reason})`);
 * ```
 */
export async function runSetup(
  commands: readonly SetupCommand[],
  opts: SetupOptions,
): Promise<SetupReport> {
  const results: { command: string; result: ProcessResult }[] = [];
  for (const command of commands) {
    const text = setupCommandText(command);
    const timeoutMs = clampTimeout(opts.timeoutMs ?? 600_000, opts.deadline);
    if (timeoutMs <= 0) {
      return { ok: false, results, failed: text, reason: "the run's deadline left no time" };
    }
    if (opts.signal?.aborted) return { ok: false, results, failed: text, reason: "cancelled" };
    const run = typeof command === "string" ? { shell: command } : command;
    const startedAt = Date.now();
    const result = await runProcess({
      ...("argv" in run ? { argv: run.argv } : { shell: run.shell }),
      cwd: opts.tree,
      timeoutMs,
      maxCaptureBytes: 256 * 1024,
      ...(opts.env !== undefined ? { env: opts.env } : {}),
      ...(opts.sandbox !== undefined ? { sandbox: opts.sandbox } : {}),
      ...(opts.signal !== undefined ? { signal: opts.signal } : {}),
    });
    results.push({ command: text, result });
    await opts.onResult?.(text, result, startedAt);
    if (result.exitCode !== 0 || result.spawnError !== null) {
      return { ok: false, results, failed: text, reason: failureReason(result) };
    }
  }
  return { ok: true, results, failed: null, reason: null };
}
