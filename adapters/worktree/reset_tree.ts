/**
 * Resetting a used clean tree back to a fresh checkout of its base, so one
 * tree serves a task's baseline and every verification round, at a cost that
 * follows what changed, not the size of the repository.
 *
 * {@linkcode markTree} records, at a clean state, the stat signature of every
 * tracked path (type, inode, size, mode and the nanosecond change time, which
 * no user-space call can set back, unlike `mtime`), each tracked directory's
 * mode and inode, the tree's index file (proven to be the base tree) and the
 * small files of its private git dir (`HEAD`, `commondir`, ...), all kept in
 * vouch's memory where nothing run in the tree can reach them, and the time
 * after which nothing in the tree has changed. {@linkcode resetTree} writes
 * the git dir and the index back, then asks ONE `find` process for the
 * entries whose change time is later than that (every entry is stat-ed, only
 * what changed is printed): a rewritten or re-moded file, a new link, and
 * every directory an entry was created in, removed from or renamed into.
 * Each printed directory has its entries checked against the mark (a name
 * not tracked, a tracked one missing, another inode in its place). What is
 * not tracked is removed, what moved is deleted and written again from the
 * index by `git checkout-index`, directory modes are put back, and the result
 * is proven: git finds nothing changed, untracked or ignored at any path the
 * reset touched. The next mark ({@linkcode ResetReport.mark}) is the old one
 * with the rewritten paths stat-ed again. Any failure throws: the caller then discards the tree and
 * checks out a fresh one.
 *
 * A mark is only handed over once the clock has moved past the newest change
 * time it records by more than a timestamp tick, so a later write can never
 * land on the same change time (the racy-git problem, solved by waiting at
 * most {@linkcode RACY_MARGIN_MS} instead of trusting it).
 *
 * @module
 */
import {
  chmodSync,
  lstatSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { Buffer } from "node:buffer";
import { dirname, join } from "node:path";
import { gitChecked, splitNul } from "../git/git_checked.ts";
import { sigMode, walkTree } from "./_tree_walk.ts";
import { WorktreeError } from "./errors.ts";
import { worktreeGitArgs } from "./extract_diff.ts";
import type { Worktree } from "./worktree.ts";

/** Stat signatures of a tree's tracked paths and their directories, taken at a clean state. */
export interface TreeMark {
  /** Tracked path (relative) -> its stat signature (`type ino ctime size mode`; `missing`: absent). */
  readonly files: ReadonlyMap<string, string>;
  /** Directory (relative, `""` the top) -> its mode bits (-1: not a directory then). */
  readonly dirs: ReadonlyMap<string, number>;
  /** The tree's index file at the mark (written back by a reset). */
  readonly index: Uint8Array;
  /** Top-level regular files of the tree's private git dir (other than `index`) -> bytes. */
  readonly gitDirFiles: ReadonlyMap<string, Uint8Array>;
  /** Top-level directories of the private git dir (`logs`), kept as they are. */
  readonly gitDirDirs: ReadonlySet<string>;
  /** Tracked directory -> its inode (a directory renamed over it has another). */
  readonly dirInodes: ReadonlyMap<string, bigint>;
  /** Tracked directory (`""` the top) -> the paths of its tracked files and directories. */
  readonly children: ReadonlyMap<string, readonly string[]>;
  /**
   * No entry of the tree changed after this time (`sec.fraction`, as `find`
   * prints `%C@`), and the mark was handed over more than
   * {@linkcode RACY_MARGIN_MS} after it: whatever changes later has a later
   * change time, so a reset asks `find` only for entries changed after it.
   */
  readonly changedAfter: string;
}

/** What {@linkcode resetTree} had to undo. */
export interface ResetReport {
  /** Tracked paths whose stat data moved (deleted, then rewritten by git). */
  readonly rewritten: readonly string[];
  /** Directories whose mode was put back. */
  readonly dirModes: readonly string[];
  /** Untracked and ignored entries removed (a directory stands for what was below it). */
  readonly removed: readonly string[];
  /** The mark of the reset tree (what the next reset compares against). */
  readonly mark: TreeMark;
}

/**
 * How far past the newest recorded change time the clock must be before a
 * mark is used: more than one filesystem timestamp tick (1-10 ms on Linux).
 */
export const RACY_MARGIN_MS = 20;

/** Touched paths the proof names one by one (more: it checks the whole tree). */
const MAX_PATHSPECS = 2000;

function git(
  wt: Worktree,
  args: string[],
  signal?: AbortSignal,
  stdin?: Uint8Array,
  maxCaptureBytes?: number,
) {
  return gitChecked([...worktreeGitArgs(wt), ...args], {
    cwd: wt.path,
    ...(maxCaptureBytes !== undefined ? { maxCaptureBytes } : {}),
    timeoutMs: 300_000,
    ...(signal !== undefined ? { signal } : {}),
    ...(stdin !== undefined ? { stdin } : {}),
  });
}

/** Waits until the clock is {@linkcode RACY_MARGIN_MS} past `newestMs`. */
async function settle(newestMs: number): Promise<void> {
  const wait = newestMs + RACY_MARGIN_MS - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, Math.ceil(wait)));
}

