import assert from "node:assert/strict";
import { join } from "node:path";
import { createRepo, git, snapshot, snapshotDifferences } from "../../golden/fixture_repos.ts";
import {
  createCleanTree,
  createWorktree,
  extractDiff,
  gcWorktrees,
  removeWorktree,
  withWorktree,
  WorktreeError,
} from "../../../adapters/worktree/mod.ts";
import { parseGitDiff } from "../../../kernel/diff/mod.ts";

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

async function setup() {
  const repo = await createRepo(
    {
      "src/a.txt": "one\ntwo\nthree\n",
      "src/b.txt": "bee\n",
      "tests/t.txt": "protected test\n",
      "bin.dat": "\u0000\u0001\u0002binary\n",
    },
    "true",
    { ignored: ["build/"] },
  );
  const root = await Deno.makeTempDir({ prefix: "vouch-wt-root-" });
  return {
    repo,
    root,
    cleanup: async () => {
      await repo.cleanup();
      await Deno.remove(root, { recursive: true }).catch(() => {});
    },
  };
}

Deno.test("worktree: created outside the repo at the base, removed with its admin entry", async () => {
  const { repo, root, cleanup } = await setup();
  try {
    const before = await snapshot(repo.dir);
    const wt = await createWorktree({ repo: repo.dir, taskId: "t1", attempt: 1, root });
    assert.ok(wt.path.startsWith(await Deno.realPath(root)));
    assert.ok(!wt.path.startsWith(repo.dir));
    assert.equal(await Deno.readTextFile(join(wt.path, "src/a.txt")), "one\ntwo\nthree\n");
    assert.equal(wt.base, (await git(repo.dir, "rev-parse", "HEAD")).trim());
    const owner = JSON.parse(await Deno.readTextFile(join(wt.container, "owner.json")));
    assert.equal(owner.schema, "vouch.worktree/v1");
    assert.equal(owner.pid, Deno.pid);
    assert.match(await git(repo.dir, "worktree", "list"), /t1-1\/tree/);
    await removeWorktree(wt);
    assert.equal(await exists(wt.container), false);
    assert.doesNotMatch(await git(repo.dir, "worktree", "list"), /t1-1/);
    assert.deepEqual(snapshotDifferences(before, await snapshot(repo.dir)), []);
    await removeWorktree(wt); // idempotent
  } finally {
    await cleanup();
  }
});

Deno.test("worktree: bad task ids, duplicate attempts and roots inside the repo are refused", async () => {
  const { repo, root, cleanup } = await setup();
  try {
    await assert.rejects(
      createWorktree({ repo: repo.dir, taskId: "../x", attempt: 1, root }),
      (e: unknown) => e instanceof WorktreeError && e.code === "bad_task_id",
    );
    await assert.rejects(
      createWorktree({ repo: repo.dir, taskId: "t", attempt: 1, root: join(repo.dir, "wt") }),
      (e: unknown) => e instanceof WorktreeError && e.code === "inside_repo",
    );
    const wt = await createWorktree({ repo: repo.dir, taskId: "t", attempt: 1, root });
    await assert.rejects(
      createWorktree({ repo: repo.dir, taskId: "t", attempt: 1, root }),
      (e: unknown) => e instanceof WorktreeError && e.code === "exists",
    );
    await removeWorktree(wt);
  } finally {
    await cleanup();
  }
});

Deno.test("worktree: the user's uncommitted changes are not part of the base and stay untouched", async () => {
  const { repo, root, cleanup } = await setup();
  try {
    await Deno.writeTextFile(join(repo.dir, "src/a.txt"), "user edit\n");
    await Deno.writeTextFile(join(repo.dir, "scratch.txt"), "untracked\n");
    const before = await snapshot(repo.dir);
    await withWorktree({ repo: repo.dir, taskId: "dirty", attempt: 1, root }, async (wt) => {
      assert.equal(await Deno.readTextFile(join(wt.path, "src/a.txt")), "one\ntwo\nthree\n");
      assert.equal(await exists(join(wt.path, "scratch.txt")), false);
      await Deno.writeTextFile(join(wt.path, "src/a.txt"), "agent edit\n");
    });
    assert.deepEqual(snapshotDifferences(before, await snapshot(repo.dir)), []);
    assert.equal(await Deno.readTextFile(join(repo.dir, "src/a.txt")), "user edit\n");
  } finally {
    await cleanup();
  }
});

