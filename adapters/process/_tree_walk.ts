/**
 * The two walks of a sandbox's writable tree that used to be a `find` each
 * (one process start per check apiece), done in this process with `node:fs`:
 *
 * - {@linkcode handOverTree}: as root, every entry not owned by the mapped
 *   uid and gid gets them (`lchown`, the link itself for a symlink), as
 *   `find T -xdev \( ! -uid U -o ! -gid U \) -exec chown -h U:U {} +` did.
 *   Any error throws (the child must not start on a tree it cannot write).
 * - {@linkcode changedSince}: the regular files whose status changed since
 *   the write budget's start, with their allocated bytes and largest size, as
 *   `find T -xdev -type f -newerct @S.MS -printf '%b %s'` did; unreadable
 *   entries are skipped as that `find 2>/dev/null` skipped them; Deno
 *   refusing a read throws (an unmeasured budget must not pass as empty).
 *
 * A walk here costs more CPU per entry than `find` (Deno's `lstatSync` is
 * about 10-20 us an entry, `find` about 4 us) and blocks this process, while
 * `find` costs a process start (about 1 ms): so both walks stop past
 * {@linkcode WALK_ENTRIES} entries and leave the tree to `find`, as do later
 * walks of a tree seen that large (until {@linkcode forgetTree}).
 *
 * Both follow `-xdev`: an entry on another filesystem is looked at (and
 * handed over) but a directory there is not entered. Neither follows
 * symlinks.
 *
 * Deno's `node:fs` gives a file's ctime in whole seconds (its mtime in
 * milliseconds), so {@linkcode changedSince} decides a file exactly only when
 * its ctime's second is not the start's, or when its mtime is at or after
 * the start (a write sets mtime and ctime to the same time) and not past its
 * ctime's second. A file left undecided (its status changed in the start's
 * second with an older mtime: vouch's own hand-over or write just before the
 * start, or a child that set the mtime back or renamed it) makes the walk
 * answer `undecided`: the caller then asks `find`, whose ctime is exact.
 *
 * @module
 */
import { lchownSync, lstatSync, readdirSync, type Stats } from "node:fs";
import { join } from "node:path";
import { permissionDenied } from "./permission.ts";

/** Entries a walk looks at before it leaves the tree to `find`. */
export const WALK_ENTRIES = 128;

/** Trees a walk found past {@linkcode WALK_ENTRIES} (bounded: cleared when full). */
const large = new Set<string>();

const markLarge = (tree: string) => {
  if (large.size >= 1024) large.clear();
  large.add(tree);
};

/**
 * Whether `tree` was seen past {@linkcode WALK_ENTRIES} entries by a walk.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { isLargeTree } from "./_tree_walk.ts";
 * equal(isLargeTree("/nonexistent/vouch-tree"), false);
 * ```
 */
export function isLargeTree(tree: string): boolean {
  return large.has(tree);
}

/**
 * Forgets what walks saw of `tree` (its next walk tries again).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { forgetTree, isLargeTree } from "./_tree_walk.ts";
 * forgetTree("/tmp");
 * equal(isLargeTree("/tmp"), false);
 * ```
 */
export function forgetTree(tree: string): void {
  large.delete(tree);
}

/** Thrown (and caught) within this module when a walk passes its bound. */
const TOO_LARGE: unique symbol = Symbol("tree walk past its bound");

/**
 * Hands `tree` to `uid:uid` (uid and gid alike): every entry of it on its
 * filesystem not owned by both gets them. Returns how many entries changed,
 * or null when the tree has more than `maxEntries` (default
 * {@linkcode WALK_ENTRIES}) entries: then the rest is `find`'s (what was
 * changed stays changed). Throws on any error (an entry that cannot be read
 * or changed).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import process from "node:process";
 * import { handOverTree } from "./_tree_walk.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-"));
 * writeFileSync(join(dir, "f"), "x");
 * const uid = process.getuid?.() ?? 0;
 * // Already the caller's: nothing to change.
 * if (uid === (process.getgid?.() ?? 0)) equal(handOverTree(dir, uid), 0);
 * rmSync(dir, { recursive: true });
 * ```
 */
