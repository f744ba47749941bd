/**
 * Carrying out a {@linkcode DependencyPlan} in a clean tree: symlinking the
 * user's installed dependency directories, and running setup commands.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { runProcess } from "../process/run.ts";
import type { ProcessResult } from "../process/types.ts";
import type { SandboxProfile } from "../sandbox/profile.ts";
import type { DependencyPlan } from "./dependency_plan.ts";

/** The user's dependency directories linked into a clean tree. */
export interface LinkedDependencies {
  /** Relative paths linked (`<tree>/<rel>` -> `<repo>/<rel>`). */
  readonly linked: readonly string[];
  /** Absolute targets in the user's checkout (bind these read-only in a sandbox). */
  readonly targets: readonly string[];
  /** Relative paths skipped because the clean tree already had something there or no parent dir. */
  readonly skipped: readonly string[];
}

/**
 * Links the plan's dependency directories from the user's checkout into the
 * clean tree (nothing for `setup` / `refuse` plans). Never overwrites an
 * existing path in the clean tree.
 *
 * @example
 * ```ts ignore
 * import { linkDependencyDirs } from "./provide.ts";
 * const linked = await linkDependencyDirs(plan, repo, cleanTree.worktree.path);
 * ```
 */
export async function linkDependencyDirs(
  plan: DependencyPlan,
  repo: string,
  tree: string,
): Promise<LinkedDependencies> {
  if (plan.mode !== "link") return { linked: [], targets: [], skipped: [] };
  const linked: string[] = [];
  const targets: string[] = [];
  const skipped: string[] = [];
  for (const rel of plan.dirs) {
    if (rel.startsWith("/") || rel.split("/").some((p) => p === ".." || p === "." || p === "")) {
      skipped.push(rel);
      continue;
    }
    const at = join(tree, rel);
    const parent = await Deno.lstat(dirname(at)).catch(() => null);
    const existing = await Deno.lstat(at).catch(() => null);
    if (existing !== null || parent === null || !parent.isDirectory) {
      skipped.push(rel);
      continue;
    }
    const target = join(repo, rel);
    await Deno.symlink(target, at);
    linked.push(rel);
    targets.push(target);
  }
  return { linked, targets, skipped };
}

/** Options of {@linkcode runSetup}. */
export interface SetupOptions {
  /** The clean tree (cwd of every command). */
  readonly tree: string;
  /** Confinement; network stays denied by `bwrap` unless the caller built a profile allowing it. */
  readonly sandbox?: SandboxProfile;
  /** Per-command timeout (default 10 minutes). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** Called with each result (e.g. to record a receipt). */
  readonly onResult?: (command: string, result: ProcessResult) => Promise<void> | void;
}

/** What {@linkcode runSetup} did. */
export interface SetupReport {
  /** Whether every command exited 0. */
  readonly ok: boolean;
  readonly results: readonly { readonly command: string; readonly result: ProcessResult }[];
  /** The first failing command, if any. */
  readonly failed: string | null;
}

/**
 * Runs setup commands (shell strings, `sh -c`) in the clean tree in order,
 * stopping at the first failure (fail closed: a setup that did not succeed
 * means the checks cannot be trusted to run).
 *
 * @example
 * ```ts ignore
 * import { runSetup } from "./provide.ts";
 * const report = await runSetup(["npm ci"], { tree });
 * if (!report.ok) console.error(`setup failed: ${report.failed}`);
 * ```
 */
export async function runSetup(
  commands: readonly string[],
  opts: SetupOptions,
): Promise<SetupReport> {
  const results: { command: string; result: ProcessResult }[] = [];
  for (const command of commands) {
    const result = await runProcess({
      shell: command,
      cwd: opts.tree,
      timeoutMs: opts.timeoutMs ?? 600_000,
      maxCaptureBytes: 256 * 1024,
      ...(opts.sandbox !== undefined ? { sandbox: opts.sandbox } : {}),
      ...(opts.signal !== undefined ? { signal: opts.signal } : {}),
    });
    results.push({ command, result });
    await opts.onResult?.(command, result);
    if (result.exitCode !== 0 || result.spawnError !== null) {
      return { ok: false, results, failed: command };
    }
  }
  return { ok: true, results, failed: null };
}