Deno.test("extractDiff: equals what git shows, includes untracked and binary files and deletions, excludes ignored", async () => {
  const { repo, root, cleanup } = await setup();
  try {
    const wt = await createWorktree({ repo: repo.dir, taskId: "x", attempt: 1, root });
    try {
      await Deno.writeTextFile(join(wt.path, "src/a.txt"), "one\nTWO\nthree\n");
      await Deno.remove(join(wt.path, "src/b.txt"));
      await Deno.writeTextFile(join(wt.path, "src/new.txt"), "untracked new file\n");
      await Deno.writeFile(join(wt.path, "img.bin"), new Uint8Array([0, 255, 1, 254, 0, 10]));
      await Deno.mkdir(join(wt.path, "build"));
      await Deno.writeTextFile(join(wt.path, "build/out.js"), "artefact\n");
      // A worker rewriting the worktree's .git file cannot redirect extraction.
      await Deno.writeTextFile(join(wt.path, ".git"), "gitdir: /nonexistent\n");
      const d = await extractDiff(wt);
      assert.deepEqual(
        d.changed.map((c) => `${c.status} ${c.path}`),
        ["A img.bin", "M src/a.txt", "D src/b.txt", "A src/new.txt"],
      );
      const text = new TextDecoder().decode(d.bytes);
      assert.match(text, /GIT binary patch/);
      assert.doesNotMatch(text, /build\/out\.js/);
      // The same diff git itself shows after staging everything in the worktree.
      await Deno.writeTextFile(join(wt.path, ".git"), `gitdir: ${wt.gitDir}\n`);
      await git(wt.path, "add", "-A");
      const shown = await git(
        wt.path,
        "diff",
        "--cached",
        "--binary",
        "--full-index",
        "--no-renames",
        wt.base,
      );
      assert.equal(text, shown);
      const parsed = parseGitDiff(d.bytes);
      assert.equal(parsed.files.length, 4);
      assert.match(d.digest, /^sha256:[0-9a-f]{64}$/);
    } finally {
      await removeWorktree(wt);
    }
  } finally {
    await cleanup();
  }
});

Deno.test("extractDiff: an untouched worktree yields an empty diff", async () => {
  const { repo, root, cleanup } = await setup();
  try {
    await withWorktree({ repo: repo.dir, taskId: "e", attempt: 1, root }, async (wt) => {
      const d = await extractDiff(wt);
      assert.equal(d.bytes.length, 0);
      assert.deepEqual(d.changed, []);
    });
  } finally {
    await cleanup();
  }
});

Deno.test("extractDiff: Python bytecode and compiled modules the worker's runs left (not ignored by the repo) are never part of the diff", async () => {
  const { repo, root, cleanup } = await setup();
  try {
    await withWorktree({ repo: repo.dir, taskId: "pyc", attempt: 1, root }, async (wt) => {
      await Deno.mkdir(join(wt.path, "src/__pycache__"), { recursive: true });
      await Deno.writeTextFile(join(wt.path, "src/__pycache__/a.cpython-311.pyc"), "\u0000pyc");
      await Deno.mkdir(join(wt.path, "__pycache__/x"), { recursive: true });
      await Deno.writeTextFile(join(wt.path, "__pycache__/x/notes.txt"), "cache\n");
      await Deno.writeTextFile(join(wt.path, "old.pyc"), "\u0000pyc");
      await Deno.writeTextFile(join(wt.path, "src/old.pyo"), "\u0000pyo");
      // An in-place build's extension modules, likewise.
      await Deno.writeTextFile(join(wt.path, "src/a.cpython-311-x86_64-linux-gnu.so"), "\u0000so");
      await Deno.writeTextFile(join(wt.path, "native.pyd"), "\u0000pyd");
      await Deno.writeTextFile(join(wt.path, "src/a.py"), "print(1)\n");
      const d = await extractDiff(wt);
      assert.deepEqual(d.changed, [{ status: "A", path: "src/a.py" }]);
    });
  } finally {
    await cleanup();
  }
});