/** The private git dir's top-level files and directories. */
function readGitDir(gitDir: string): { files: Map<string, Uint8Array>; dirs: Set<string> } {
  const files = new Map<string, Uint8Array>();
  const dirs = new Set<string>();
  for (const name of readdirSync(gitDir)) {
    if (name === "index") continue;
    const s = lstatSync(join(gitDir, name));
    if (s.isDirectory()) dirs.add(name);
    else if (s.isFile()) files.set(name, new Uint8Array(readFileSync(join(gitDir, name))));
  }
  return { files, dirs };
}

/** Writes `bytes` to `path` as a new file (a symlink or directory there is replaced, never followed). */
function replaceFile(path: string, bytes: Uint8Array | string): void {
  const tmp = `${path}.vouch-reset`;
  rmSync(tmp, { recursive: true, force: true });
  writeFileSync(tmp, bytes, { flag: "wx" });
  rmSync(path, { recursive: true, force: true });
  renameSync(tmp, path);
}

/**
 * Records the stat signature of every tracked path of a tree that is clean
 * right now (a fresh checkout, or one {@linkcode resetTree} just proved clean).
 *
 * @example
 * ```ts
 * import { equal, ok } from "node:assert/strict";
 * import { execFileSync } from "node:child_process";
 * import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { createWorktree, removeWorktree } from "./worktree.ts";
 * import { markTree } from "./reset_tree.ts";
 * const scratch = mkdtempSync(join(tmpdir(), "vouch-example-"));
 * const repo = join(scratch, "repo");
 * execFileSync("git", ["init", "-q", repo]);
 * writeFileSync(join(repo, "a.txt"), "a\n");
 * execFileSync("git", ["add", "."], { cwd: repo });
 * execFileSync("git", ["-c", "user.email=e@x", "-c", "user.name=e", "commit", "-qm", "init"], { cwd: repo });
 * const wt = await createWorktree({ repo, taskId: "t", attempt: 1, root: join(scratch, "wt") });
 * const mark = await markTree(wt);
 * equal(mark.files.size, 1);
 * ok(mark.dirs.has(""));
 * await removeWorktree(wt);
 * rmSync(scratch, { recursive: true, force: true });
 * ```
 */
export async function markTree(wt: Worktree, signal?: AbortSignal): Promise<TreeMark> {
  const index = new Uint8Array(readFileSync(join(wt.gitDir, "index")));
  const [walk, listed] = await Promise.all([
    walkTree(wt.path, { skipTop: [".git"] }),
    // Every path is in the index file (prefix-compressed at most in index v4): eight times its
    // size holds the whole listing (the head half of the capture).
    git(wt, ["ls-files", "-z"], signal, undefined, 8 * index.length + 1_048_576),
  ]);
  if (!walk.complete) throw new Error("the tree cannot be read completely");
  if (listed.stdout.truncated) throw new Error("the path listing was cut short");
  // The index every reset writes back must be the base tree (checkout-index then only
  // refreshes the stat data of what it writes).
  const indexDiff = await git(
    wt,
    ["diff-index", "--cached", "--name-only", "-z", "--no-renames", wt.base, "--"],
    signal,
  );
  if (indexDiff.stdout.head.length > 0) throw new Error("the index is not the base tree");
  const paths = splitNul(listed.stdout.head);
  const files = new Map<string, string>();
  const dirSet = new Set<string>([""]);
  for (const path of paths) {
    files.set(path, walk.entries.get(path) ?? "missing");
    for (let d = dirname(path); d !== "." && !dirSet.has(d); d = dirname(d)) dirSet.add(d);
  }
  const dirs = new Map<string, number>();
  const dirInodes = new Map<string, bigint>();
  const children = new Map<string, string[]>();
  for (const d of dirSet) {
    const e = walk.entries.get(d);
    dirs.set(d, e?.[0] === "d" ? sigMode(e) : -1);
    if (e?.[0] === "d") dirInodes.set(d, sigIno(e));
    children.set(d, []);
  }
  for (const path of [...dirSet, ...paths]) {
    if (path === "") continue;
    const parent = dirname(path);
    children.get(parent === "." ? "" : parent)!.push(path);
  }
  const gitDir = readGitDir(wt.gitDir);
  await settle(walk.newestCtimeMs);
  return {
    files,
    dirs,
    index,
    gitDirFiles: gitDir.files,
    gitDirDirs: gitDir.dirs,
    dirInodes,
    children,
    changedAfter: walk.newestCtime,
  };
}

