// A reset clean tree is indistinguishable from a fresh `git worktree add`: every leftover
// (build output, ignored file, cache, mode change, stealth rewrite, planted symlink) of the
// baseline or an earlier round is gone, and files and index hash to the base tree.
import { deepEqual, equal, notEqual, ok } from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCleanTree } from "../../../adapters/worktree/clean_tree.ts";
import { markTree, RACY_MARGIN_MS, resetTree } from "../../../adapters/worktree/reset_tree.ts";
import { createWorktree, removeWorktree, type Worktree } from "../../../adapters/worktree/mod.ts";

function sh(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

function fixture(): { scratch: string; repo: string; root: string } {
  const scratch = mkdtempSync(join(tmpdir(), "vouch-reset-"));
  const repo = join(scratch, "repo");
  mkdirSync(join(repo, "src", "deep"), { recursive: true });
  writeFileSync(join(repo, "src", "a.ts"), "export const a = 1;\n");
  writeFileSync(join(repo, "src", "deep", "b.ts"), "export const b = 2;\n");
  writeFileSync(join(repo, "run.sh"), "#!/bin/sh\necho hi\n", { mode: 0o755 });
  writeFileSync(join(repo, ".gitignore"), "dist/\n*.log\n.cache/\n");
  symlinkSync("src/a.ts", join(repo, "link.ts"));
  sh(repo, "init", "-q");
  sh(repo, "add", "-A");
  sh(repo, "-c", "user.email=e@x", "-c", "user.name=e", "commit", "-qm", "base");
  return { scratch, repo, root: join(scratch, "worktrees") };
}

/** Every path below `dir` (ignored and untracked included, `.git` aside): type, mode, content. */
function manifest(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      if (rel === "" && name === ".git") continue;
      const p = rel === "" ? name : `${rel}/${name}`;
      const s = lstatSync(join(dir, p));
      const mode = (s.mode & 0o7777).toString(8);
      if (s.isSymbolicLink()) out[p] = `link ${readlinkSync(join(dir, p))}`;
      else if (s.isDirectory()) {
        out[p] = `dir ${mode}`;
        walk(p);
      } else {
        const sha = createHash("sha256").update(readFileSync(join(dir, p))).digest("hex");
        out[p] = `file ${mode} ${sha}`;
      }
    }
  };
  walk("");
  return out;
}

/** The tree hash of the index, and of the files as they are (a throwaway index). */
function treeHashes(wt: Worktree): { index: string; files: string } {
  const args = [`--git-dir=${wt.gitDir}`, `--work-tree=${wt.path}`];
  const index = sh(wt.path, ...args, "write-tree").trim();
  const tmpIndex = join(wt.container, "probe-index");
  const env = { ...Deno.env.toObject(), GIT_INDEX_FILE: tmpIndex };
  execFileSync("git", [...args, "add", "-A", "--force", "."], { cwd: wt.path, env });
  const files = execFileSync("git", [...args, "write-tree"], {
    cwd: wt.path,
    env,
    encoding: "utf8",
  })
    .trim();
  rmSync(tmpIndex, { force: true });
  return { index, files };
}

/** What a baseline or a cheating round could leave behind in its tree. */
function dirty(wt: Worktree, outside: string): void {
  const p = (rel: string) => join(wt.path, rel);
  mkdirSync(p("dist"), { recursive: true });
  writeFileSync(p("dist/out.js"), "built"); // ignored build output
  writeFileSync(p("debug.log"), "log"); // ignored file
  mkdirSync(p(".cache/x"), { recursive: true });
  writeFileSync(p(".cache/x/hit"), "cached"); // cache
  writeFileSync(p("src/generated.ts"), "export const g = 1;\n"); // untracked artefact
  chmodSync(p("src/a.ts"), 0o755); // mode change
  chmodSync(p("run.sh"), 0o644);
  chmodSync(p("src/deep"), 0o777); // directory mode
  // Stealth rewrite: same size, mtime put back, so git's stat cache alone would call it clean.
  const before = statSync(p("src/deep/b.ts"));
  writeFileSync(p("src/deep/b.ts"), "export const b = 3;\n");
  utimesSync(p("src/deep/b.ts"), before.atime, before.mtime);
  rmSync(p("link.ts"));
  writeFileSync(p("link.ts"), "not a link"); // symlink replaced by a file
  writeFileSync(p(".gitattributes"), "*.ts text eol=crlf\n"); // planted attributes
  writeFileSync(p("src/.gitignore"), "*\n"); // planted ignore rules
  sh(wt.path, `--git-dir=${wt.gitDir}`, `--work-tree=${wt.path}`, "add", "-f", "src/generated.ts");
  writeFileSync(join(outside, "keep.txt"), "outside");
}

