/**
 * Carrying out a {@linkcode DependencyPlan} in a clean tree: read-only views
 * of the user's installed dependency directories (under bwrap), private copies
 * of them (no sandbox), or read-only views of a batch's shared snapshots.
 *
 * @module
 */
import { lstat, mkdir, readdir, readlink, realpath, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { DependencyPlan } from "./dependency_plan.ts";
import type { DependencyEntry, DependencySnapshots, DependencyView } from "./shared.ts";
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

/** How {@linkcode provideDependencyDirs} gives the directories: see there. */
export type ProvideMode =
  | { readonly kind: "copy" }
  | { readonly kind: "bind" }
  | { readonly kind: "shared"; readonly snapshots: DependencySnapshots };

/** Past this many entries a directory is copied instead of bound entry by entry. */
export const MAX_BOUND_ENTRIES = 4096;

/**
 * Dependency directories a check only reads, so they can be bound read-only.
 * `target/` (Rust) is the build's output, written by every `cargo test`: copied.
 */
export const BOUND_DIR_NAMES: readonly string[] = ["node_modules", ".venv", "venv", "vendor"];

/**
 * Cache directories inside a bound dependency directory that tools write
 * (`find-cache-dir`'s `.cache`, vite/vitest, turbo, parcel): each check gets
 * an empty private one instead of the user's.
 */
export const PRIVATE_CACHE_NAMES: readonly string[] = [
  ".cache",
  ".vite",
  ".vitest",
  ".turbo",
  ".parcel-cache",
];

/**
 * Gives the clean tree a PRIVATE, WRITABLE copy of each of the plan's
 * dependency directories from the user's checkout (nothing for `setup` /
 * `refuse` plans). Checks may write into it (eslint's
 * `node_modules/.cache/.eslintcache`, babel and jest caches) under any
 * sandbox, and the user's directories never change. A dependency directory
 * that is a symlink in the user's checkout (`node_modules -> ../shared/nm`) is
 * copied from its target. Never overwrites an existing path in the clean tree.
 *
 * With `{ kind: "bind" }` (`verify` and `run` under bwrap) nothing is copied:
 * each directory becomes a LAYERED read-only {@linkcode DependencyView} of the
 * user's own directory: a private, writable tmpfs at `<tree>/<rel>` with every
 * entry of the user's directory bound read-only into it (symlinks re-made as
 * they are), so a check reads the real dependencies at no cost, cannot change
 * them, and still writes new names there (`node_modules/.cache`, kept
 * private; an existing cache directory such as `.cache` or `.vite`, see
 * {@linkcode PRIVATE_CACHE_NAMES}, is replaced by an empty one). Only
 * {@linkcode BOUND_DIR_NAMES} are bound (a Rust `target/` is written by the
 * build: copied), and a directory with more than
 * {@linkcode MAX_BOUND_ENTRIES} entries is copied.
 *
 * With `{ kind: "shared" }` (a batch under bwrap), nothing is copied into the tree: each
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
  mode: ProvideMode = { kind: "copy" },
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
    if (mode.kind === "bind" && BOUND_DIR_NAMES.includes(rel.split("/").at(-1)!)) {
      const entries = await entriesOf(source!);
      if (entries !== null) {
        onStep?.(
          `binding ${rel} read-only, ${entries.length} ${
            entries.length === 1 ? "entry" : "entries"
          }`,
        );
        await mkdir(at);
        views.push({ source: source!, path: at, scratch: null, entries });
        sources.push(source!);
        continue;
      }
    }
    if (mode.kind === "shared") {
      const snapshot = await mode.snapshots.snapshot(source!);
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

/** The entries of `dir` as a layered view binds them (null: too many to bind). */
async function entriesOf(dir: string): Promise<DependencyEntry[] | null> {
  const names = (await readdir(dir)).sort();
  if (names.length > MAX_BOUND_ENTRIES) return null;
  const out: DependencyEntry[] = [];
  for (const name of names) {
    const info = await lstat(join(dir, name)).catch(() => null);
    if (info === null) continue;
    if (info.isSymbolicLink()) out.push({ name, symlink: await readlink(join(dir, name)) });
    else if (info.isDirectory() || info.isFile()) {
      const cache = info.isDirectory() && PRIVATE_CACHE_NAMES.includes(name);
      out.push({ name, symlink: null, ...(cache ? { privateDir: true } : {}) });
    }
    // Sockets, fifos and devices in a dependency directory are not given.
  }
  return out;
}

/** A directory's disk usage as people say it (`66 MB`), from `du -sk`; null when it cannot tell. */
async function directorySize(dir: string): Promise<string | null> {
  const r = await runProcess({ argv: ["du", "-sk", "--", dir], cwd: "/", timeoutMs: 10_000 });
  const kib = Number(/^(\d+)\s/.exec(r.stdout.head)?.[1] ?? NaN);
  if (r.exitCode !== 0 || !Number.isFinite(kib)) return null;
  const mb = kib / 1024;
  return mb >= 1 ? `${Math.round(mb)} MB` : `${kib} KB`;
}