/** What {@linkcode undoChanges} did. */
interface Undone {
  readonly removed: string[];
  readonly rewritten: string[];
  readonly dirModes: string[];
  /** Tracked directories removed (git creates them again with other inodes). */
  readonly dirsGone: string[];
}

/**
 * Finds and undoes every change since the mark: `find` prints only the entries
 * whose change time is after {@linkcode TreeMark.changedAfter} (a rewrite, a
 * chmod, a new link, a new or removed entry in a directory: all of them move a
 * change time), and each directory so printed has its entries checked against
 * the mark (a name that is not tracked, a tracked one missing or another inode,
 * as when an older file is renamed over it).
 */
async function undoChanges(wt: Worktree, mark: TreeMark): Promise<Undone> {
  const walk = await walkTree(wt.path, { skipTop: [".git"], changedAfter: mark.changedAfter });
  if (!walk.complete) throw new Error("the tree cannot be read completely");
  const removed: string[] = [];
  const rewritten = new Set<string>();
  const dirModes: string[] = [];
  const listed: string[] = []; // tracked directories whose entries are checked
  const dirsGone: string[] = [];
  const gone = (path: string) => {
    // A tracked path deleted: it and every tracked file below it are written again.
    const sig = mark.files.get(path);
    if (sig !== undefined && sig !== "missing") rewritten.add(path);
    if (mark.dirInodes.has(path)) dirsGone.push(path);
    for (const child of mark.children.get(path) ?? []) gone(child);
  };
  const drop = (path: string) => {
    rmSync(join(wt.path, path), { recursive: true, force: true });
    if (mark.files.has(path) || mark.dirs.has(path)) gone(path);
    else removed.push(path);
  };
  let under: string | null = null; // a removed directory: what find printed below it is gone
  for (const [path, entry] of walk.entries) {
    if (under !== null && path.startsWith(under)) continue;
    under = null;
    const dirMode = mark.dirs.get(path);
    if (dirMode !== undefined && dirMode >= 0 && entry[0] === "d") {
      if (sigMode(entry) !== dirMode) {
        chmodSync(join(wt.path, path), dirMode);
        dirModes.push(path);
      }
      listed.push(path);
      continue;
    }
    if (mark.files.get(path) === entry) continue;
    if (path === "") throw new Error("the top of the tree is not a directory");
    drop(path);
    if (entry[0] === "d") under = `${path}/`;
  }
  for (let i = 0; i < listed.length; i++) {
    const dir = listed[i]!;
    const expected = new Set(
      (mark.children.get(dir) ?? []).map((p) => p.slice(p.lastIndexOf("/") + 1)),
    );
    let names: string[];
    try {
      names = readdirSync(join(wt.path, dir));
    } catch {
      continue; // removed above (with what was below it)
    }
    for (const name of names) {
      const path = dir === "" ? name : `${dir}/${name}`;
      if (dir === "" && name === ".git") continue;
      if (!expected.has(name)) drop(path);
    }
    for (const path of mark.children.get(dir) ?? []) {
      if (rewritten.has(path)) continue;
      const want = mark.files.get(path);
      let now: { ino: bigint; dir: boolean } | null = null;
      try {
        const st = lstatSync(join(wt.path, path), { bigint: true });
        now = { ino: st.ino, dir: st.isDirectory() };
      } catch { /* missing */ }
      if (now === null) gone(path);
      else if (want !== undefined) {
        if (want === "missing" || sigIno(want) !== now.ino) drop(path);
      } else if (!now.dir) drop(path);
      // Another directory put in its place: what is in it is checked too.
      else if (mark.dirInodes.get(path) !== now.ino) listed.push(path);
    }
  }
  return { removed, rewritten: [...rewritten].sort(), dirModes, dirsGone };
}

/** The inode a signature records. */
const sigIno = (sig: string): bigint => BigInt(sig.slice(2, sig.indexOf(" ", 2)));

