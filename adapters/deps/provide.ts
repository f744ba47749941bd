/**
 * Carrying out a {@linkcode DependencyPlan} in a clean tree: private copies of
 * the user's installed dependency directories (or read-only views of a
 * batch's shared snapshots).
 *
 * @module
 */
import { lstat, mkdir, realpath, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { DependencyPlan } from "./dependency_plan.ts";
import type { DependencySnapshots, DependencyView } from "./shared.ts";
import { runProcess } from "../process/run.ts";
import { copyDirectory } from "./copy_dir.ts";

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
  onStep?: (step: string) => void,
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
    if (onStep !== undefined) {
      const size = await directorySize(source!);
      onStep(`copying ${rel}${size === null ? "" : `, ${size}`}`);
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

/** A directory's disk usage as people say it (`66 MB`), from `du -sk`; null when it cannot tell. */
async function directorySize(dir: string): Promise<string | null> {
  const r = await runProcess({ argv: ["du", "-sk", "--", dir], cwd: "/", timeoutMs: 10_000 });
  const kib = Number(/^(\d+)\s/.exec(r.stdout.head)?.[1] ?? NaN);
  if (r.exitCode !== 0 || !Number.isFinite(kib)) return null;
  const mb = kib / 1024;
  return mb >= 1 ? `${Math.round(mb)} MB` : `${kib} KB`;
}