Deno.test("a reset tree is byte-identical to a fresh checkout, leftovers and modes gone", async () => {
  const { scratch, repo, root } = fixture();
  const outside = join(scratch, "outside");
  mkdirSync(outside);
  const used = await createWorktree({ repo, taskId: "t", attempt: 1, purpose: "verify", root });
  const fresh = await createWorktree({ repo, taskId: "t", attempt: 2, purpose: "verify", root });
  try {
    const base = treeHashes(fresh);
    const mark = await markTree(used);
    dirty(used, outside);
    // A tracked directory swapped for a symlink to outside: its target must never be touched.
    rmSync(join(used.path, "src/deep"), { recursive: true });
    symlinkSync(outside, join(used.path, "src/deep"));
    writeFileSync(join(used.path, ".git"), "gitdir: /elsewhere\n");
    notEqual(JSON.stringify(manifest(used.path)), JSON.stringify(manifest(fresh.path)));

    const report = await resetTree(used, mark);
    deepEqual(manifest(used.path), manifest(fresh.path));
    deepEqual(treeHashes(used), base);
    equal(base.index, base.files);
    equal(readFileSync(join(used.path, ".git"), "utf8"), `gitdir: ${used.gitDir}\n`);
    equal(readFileSync(join(outside, "keep.txt"), "utf8"), "outside");
    ok(report.rewritten.includes("src/a.ts") && report.rewritten.includes("link.ts"));
  } finally {
    await removeWorktree(used);
    await removeWorktree(fresh);
    rmSync(scratch, { recursive: true, force: true });
  }
});

Deno.test("a stealth rewrite git's stat cache cannot see does not survive a reset", async () => {
  const { scratch, repo, root } = fixture();
  // A repository where git trusts mtime and size only (core.trustctime=false, checkStat minimal,
  // as some users set): git alone would call the rewritten file clean.
  sh(repo, "config", "core.trustctime", "false");
  sh(repo, "config", "core.checkStat", "minimal");
  const wt = await createWorktree({ repo, taskId: "t", attempt: 1, purpose: "verify", root });
  const git = (...a: string[]) =>
    sh(wt.path, `--git-dir=${wt.gitDir}`, `--work-tree=${wt.path}`, ...a);
  try {
    const file = join(wt.path, "src/deep/b.ts");
    const old = new Date("2020-01-01T00:00:00Z");
    utimesSync(file, old, old);
    git("update-index", "--refresh"); // the index records the old mtime; not racy any more
    const mark = await markTree(wt);
    writeFileSync(file, "export const b = 9;\n");
    utimesSync(file, old, old);
    equal(git("status", "--porcelain"), ""); // git is fooled
    const report = await resetTree(wt, mark);
    deepEqual(report.rewritten, ["src/deep/b.ts"]);
    equal(readFileSync(file, "utf8"), "export const b = 2;\n");
  } finally {
    await removeWorktree(wt);
    rmSync(scratch, { recursive: true, force: true });
  }
});

Deno.test("createCleanTree reuses a used tree: the next patch sees only the base", async () => {
  const { scratch, repo, root } = fixture();
  const patchOf = (path: string, from: string, to: string) =>
    new TextEncoder().encode(
      `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-${from}\n+${to}\n`,
    );
  const first = await createCleanTree({
    repo,
    taskId: "t",
    attempt: 1,
    root,
    patch: patchOf("src/a.ts", "export const a = 1;", "export const a = 5;"),
  });
  let second = first;
  try {
    equal(first.reused, false);
    dirty(first.worktree, mkdtempSync(join(scratch, "o-")));
    second = await createCleanTree({
      repo,
      taskId: "t",
      attempt: 2,
      root,
      reuse: first,
      patch: patchOf("src/deep/b.ts", "export const b = 2;", "export const b = 7;"),
    });
    equal(second.reused, true);
    equal(second.worktree.path, first.worktree.path);
    deepEqual(second.changed, ["src/deep/b.ts"]);
    const fresh = await createCleanTree({
      repo,
      taskId: "t",
      attempt: 3,
      root,
      patch: patchOf("src/deep/b.ts", "export const b = 2;", "export const b = 7;"),
    });
    try {
      deepEqual(manifest(second.worktree.path), manifest(fresh.worktree.path));
      deepEqual(treeHashes(second.worktree), treeHashes(fresh.worktree));
    } finally {
      await removeWorktree(fresh.worktree);
    }
  } finally {
    await removeWorktree(second.worktree);
    rmSync(scratch, { recursive: true, force: true });
  }
});

