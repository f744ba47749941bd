/**
 * Dependency directories shared READ-ONLY by the clean trees of a batch:
 * each installed dependency directory of the user's checkout is snapshotted
 * once per batch (`cp -a --reflink=auto`, outside every tree), and each clean
 * tree gets a view of the snapshot at `<tree>/<rel>`: a bwrap `--ro-bind`
 * (the snapshot cannot be written from inside: a check's writes fail, and
 * never reach another candidate), with a private, empty tmpfs over
 * `<rel>/.cache` so caches (eslint, babel, jest: the `find-cache-dir`
 * convention) still work per check. In the host tree only an empty mount
 * point exists, which a reset removes like any untracked directory.
 *
 * Without bwrap there is no way to make a shared directory read-only to a
 * check (it runs as the user; as root, modes do not bind) and a symlink would
 * change Node's realpath-based resolution: `--sandbox none` keeps private
 * copies (see `provideDependencyDirs`).
 *
 * @module
 */
import { lstat, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { findDependencyDirs } from "./dependency_plan.ts";
import { copyDirectory } from "./copy_dir.ts";

/** One entry of a layered view: bound read-only, or re-made as the symlink it is. */
export interface DependencyEntry {
  /** Its name in the directory. */
  readonly name: string;
  /** The symlink's target (re-made as it is), or null: bound read-only. */
  readonly symlink: string | null;
  /** A cache directory (`.cache`, `.vite`, ...): replaced by an empty private one, not bound. */
  readonly privateDir?: boolean;
}

/** A read-only view of a dependency directory (a shared snapshot, or the user's own) in a clean tree. */
export interface DependencyView {
  /** The directory shown (absolute, outside every tree). */
  readonly source: string;
  /** Where checks see it (absolute, inside the tree). */
  readonly path: string;
  /** A writable, private scratch directory inside the view (`<path>/.cache`), or null. */
  readonly scratch: string | null;
  /**
   * Layered: a private writable tmpfs at `path` with each of these entries of
   * `source` bound read-only in it (the user's own directory, never written).
   * Absent: `source` is bound read-only at `path` as a whole.
   */
  readonly entries?: readonly DependencyEntry[];
}

/** The snapshots of one batch; see {@linkcode createDependencySnapshots}. */
export interface DependencySnapshots {
  /** The installed dependency directories of `repo` (looked up once per batch). */
  installed(repo: string): Promise<string[]>;
  /** The snapshot of `source` (a real directory), taken on first use; its `.cache` exists. */
  snapshot(source: string): Promise<string>;
  /** Snapshots taken so far (source -> snapshot). */
  readonly taken: ReadonlyMap<string, string>;
  /** Removes every snapshot (later calls snapshot again). */
  remove(): Promise<void>;
}

/**
 * Creates the snapshot store of one batch (snapshots under a fresh temporary
 * directory in `root`, default the system's).
 *
 * @example
 * ```ts
 * import { equal, notEqual } from "node:assert/strict";
 * import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { createDependencySnapshots } from "./shared.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-snap-example-"));
 * mkdirSync(join(dir, "node_modules/a"), { recursive: true });
 * writeFileSync(join(dir, "node_modules/a/index.js"), "module.exports = 1;\n");
 * const snapshots = createDependencySnapshots();
 * const snap = await snapshots.snapshot(join(dir, "node_modules"));
 * notEqual(snap, join(dir, "node_modules"));
 * equal(await snapshots.snapshot(join(dir, "node_modules")), snap); // once per batch
 * equal(readFileSync(join(snap, "a/index.js"), "utf8"), "module.exports = 1;\n");
 * equal(existsSync(join(snap, ".cache")), true);
 * await snapshots.remove();
 * equal(existsSync(snap), false);
 * rmSync(dir, { recursive: true, force: true });
 * ```
 */
export function createDependencySnapshots(root: string = tmpdir()): DependencySnapshots {
  const installed = new Map<string, Promise<string[]>>();
  const pending = new Map<string, Promise<string>>();
  const taken = new Map<string, string>();
  let home: Promise<string> | null = null;
  let n = 0;
  return {
    installed(repo) {
      let p = installed.get(repo);
      if (p === undefined) installed.set(repo, p = findDependencyDirs(repo).catch(() => []));
      return p;
    },
    snapshot(source) {
      let p = pending.get(source);
      if (p === undefined) {
        p = (async () => {
          const base = await (home ??= mkdtemp(join(root, "vouch-deps-")));
          // The snapshot keeps the directory's name (`.../3/node_modules`).
          const at = join(base, String(++n), basename(source));
          await mkdir(join(at, ".."), { recursive: true });
          await copyDirectory(source, at);
          // The mount point of the per-check cache tmpfs (a file of that name: no scratch).
          if ((await lstat(join(at, ".cache")).catch(() => null)) === null) {
            await mkdir(join(at, ".cache"));
          }
          taken.set(source, at);
          return at;
        })();
        pending.set(source, p);
        p.catch(() => pending.delete(source));
      }
      return p;
    },
    taken,
    async remove() {
      const dir = home === null ? null : await home.catch(() => null);
      await Promise.allSettled([...pending.values()]);
      pending.clear();
      taken.clear();
      installed.clear();
      home = null;
      if (dir !== null) await rm(dir, { recursive: true, force: true });
    },
  };
}