Deno.test("createCleanTree: applies the extracted patch, leaves worker artefacts behind, restores protected paths", async () => {
  const { repo, root, cleanup } = await setup();
  try {
    const before = await snapshot(repo.dir);
    const wt = await createWorktree({ repo: repo.dir, taskId: "c", attempt: 1, root });
    let patch: Uint8Array;
    try {
      await Deno.writeTextFile(join(wt.path, "src/a.txt"), "fixed\n");
      await Deno.writeTextFile(join(wt.path, "tests/t.txt"), "weakened test\n");
      await Deno.writeTextFile(join(wt.path, "tests/new_test.txt"), "new protected\n");
      await Deno.mkdir(join(wt.path, "build"));
      await Deno.writeTextFile(join(wt.path, "build/cache"), "makes tests pass\n");
      patch = (await extractDiff(wt)).bytes;
    } finally {
      await removeWorktree(wt);
    }
    const clean = await createCleanTree({
      repo: repo.dir,
      taskId: "c",
      attempt: 1,
      root,
      patch,
      isProtected: (p) => p.startsWith("tests/"),
    });
    try {
      const p = clean.worktree.path;
      assert.equal(await Deno.readTextFile(join(p, "src/a.txt")), "fixed\n");
      assert.equal(await Deno.readTextFile(join(p, "tests/t.txt")), "protected test\n");
      assert.equal(await exists(join(p, "tests/new_test.txt")), false);
      assert.equal(await exists(join(p, "build")), false);
      assert.deepEqual([...clean.restored].sort(), ["tests/new_test.txt", "tests/t.txt"]);
      assert.deepEqual([...clean.changed].sort(), [
        "src/a.txt",
        "tests/new_test.txt",
        "tests/t.txt",
      ]);
    } finally {
      await removeWorktree(clean.worktree);
    }
    assert.deepEqual(snapshotDifferences(before, await snapshot(repo.dir)), []);
  } finally {
    await cleanup();
  }
});

Deno.test("createCleanTree: a patch git refuses (escaping path) fails with apply_failed and leaves nothing", async () => {
  const { repo, root, cleanup } = await setup();
  try {
    const evil = new TextEncoder().encode(
      "diff --git a/../evil.txt b/../evil.txt\nnew file mode 100644\n--- /dev/null\n+++ b/../evil.txt\n@@ -0,0 +1 @@\n+pwned\n",
    );
    await assert.rejects(
      createCleanTree({ repo: repo.dir, taskId: "ev", attempt: 1, root, patch: evil }),
      (e: unknown) => e instanceof WorktreeError && e.code === "apply_failed",
    );
    assert.equal(await exists(join(repo.dir, "..", "evil.txt")), false);
    const report = await gcWorktrees({ root, dryRun: true });
    assert.deepEqual(report.removed, []);
    assert.deepEqual(report.kept, []);
  } finally {
    await cleanup();
  }
});

