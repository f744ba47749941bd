/**
 * Resetting a used clean tree back to a fresh checkout of its base, so one
 * tree serves a task's baseline and every verification round. What changed is
 * found from stat data, never by reading the whole repository:
 * {@linkcode markTree} records, for every tracked path and directory, the inode,
 * size, mode and the nanosecond change time (GNU `stat`) (`ctime`: no user-space call can
 * set it back, unlike `mtime`). {@linkcode resetTree} deletes every tracked
 * path whose stat data moved (so a same-size, same-mtime rewrite cannot hide
 * behind git's own stat cache), puts directory modes back, removes every
 * untracked and ignored file (`git clean -ffdx`: build outputs, caches,
 * dependency copies, planted `.gitattributes`), lets `git reset --hard`
 * rewrite what is missing or differs from the base, and finally proves the
 * result clean with `git status --ignored`. Any failure throws: the caller
 * then discards the tree and checks out a fresh one.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { chmodSync, lstatSync, rmSync, writeFileSync } from "node:fs";
import { Buffer } from "node:buffer";
import process from "node:process";
import { dirname, join } from "node:path";
import { gitChecked, splitNul } from "../git/git_checked.ts";
import { WorktreeError } from "./errors.ts";
import { worktreeGitArgs } from "./extract_diff.ts";
import type { Worktree } from "./worktree.ts";

/** Stat signatures of a tree's tracked paths and their directories, taken at a clean state. */
export interface TreeMark {
  /** Tracked path (relative) -> `ino:ctimeNs:size:mode` (absent: path was missing). */
  readonly files: ReadonlyMap<string, string>;
  /** Directory (relative, `""` the top) -> its mode bits. */
  readonly dirs: ReadonlyMap<string, number>;
}

/** What {@linkcode resetTree} had to undo. */
export interface ResetReport {
  /** Tracked paths whose stat data moved (deleted, then rewritten by git). */
  readonly rewritten: readonly string[];
  /** Directories whose mode was put back. */
  readonly dirModes: readonly string[];
}

/**
 * `path -> ino:ctime:size:mode(hex)` of each existing path (missing ones absent),
 * by one `stat` per few thousand paths. GNU stat prints the change time in
 * nanoseconds (`%.9Z`), which Deno's node:fs does not (whole seconds only).
 */
function statBatch(cwd: string, paths: readonly string[]): Promise<Map<string, string>> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn("xargs", ["-0", "-r", "stat", "--printf=%i:%.9Z:%s:%f:%n\\0", "--"], {
      cwd,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LC_ALL: "C" },
      stdio: ["pipe", "pipe", "ignore"],
    });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.on("error", reject);
    child.on("close", (code) => {
      // 123: some path did not exist (absent from the map, so it counts as changed).
      if (code !== 0 && code !== 123) return reject(new Error(`stat exited ${code}`));
      const out = new Map<string, string>();
      for (const record of Buffer.concat(chunks).toString("utf8").split("\0")) {
        const m = /^(\d+:[\d.]+:\d+:[0-9a-f]+):(.*)$/s.exec(record);
        if (m !== null) out.set(m[2]!, m[1]!);
      }
      resolvePromise(out);
    });
    child.stdin.on("error", () => {});
    child.stdin.end(paths.map((p) => `./${p}`).join("\0"));
  });
}

const modeBits = (sig: string | undefined): number | null =>
  sig === undefined ? null : parseInt(sig.split(":")[3]!, 16);

function git(wt: Worktree, args: string[], signal?: AbortSignal) {
  return gitChecked([...worktreeGitArgs(wt), ...args], {
    cwd: wt.path,
    timeoutMs: 300_000,
    ...(signal !== undefined ? { signal } : {}),
  });
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
  const paths = splitNul((await git(wt, ["ls-files", "-z"], signal)).stdout.head);
  const dirSet = new Set<string>([""]);
  for (const path of paths) {
    for (let d = dirname(path); d !== "." && !dirSet.has(d); d = dirname(d)) dirSet.add(d);
  }
  const stats = await statBatch(wt.path, [...paths, ...[...dirSet].map((d) => d || ".")]);
  const files = new Map<string, string>();
  for (const path of paths) {
    const sig = stats.get(`./${path}`);
    if (sig !== undefined) files.set(path, sig);
  }
  const dirs = new Map<string, number>();
  for (const d of dirSet) {
    const bits = modeBits(stats.get(`./${d || "."}`));
    dirs.set(d, bits === null || (bits & 0o170000) !== 0o040000 ? -1 : bits & 0o7777);
  }
  return { files, dirs };
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
    // The `.git` file checks see exactly as a fresh checkout wrote it.
    rmSync(join(wt.path, ".git"), { recursive: true, force: true });
    writeFileSync(join(wt.path, ".git"), `gitdir: ${wt.gitDir}\n`);
    const dirModes: string[] = [];
    // Parents first: a directory replaced by a symlink is removed before anything below it
    // is looked at, so nothing outside the tree is ever followed.
    const dirs = [...mark.dirs].sort(([a], [b]) => a.length - b.length);
    for (const [rel, mode] of dirs) {
      const abs = join(wt.path, rel);
      let now: number | null = null;
      try {
        const s = lstatSync(abs);
        now = s.isDirectory() ? Number(s.mode) & 0o7777 : null;
      } catch { /* gone: git recreates it */ }
      if (now === null) {
        if (rel !== "") rmSync(abs, { recursive: true, force: true });
      } else if (mode >= 0 && now !== mode) {
        chmodSync(abs, mode);
        dirModes.push(rel);
      }
    }
    const rewritten: string[] = [];
    const now = await statBatch(wt.path, [...mark.files.keys()]);
    for (const [path, sig] of mark.files) {
      if (now.get(`./${path}`) === sig) continue;
      rmSync(join(wt.path, path), { recursive: true, force: true });
      rewritten.push(path);
    }
    await git(wt, ["clean", "-ffdxq"], signal);
    await git(wt, ["reset", "-q", "--hard", "--no-recurse-submodules", wt.base], signal);
    await git(wt, ["clean", "-ffdxq"], signal);
    const status = await git(
      wt,
      ["status", "--porcelain=v1", "-z", "--ignored", "--untracked-files=all"],
      signal,
    );
    if (status.stdout.head.length > 0) {
      throw new Error(`left after reset: ${status.stdout.head.slice(0, 200)}`);
    }
    return { rewritten: rewritten.sort(), dirModes };
  } catch (error) {
    if (error instanceof WorktreeError) throw error;
    throw new WorktreeError(
      "reset_failed",
      `Cannot reset the clean tree: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}