/**
 * Brings a used tree back to exactly its base commit (index and files), the
 * same bytes and modes a fresh `git worktree add` would give, and proves it:
 * throws {@linkcode WorktreeError} `reset_failed` when anything is left.
 *
 * @example
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * import { execFileSync } from "node:child_process";
 * import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { createWorktree, removeWorktree } from "./worktree.ts";
 * import { markTree, resetTree } from "./reset_tree.ts";
 * const scratch = mkdtempSync(join(tmpdir(), "vouch-example-"));
 * const repo = join(scratch, "repo");
 * execFileSync("git", ["init", "-q", repo]);
 * writeFileSync(join(repo, "a.txt"), "a\n");
 * execFileSync("git", ["add", "."], { cwd: repo });
 * execFileSync("git", ["-c", "user.email=e@x", "-c", "user.name=e", "commit", "-qm", "init"], { cwd: repo });
 * const wt = await createWorktree({ repo, taskId: "t", attempt: 1, root: join(scratch, "wt") });
 * const mark = await markTree(wt);
 * writeFileSync(join(wt.path, "a.txt"), "z\n"); // same size
 * writeFileSync(join(wt.path, "build.out"), "artefact");
 * const report = await resetTree(wt, mark);
 * deepEqual(report.rewritten, ["a.txt"]);
 * equal(readFileSync(join(wt.path, "a.txt"), "utf8"), "a\n");
 * equal(existsSync(join(wt.path, "build.out")), false);
 * await removeWorktree(wt);
 * rmSync(scratch, { recursive: true, force: true });
 * ```
 */
export async function resetTree(
  wt: Worktree,
  mark: TreeMark,
  signal?: AbortSignal,
): Promise<ResetReport> {
  try {
    // The `.git` file checks see exactly as a fresh checkout wrote it; the private git dir
    // (HEAD, index, ...) as it was at the mark, whatever ran in the tree since.
    replaceFile(join(wt.path, ".git"), `gitdir: ${wt.gitDir}\n`);
    for (const name of readdirSync(wt.gitDir)) {
      if (name === "index" || mark.gitDirFiles.has(name)) continue;
      // A kept directory (`logs`) stays unless it is not one any more (a symlink out).
      if (mark.gitDirDirs.has(name) && lstatSync(join(wt.gitDir, name)).isDirectory()) continue;
      rmSync(join(wt.gitDir, name), { recursive: true, force: true });
    }
    for (const [name, bytes] of mark.gitDirFiles) {
      let same = false;
      try {
        same = lstatSync(join(wt.gitDir, name)).isFile() &&
          Buffer.compare(readFileSync(join(wt.gitDir, name)), bytes) === 0;
      } catch { /* gone */ }
      if (!same) replaceFile(join(wt.gitDir, name), bytes);
    }
    replaceFile(join(wt.gitDir, "index"), mark.index);

    const { removed, rewritten, dirModes, dirsGone } = await undoChanges(wt, mark);
    if (rewritten.length > 0) {
      // Only what was deleted is written again, from the recorded index (the base's blobs).
      const list = new TextEncoder().encode(rewritten.join("\0") + "\0");
      await git(wt, ["checkout-index", "-f", "-u", "-z", "--stdin"], signal, list);
    }
    // After the last write into the tree: what changes from now on is later than this.
    const wroteAt = removed.length + rewritten.length + dirModes.length > 0 ? Date.now() : null;
    // The proof: every path the reset touched is clean to git (nothing modified, untracked or
    // ignored there), the index is the base tree, and the rest kept its proven signature.
    const touched = [...new Set([...rewritten, ...removed, ...dirModes.filter((d) => d !== "")])];
    const [status, restat] = await Promise.all([
      touched.length === 0 ? null : git(wt, [
        "--literal-pathspecs",
        "status",
        "--porcelain=v1",
        "-z",
        "--ignored",
        "--untracked-files=all",
        "--no-renames",
        // Past a few thousand paths one look at the whole tree is cheaper than the list.
        ...(touched.length > MAX_PATHSPECS ? [] : ["--", ...touched]),
      ], signal),
      walkTree(wt.path, { paths: rewritten }),
    ]);
    const left = status?.stdout.head ?? "";
    if (left.length > 0) throw new Error(`left after reset: ${left.slice(0, 200)}`);
    const dirInodes = new Map(mark.dirInodes);
    for (const dir of dirsGone) {
      dirInodes.set(dir, lstatSync(join(wt.path, dir), { bigint: true }).ino);
    }
    const files = new Map(mark.files);
    for (const path of rewritten) {
      const now = restat.entries.get(path);
      if (now === undefined) throw new Error(`not restored: ${path}`);
      files.set(path, now);
    }
    const next: TreeMark = {
      ...mark,
      files,
      dirInodes,
      index: rewritten.length > 0
        ? new Uint8Array(readFileSync(join(wt.gitDir, "index")))
        : mark.index,
      changedAfter: wroteAt === null ? mark.changedAfter : (wroteAt / 1000).toFixed(3),
    };
    await settle(wroteAt ?? 0);
    return { rewritten, dirModes, removed: removed.sort(), mark: next };
  } catch (error) {
    if (error instanceof WorktreeError) throw error;
    throw new WorktreeError(
      "reset_failed",
      `Cannot reset the clean tree: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}