Deno.test("createCleanTree: a tree made for one use (mark: false) is never reset: reusing it checks out afresh", async () => {
  const { repo, root, cleanup } = await setup();
  try {
    const once = await createCleanTree({
      repo: repo.dir,
      taskId: "once",
      attempt: 1,
      root,
      patch: new Uint8Array(),
      mark: false,
    });
    assert.equal(once.mark, null);
    // A leftover the unmarked tree cannot prove it is rid of.
    await Deno.writeTextFile(join(once.worktree.path, "src/a.txt"), "tampered\n");
    const next = await createCleanTree({
      repo: repo.dir,
      taskId: "once",
      attempt: 2,
      root,
      patch: new Uint8Array(),
      reuse: once,
    });
    try {
      assert.equal(next.reused, false);
      assert.notEqual(next.worktree.path, once.worktree.path);
      assert.equal(await exists(once.worktree.container), false);
      assert.equal(
        await Deno.readTextFile(join(next.worktree.path, "src/a.txt")),
        "one\ntwo\nthree\n",
      );
      assert.ok(next.mark !== null);
    } finally {
      await removeWorktree(next.worktree);
    }
  } finally {
    await cleanup();
  }
});

Deno.test("extractDiff: starts from the index as checked out, yet a same-size rewrite with its mtime restored is seen", async () => {
  const { repo, root, cleanup } = await setup();
  try {
    const wt = await createWorktree({ repo: repo.dir, taskId: "stat", attempt: 1, root });
    try {
      const file = join(wt.path, "src/b.txt");
      const before = await Deno.stat(file);
      // Same size, same inode, mtime put back: only ctime (which nobody can set) moved.
      const f = await Deno.open(file, { write: true });
      await f.write(new TextEncoder().encode("BEE\n"));
      f.close();
      await Deno.utime(file, before.atime!, before.mtime!);
      // Extraction starts from the index as checked out, kept in the container (not the tree).
      assert.ok(await exists(join(wt.container, "base.index")));
      const diff = await extractDiff(wt);
      assert.deepEqual(diff.changed, [{ status: "M", path: "src/b.txt" }]);
    } finally {
      await removeWorktree(wt);
    }
  } finally {
    await cleanup();
  }
});

Deno.test("gcWorktrees: removes leftovers of dead owners, keeps live ones, skips unmarked dirs", async () => {
  const { repo, root, cleanup } = await setup();
  try {
    const live = await createWorktree({ repo: repo.dir, taskId: "live", attempt: 1, root });
    const dead = await createWorktree({ repo: repo.dir, taskId: "dead", attempt: 1, root });
    const marker = JSON.parse(await Deno.readTextFile(join(dead.container, "owner.json")));
    marker.pid = 2 ** 22 + 12345; // above pid_max: no such process
    await Deno.writeTextFile(join(dead.container, "owner.json"), JSON.stringify(marker));
    const stranger = join(root, "not-ours");
    await Deno.mkdir(join(stranger, "x"), { recursive: true });
    const report = await gcWorktrees({ root });
    assert.deepEqual(report.removed, [dead.container]);
    assert.deepEqual(report.kept, [live.container]);
    assert.equal(await exists(dead.container), false);
    assert.equal(await exists(live.path), true);
    assert.equal(await exists(join(stranger, "x")), true);
    assert.doesNotMatch(await git(repo.dir, "worktree", "list"), /dead-1/);
    const forced = await gcWorktrees({ root, force: true });
    assert.deepEqual(forced.removed, [live.container]);
    assert.doesNotMatch(await git(repo.dir, "worktree", "list"), /live-1/);
  } finally {
    await cleanup();
  }
});

