/**
 * Resetting a used clean tree back to a fresh checkout of its base, so one
 * tree serves a task's baseline and every verification round, at a cost that
 * follows what changed, not the size of the repository.
 *
 * {@linkcode markTree} records, at a clean state, the stat signature of every
 * tracked path (type, inode, size, mode and the nanosecond change time, which
 * no user-space call can set back, unlike `mtime`), each tracked directory's
 * mode, the tree's index file and the small files of its private git dir
 * (`HEAD`, `commondir`, ...), all kept in vouch's memory where nothing run in
 * the tree can reach them. {@linkcode resetTree} then needs ONE stat walk of
 * the tree (a single `find` process, no content read): it removes every
 * entry that is not tracked (build outputs, ignored files, caches, dependency
 * copies, planted `.gitattributes`, nested repositories), deletes every
 * tracked path whose signature moved (so a same-size, mtime-restored rewrite
 * cannot hide behind git's stat cache), puts directory modes back, writes
 * the recorded index and git-dir files back, has git check out only the
 * deleted paths from that index, and proves the result: git finds nothing
 * changed, untracked or ignored at any path the reset touched, the index is
 * the base tree, and every other path still has the signature it had when it
 * was proven clean. The new mark is the old one with the rewritten paths
 * stat-ed again: nothing else is looked at twice. Any failure throws: the
 * caller then discards the tree and checks out a fresh one.
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

/** Marks {@linkcode resetTree} produced, handed to the next {@linkcode markTree} of that tree. */
const proven = new WeakMap<Worktree, TreeMark>();

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
  const handed = proven.get(wt);
  if (handed !== undefined) {
    // resetTree just proved this tree and stat-ed what it rewrote: nothing ran in it since.
    proven.delete(wt);
    return handed;
  }
  const index = new Uint8Array(readFileSync(join(wt.gitDir, "index")));
  const [walk, listed] = await Promise.all([
    walkTree(wt.path, { skipTop: [".git"] }),
    // Every path is in the index file (prefix-compressed at most in index v4): eight times its
    // size holds the whole listing (the head half of the capture).
    git(wt, ["ls-files", "-z"], signal, undefined, 8 * index.length + 1_048_576),
  ]);
  if (!walk.complete) throw new Error("the tree cannot be read completely");
  if (listed.stdout.truncated) throw new Error("the path listing was cut short");
  const paths = splitNul(listed.stdout.head);
  const files = new Map<string, string>();
  const dirSet = new Set<string>([""]);
  for (const path of paths) {
    files.set(path, walk.entries.get(path) ?? "missing");
    for (let d = dirname(path); d !== "." && !dirSet.has(d); d = dirname(d)) dirSet.add(d);
  }
  const dirs = new Map<string, number>();
  for (const d of dirSet) {
    const e = walk.entries.get(d);
    dirs.set(d, e?.[0] === "d" ? sigMode(e) : -1);
  }
  const gitDir = readGitDir(wt.gitDir);
  await settle(walk.newestCtimeMs);
  return { files, dirs, index, gitDirFiles: gitDir.files, gitDirDirs: gitDir.dirs };
}

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

    // One stat walk (never following a symlink): what is not tracked goes, what moved goes.
    const walk = await walkTree(wt.path, { skipTop: [".git"] });
    if (!walk.complete) throw new Error("the tree cannot be read completely");
    const removed: string[] = [];
    const rewritten: string[] = [];
    const dirModes: string[] = [];
    let under: string | null = null; // a removed directory: its walk entries are skipped
    for (const [path, entry] of walk.entries) {
      const type = entry[0];
      if (under !== null && path.startsWith(under)) continue;
      under = null;
      const dirMode = mark.dirs.get(path);
      const sig = mark.files.get(path);
      if (dirMode !== undefined && dirMode >= 0 && type === "d") {
        if (sigMode(entry) !== dirMode) {
          chmodSync(join(wt.path, path), dirMode);
          dirModes.push(path);
        }
        continue;
      }
      if (sig !== undefined && sig === entry) continue;
      if (path === "") throw new Error("the top of the tree is not a directory");
      rmSync(join(wt.path, path), { recursive: true, force: true });
      if (type === "d") under = `${path}/`;
      if (sig === undefined || sig === "missing") removed.push(path);
    }
    for (const [path, sig] of mark.files) {
      if (sig !== "missing" && walk.entries.get(path) !== sig) rewritten.push(path);
    }
    rewritten.sort();
    if (rewritten.length > 0) {
      // Only what was deleted is written again, from the recorded index (the base's blobs).
      const list = new TextEncoder().encode(rewritten.join("\0") + "\0");
      await git(wt, ["checkout-index", "-f", "-u", "-z", "--stdin"], signal, list);
    }
    // The proof: every path the reset touched is clean to git (nothing modified, untracked or
    // ignored there), the index is the base tree, and the rest kept its proven signature.
    const touched = [...new Set([...rewritten, ...removed, ...dirModes.filter((d) => d !== "")])];
    const [status, indexDiff, restat] = await Promise.all([
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
      git(
        wt,
        ["diff-index", "--cached", "--name-only", "-z", "--no-renames", wt.base, "--"],
        signal,
      ),
      walkTree(wt.path, { paths: rewritten }),
    ]);
    const left = (status?.stdout.head ?? "") + indexDiff.stdout.head;
    if (left.length > 0) throw new Error(`left after reset: ${left.slice(0, 200)}`);
    const files = new Map(mark.files);
    for (const path of rewritten) {
      const now = restat.entries.get(path);
      if (now === undefined) throw new Error(`not restored: ${path}`);
      files.set(path, now);
    }
    const next: TreeMark = {
      ...mark,
      files,
      index: rewritten.length > 0
        ? new Uint8Array(readFileSync(join(wt.gitDir, "index")))
        : mark.index,
    };
    await settle(restat.newestCtimeMs);
    proven.set(wt, next);
    return { rewritten, dirModes, removed: removed.sort(), mark: next };
  } catch (error) {
    proven.delete(wt);
    if (error instanceof WorktreeError) throw error;
    throw new WorktreeError(
      "reset_failed",
      `Cannot reset the clean tree: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}