export function handOverTree(
  tree: string,
  uid: number,
  maxEntries: number = WALK_ENTRIES,
): number | null {
  if (large.has(tree)) return null;
  const root = lstatSync(tree);
  let changed = 0;
  let entries = 0;
  const visit = (path: string, st: Stats) => {
    if (++entries > maxEntries) throw TOO_LARGE;
    if (st.uid !== uid || st.gid !== uid) {
      // The entry itself, a symlink too (chown -h).
      lchownSync(path, uid, uid);
      changed++;
    }
    if (!st.isDirectory() || st.dev !== root.dev) return;
    for (const name of readdirSync(path)) {
      const child = join(path, name);
      visit(child, lstatSync(child));
    }
  };
  try {
    visit(tree, root);
  } catch (error) {
    if (error !== TOO_LARGE) throw error;
    markLarge(tree);
    return null;
  }
  return changed;
}

/** What {@linkcode changedSince} found. */
export interface ChangedFiles {
  /** Allocated bytes (512-byte blocks) of the regular files changed since the start. */
  readonly writtenBytes: number;
  /** The largest size of those files, bytes. */
  readonly largestFile: number;
  /** A file the walk could not place before or after the start, or a tree past the walk's
   * bound: ask `find`. */
  readonly undecided: boolean;
  /** Entries looked at. */
  readonly entries: number;
}

/**
 * The regular files of `tree` (on its filesystem) whose status changed after
 * `sinceMs` (ms since the epoch), as `find -newerct` would list them, or
 * `undecided` (see the module doc; also past `maxEntries` entries, default
 * {@linkcode WALK_ENTRIES}).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { changedSince } from "./_tree_walk.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-"));
 * writeFileSync(join(dir, "old"), "x");
 * const since = Date.now() + 1;
 * await new Promise((r) => setTimeout(r, 20));
 * writeFileSync(join(dir, "new"), new Uint8Array(8192).fill(1));
 * const c = changedSince(dir, since);
 * equal(c.undecided ? 8192 : c.largestFile, 8192);
 * equal(changedSince(dir, Date.now() + 5000).writtenBytes, 0);
 * rmSync(dir, { recursive: true });
 * ```
 */
export function changedSince(
  tree: string,
  sinceMs: number,
  maxEntries: number = WALK_ENTRIES,
): ChangedFiles {
  if (large.has(tree)) return { writtenBytes: 0, largestFile: 0, undecided: true, entries: 0 };
  const startSecond = Math.floor(sinceMs / 1000);
  let written = 0;
  let largest = 0;
  let undecided = false;
  let entries = 0;
  let rootDev: number | null = null;
  const lstat = (path: string): Stats | null => {
    try {
      return lstatSync(path);
    } catch (error) {
      // Deno refusing the read would leave the budget unmeasured, silently.
      if (permissionDenied(error) !== null) throw error;
      return null; // gone or unreadable: find (2>/dev/null) skipped it too
    }
  };
  const visit = (path: string, st: Stats) => {
    if (++entries > maxEntries) throw TOO_LARGE;
    if (st.isFile()) {
      const ctimeSecond = Math.floor(st.ctimeMs / 1000);
      const after = ctimeSecond > startSecond ||
        (ctimeSecond === startSecond && st.mtimeMs >= sinceMs &&
          st.mtimeMs < (ctimeSecond + 1) * 1000);
      if (after) {
        written += st.blocks * 512;
        largest = Math.max(largest, st.size);
      } else if (ctimeSecond === startSecond) undecided = true;
      return;
    }
    if (!st.isDirectory() || (rootDev !== null && st.dev !== rootDev)) return;
    rootDev ??= st.dev;
    let names: string[];
    try {
      names = readdirSync(path);
    } catch (error) {
      if (permissionDenied(error) !== null) throw error;
      return;
    }
    for (const name of names) {
      const child = join(path, name);
      const cst = lstat(child);
      if (cst !== null) visit(child, cst);
    }
  };
  const root = lstat(tree);
  try {
    if (root !== null) visit(tree, root);
  } catch (error) {
    if (error !== TOO_LARGE) throw error;
    markLarge(tree);
    return { writtenBytes: 0, largestFile: 0, undecided: true, entries };
  }
  return { writtenBytes: written, largestFile: largest, undecided, entries };
}