Deno.test("extractDiff: symlinks (mode 120000), executables and an embedded repo are visible in the real diff", async () => {
  const { repo, root, cleanup } = await setup();
  try {
    const wt = await createWorktree({ repo: repo.dir, taskId: "sym", attempt: 1, root });
    try {
      await Deno.symlink("/etc/passwd", join(wt.path, "src/link"));
      await Deno.writeTextFile(join(wt.path, "run.sh"), "#!/bin/sh\necho hi\n");
      await Deno.chmod(join(wt.path, "run.sh"), 0o755);
      const d = await extractDiff(wt);
      const text = new TextDecoder().decode(d.bytes);
      assert.match(text, /new file mode 120000/);
      assert.match(text, /new file mode 100755/);
      const parsed = parseGitDiff(d.bytes);
      assert.ok(parsed.files.some((f) => f.isSymlink && f.newPath === "src/link"));
      // An embedded repository with a commit becomes a gitlink; without one, extraction fails closed.
      await git(wt.path, "init", "-q", "nested");
      await assert.rejects(
        extractDiff(wt),
        (e: unknown) => e instanceof WorktreeError && e.code === "extract_failed",
      );
      await Deno.writeTextFile(join(wt.path, "nested/f"), "x\n");
      await git(join(wt.path, "nested"), "add", "f");
      await git(join(wt.path, "nested"), "commit", "-qm", "n");
      const withLink = parseGitDiff((await extractDiff(wt)).bytes);
      assert.ok(withLink.files.some((f) => f.isGitlink && f.newPath === "nested"));
    } finally {
      await removeWorktree(wt);
    }
  } finally {
    await cleanup();
  }
});

Deno.test("removeWorktree: read-only directories left by a worker do not block removal", async () => {
  const { repo, root, cleanup } = await setup();
  try {
    const wt = await createWorktree({ repo: repo.dir, taskId: "ro", attempt: 1, root });
    await Deno.mkdir(join(wt.path, "locked/deeper"), { recursive: true });
    await Deno.writeTextFile(join(wt.path, "locked/deeper/f"), "x");
    await Deno.chmod(join(wt.path, "locked/deeper"), 0o500);
    await Deno.chmod(join(wt.path, "locked"), 0o500);
    await removeWorktree(wt);
    assert.equal(await exists(wt.container), false);
    assert.doesNotMatch(await git(repo.dir, "worktree", "list"), /ro-1/);
  } finally {
    await cleanup();
  }
});

Deno.test("extractDiff: replace refs cannot disguise the base; clean tree refuses writes beyond a new symlink", async () => {
  const { repo, root, cleanup } = await setup();
  try {
    const wt = await createWorktree({ repo: repo.dir, taskId: "rep", attempt: 1, root });
    try {
      await Deno.writeTextFile(join(wt.path, "src/a.txt"), "sneaky\n");
      // Forge a commit whose tree already contains the change and replace the base with it.
      const tree = (await git(wt.path, "write-tree")).trim(); // index of the worktree = base
      await git(wt.path, "add", "src/a.txt");
      const forgedTree = (await git(wt.path, "write-tree")).trim();
      assert.notEqual(forgedTree, tree);
      const forged = (await git(wt.path, "commit-tree", forgedTree, "-m", "forged")).trim();
      await git(wt.path, "replace", wt.base, forged);
      const d = await extractDiff(wt);
      assert.deepEqual(d.changed.map((c) => c.path), ["src/a.txt"]);
      await git(repo.dir, "replace", "-d", wt.base);
    } finally {
      await removeWorktree(wt);
    }
    const escape = new TextEncoder().encode([
      "diff --git a/tmp b/tmp",
      "new file mode 120000",
      "--- /dev/null",
      "+++ b/tmp",
      "@@ -0,0 +1 @@",
      "+..",
      "\\ No newline at end of file",
      "diff --git a/tmp/escaped.txt b/tmp/escaped.txt",
      "new file mode 100644",
      "--- /dev/null",
      "+++ b/tmp/escaped.txt",
      "@@ -0,0 +1 @@",
      "+pwned",
      "",
    ].join("\n"));
    await assert.rejects(
      createCleanTree({ repo: repo.dir, taskId: "sl", attempt: 1, root, patch: escape }),
      (e: unknown) => e instanceof WorktreeError && e.code === "apply_failed",
    );
    assert.equal(await exists(join(root, "escaped.txt")), false);
  } finally {
    await cleanup();
  }
});