Deno.test("a tree that cannot be reset is replaced by a fresh checkout", async () => {
  const { scratch, repo, root } = fixture();
  const first = await createCleanTree({
    repo,
    taskId: "t",
    attempt: 1,
    root,
    patch: new Uint8Array(),
  });
  let next = first;
  try {
    // The tree's private git dir is gone: git cannot reset it.
    rmSync(first.worktree.gitDir, { recursive: true, force: true });
    next = await createCleanTree({
      repo,
      taskId: "t",
      attempt: 2,
      root,
      reuse: first,
      patch: new Uint8Array(),
    });
    equal(next.reused, false);
    notEqual(next.worktree.path, first.worktree.path);
    equal(existsSync(first.worktree.container), false);
    deepEqual(Object.keys(manifest(next.worktree.path)).sort(), [
      ".gitignore",
      "link.ts",
      "run.sh",
      "src",
      "src/a.ts",
      "src/deep",
      "src/deep/b.ts",
    ]);
  } finally {
    await removeWorktree(next.worktree);
    rmSync(scratch, { recursive: true, force: true });
  }
});

Deno.test("the private git dir is reset too: HEAD, index, planted config and locks", async () => {
  const { scratch, repo, root } = fixture();
  writeFileSync(join(repo, "later.txt"), "a later commit\n");
  sh(repo, "add", "-A");
  sh(repo, "-c", "user.email=e@x", "-c", "user.name=e", "commit", "-qm", "later");
  const base = sh(repo, "rev-parse", "HEAD~1").trim();
  const used = await createWorktree({
    repo,
    taskId: "t",
    attempt: 1,
    purpose: "verify",
    root,
    base,
  });
  const fresh = await createWorktree({
    repo,
    taskId: "t",
    attempt: 2,
    purpose: "verify",
    root,
    base,
  });
  const git = (...a: string[]) =>
    sh(used.path, `--git-dir=${used.gitDir}`, `--work-tree=${used.path}`, ...a);
  try {
    const mark = await markTree(used);
    // What a check could do to the tree's own git state: move HEAD (files follow), stage
    // things, plant per-worktree config, sparse-checkout rules and a stale lock.
    git("checkout", "-q", "--detach", sh(repo, "rev-parse", "HEAD").trim());
    git("update-index", "--chmod=+x", "src/a.ts");
    writeFileSync(join(used.gitDir, "config.worktree"), "[core]\n\tsparseCheckout = true\n");
    mkdirSync(join(used.gitDir, "info"), { recursive: true });
    writeFileSync(join(used.gitDir, "info", "sparse-checkout"), "src/\n");
    writeFileSync(join(used.gitDir, "index.lock"), "");
    notEqual(git("rev-parse", "HEAD").trim(), base);

    await resetTree(used, mark);
    equal(git("rev-parse", "HEAD").trim(), base);
    deepEqual(readdirSync(used.gitDir).sort(), readdirSync(fresh.gitDir).sort());
    deepEqual(manifest(used.path), manifest(fresh.path));
    deepEqual(treeHashes(used), treeHashes(fresh));
    equal(existsSync(join(used.path, "later.txt")), false);
  } finally {
    await removeWorktree(used);
    await removeWorktree(fresh);
    rmSync(scratch, { recursive: true, force: true });
  }
});

Deno.test("a tracked file turned directory, a nested repository and a hard link are undone", async () => {
  const { scratch, repo, root } = fixture();
  const used = await createWorktree({ repo, taskId: "t", attempt: 1, purpose: "verify", root });
  const fresh = await createWorktree({ repo, taskId: "t", attempt: 2, purpose: "verify", root });
  try {
    const mark = await markTree(used);
    const p = (rel: string) => join(used.path, rel);
    rmSync(p("src/a.ts"));
    mkdirSync(p("src/a.ts/inner"), { recursive: true });
    writeFileSync(p("src/a.ts/inner/x"), "x");
    execFileSync("git", ["init", "-q", p("vendor/nested")]);
    writeFileSync(p("vendor/nested/file"), "nested");
    execFileSync("ln", [p("run.sh"), p("src/deep/hardlink.sh")]);
    const report = await resetTree(used, mark);
    deepEqual(manifest(used.path), manifest(fresh.path));
    deepEqual(treeHashes(used), treeHashes(fresh));
    ok(report.rewritten.includes("src/a.ts"), report.rewritten.join(","));
    // The hard link bumped run.sh's link count (and change time): it is rewritten, not trusted.
    ok(report.rewritten.includes("run.sh"), report.rewritten.join(","));
    deepEqual(report.removed, ["src/deep/hardlink.sh", "vendor"]);
  } finally {
    await removeWorktree(used);
    await removeWorktree(fresh);
    rmSync(scratch, { recursive: true, force: true });
  }
});

