/**
 * Detects writes outside the worktree: a stat snapshot (type, size, mode,
 * mtime, symlink target) of the user's checkout and of other watched
 * directories, taken before a backend round and compared after it. On top of
 * the sandbox (which makes such writes fail), this catches a backend that ran
 * unconfined. Never reads file contents, never follows symlinks.
 *
 * @module
 */

/** A watched tree and the relative paths inside it to skip. */
export interface WatchedTree {
  /** Absolute directory. */
  readonly root: string;
  /** Relative paths (and everything below them) to skip. */
  readonly skip: readonly string[];
}

/** A stat snapshot of several trees. */
export interface OutsideSnapshot {
  /** `root/rel` -> fingerprint. */
  readonly entries: ReadonlyMap<string, string>;
  /** Whether the entry limit cut the walk short (then detection is partial). */
  readonly truncated: boolean;
}

/** Maximum entries walked per snapshot (bounded memory and time). */
export const MAX_WATCHED_ENTRIES = 200_000;

/**
 * The git-internal paths of a user's checkout that vouch itself changes while it
 * works (objects written by `git add` in a worktree, worktree admin dirs, reflogs)
 * and therefore cannot be watched; everything else under `.git` is.
 */
export const CHECKOUT_SKIP: readonly string[] = [
  ".vouch",
  ".git/objects",
  ".git/worktrees",
  ".git/logs",
  ".git/index.lock",
];

/**
 * Takes a stat snapshot of `trees`.
 *
 * @example
 * ```ts
 * import { diffOutsideSnapshots, snapshotOutside } from "./outside_watch.ts";
 * const dir = await Deno.makeTempDir();
 * const before = await snapshotOutside([{ root: dir, skip: [] }]);
 * await Deno.writeTextFile(`${dir}/escaped.txt`, "x");
 * const after = await snapshotOutside([{ root: dir, skip: [] }]);
 * if (diffOutsideSnapshots(before, after).length !== 1) throw new Error();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function snapshotOutside(trees: readonly WatchedTree[]): Promise<OutsideSnapshot> {
  const entries = new Map<string, string>();
  let truncated = false;
  for (const tree of trees) {
    const skip = new Set(tree.skip);
    const stack: string[] = [""];
    while (stack.length > 0) {
      const rel = stack.pop()!;
      let iter: AsyncIterable<Deno.DirEntry>;
      try {
        iter = Deno.readDir(rel === "" ? tree.root : `${tree.root}/${rel}`);
        for await (const entry of iter) {
          const child = rel === "" ? entry.name : `${rel}/${entry.name}`;
          if (skip.has(child)) continue;
          if (entries.size >= MAX_WATCHED_ENTRIES) {
            truncated = true;
            break;
          }
          const abs = `${tree.root}/${child}`;
          let info: Deno.FileInfo;
          try {
            info = await Deno.lstat(abs);
          } catch {
            continue;
          }
          if (info.isSymlink) {
            const target = await Deno.readLink(abs).catch(() => "?");
            entries.set(abs, `l:${target}`);
          } else if (info.isDirectory) {
            entries.set(abs, `d:${info.mode ?? 0}`);
            stack.push(child);
          } else {
            entries.set(abs, `f:${info.size}:${info.mode ?? 0}:${info.mtime?.getTime() ?? 0}`);
          }
        }
      } catch {
        // A directory that vanished or cannot be read: its absence shows up in the diff.
      }
    }
  }
  return { entries, truncated };
}

/**
 * Absolute paths created, removed or changed between two snapshots, sorted.
 *
 * @example
 * ```ts
 * import { diffOutsideSnapshots } from "./outside_watch.ts";
 * const a = { entries: new Map([["/x", "f:1:420:0"]]), truncated: false };
 * const b = { entries: new Map([["/x", "f:2:420:5"]]), truncated: false };
 * if (diffOutsideSnapshots(a, b)[0] !== "/x") throw new Error();
 * ```
 */
export function diffOutsideSnapshots(before: OutsideSnapshot, after: OutsideSnapshot): string[] {
  const changed: string[] = [];
  for (const [path, value] of before.entries) {
    if (after.entries.get(path) !== value) changed.push(path);
  }
  for (const path of after.entries.keys()) if (!before.entries.has(path)) changed.push(path);
  return changed.sort();
}