Deno.test("a reset looks again only at what it rewrote, and a rewrite right after a mark is still seen", async () => {
  const { scratch, repo, root } = fixture();
  const wt = await createWorktree({ repo, taskId: "t", attempt: 1, purpose: "verify", root });
  const file = join(wt.path, "src/deep/b.ts");
  const ctimeMs = () =>
    Number(execFileSync("stat", ["-c", "%.9Z", file], { encoding: "utf8" }).trim()) * 1000;
  try {
    writeFileSync(file, "export const b = 3;\n", { flag: "r+" }); // before the mark: clean
    writeFileSync(file, "export const b = 2;\n", { flag: "r+" });
    const first = await resetTree(wt, await markTree(wt));
    deepEqual([first.rewritten, first.removed, first.dirModes], [[], [], []]);
    writeFileSync(file, "export const b = 3;\n");
    const again = await resetTree(wt, first.mark);
    deepEqual(again.rewritten, ["src/deep/b.ts"]);
    // The next mark is the reset's own (no second walk of the tree), and it is only handed
    // over once the clock is past the rewritten file's change time by more than a timestamp
    // tick: an in-place, same-size rewrite with mtime put back, made at once, still gets a
    // change time of its own.
    const mark = again.mark;
    ok(Date.now() - ctimeMs() >= RACY_MARGIN_MS, `${Date.now() - ctimeMs()} ms`);
    const before = statSync(file);
    writeFileSync(file, "export const b = 4;\n", { flag: "r+" });
    utimesSync(file, before.atime, before.mtime);
    equal(statSync(file).ino, before.ino);
    const second = await resetTree(wt, mark);
    deepEqual(second.rewritten, ["src/deep/b.ts"]);
    equal(readFileSync(file, "utf8"), "export const b = 2;\n");
    // Nothing changed: nothing is rewritten, removed or re-moded.
    const third = await resetTree(wt, second.mark);
    deepEqual([third.rewritten, third.removed, third.dirModes], [[], [], []]);
  } finally {
    await removeWorktree(wt);
    rmSync(scratch, { recursive: true, force: true });
  }
});

Deno.test("deleted files, and files and directories made before the mark and renamed in, are undone", async () => {
  const { scratch, repo, root } = fixture();
  const used = await createWorktree({ repo, taskId: "t", attempt: 1, purpose: "verify", root });
  const fresh = await createWorktree({ repo, taskId: "t", attempt: 2, purpose: "verify", root });
  try {
    // Made (and old) before the mark, outside the tree: their change times predate it.
    const stash = join(scratch, "stash");
    mkdirSync(join(stash, "deep"), { recursive: true });
    writeFileSync(join(stash, "a.ts"), "export const a = 9;\n"); // same size as src/a.ts
    writeFileSync(join(stash, "deep", "b.ts"), "export const b = 9;\n");
    mkdirSync(join(stash, "cache"));
    writeFileSync(join(stash, "cache", "hit"), "artefact");
    const mark = await markTree(used);
    const p = (rel: string) => join(used.path, rel);
    renameSync(join(stash, "a.ts"), p("src/a.ts"));
    rmSync(p("src/deep"), { recursive: true });
    renameSync(join(stash, "deep"), p("src/deep"));
    renameSync(join(stash, "cache"), p("src/cache"));
    rmSync(p("run.sh")); // deleted, nothing in its place: only its directory shows it
    const report = await resetTree(used, mark);
    deepEqual(manifest(used.path), manifest(fresh.path));
    deepEqual(treeHashes(used), treeHashes(fresh));
    deepEqual(report.rewritten, ["run.sh", "src/a.ts", "src/deep/b.ts"]);
    deepEqual(report.removed, ["src/cache"]);
  } finally {
    await removeWorktree(used);
    await removeWorktree(fresh);
    rmSync(scratch, { recursive: true, force: true });
  }
});
