import assert from "node:assert/strict";
import { join } from "node:path";
import { createRepo, git } from "../../golden/fixture_repos.ts";
import {
  compareCheckoutSnapshots,
  gitChecked,
  GitError,
  readRepoInfo,
  resolveCommit,
  snapshotCheckout,
  splitNul,
} from "../../../adapters/git/mod.ts";

Deno.test("readRepoInfo: top level, base commit and a dirty-checkout note", async () => {
  const repo = await createRepo({ "a.txt": "a\n", "sub/b.txt": "b\n" }, "true");
  try {
    const head = (await git(repo.dir, "rev-parse", "HEAD")).trim();
    const clean = await readRepoInfo(join(repo.dir, "sub"));
    assert.equal(clean.top, await Deno.realPath(repo.dir));
    assert.equal(clean.base, head);
    assert.equal(clean.dirtyPaths, 0);
    assert.equal(clean.dirtyMessage, null);
    await Deno.writeTextFile(join(repo.dir, "a.txt"), "changed\n");
    await Deno.writeTextFile(join(repo.dir, "new.txt"), "new\n");
    const dirty = await readRepoInfo(repo.dir);
    assert.equal(dirty.dirtyPaths, 2);
    assert.match(
      dirty.dirtyMessage ?? "",
      /uncommitted changes in 2 paths; they are not part of the base/,
    );
    assert.match(dirty.dirtyMessage ?? "", new RegExp(head.slice(0, 12)));
  } finally {
    await repo.cleanup();
  }
});

Deno.test("readRepoInfo / resolveCommit: not a repo, bad revisions and option-looking revisions are GitErrors", async () => {
  const dir = await Deno.makeTempDir();
  const repo = await createRepo({ "a.txt": "a\n" }, "true");
  try {
    await assert.rejects(
      readRepoInfo(dir),
      (e: unknown) => e instanceof GitError && e.code === "not_a_repo",
    );
    await assert.rejects(
      readRepoInfo(join(dir, "nope")),
      (e: unknown) => e instanceof GitError && e.code === "not_a_repo",
    );
    for (const rev of ["nope", "--output=/tmp/x", "HEAD~5"]) {
      await assert.rejects(
        resolveCommit(repo.dir, rev),
        (e: unknown) => e instanceof GitError && e.code === "bad_rev",
        rev,
      );
    }
    assert.match(await resolveCommit(repo.dir, "main"), /^[0-9a-f]{40}$/);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await repo.cleanup();
  }
});

Deno.test("gitChecked: failures carry git's stderr; repository hooks never run", async () => {
  const repo = await createRepo({ "a.txt": "a\n" }, "true");
  try {
    await assert.rejects(
      gitChecked(["cat-file", "-p", "deadbeef"], { cwd: repo.dir }),
      (e: unknown) =>
        e instanceof GitError && e.code === "git_failed" && /deadbeef|Not a valid/.test(e.message),
    );
    const hook = join(repo.dir, ".git/hooks/pre-commit");
    await Deno.writeTextFile(hook, `#!/bin/sh\ntouch ${repo.dir}/HOOK_RAN\n`);
    await Deno.chmod(hook, 0o755);
    await Deno.writeTextFile(join(repo.dir, "a.txt"), "b\n");
    await gitChecked(["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "x"], {
      cwd: repo.dir,
    });
    assert.equal(await Deno.lstat(join(repo.dir, "HOOK_RAN")).then(() => true, () => false), false);
    assert.deepEqual(splitNul("a\0b\0"), ["a", "b"]);
    assert.deepEqual(splitNul(""), []);
  } finally {
    await repo.cleanup();
  }
});

Deno.test("checkout snapshots: equal when untouched; any outside write, ref move, config or hook change shows", async () => {
  const repo = await createRepo({ "a.txt": "a\n", "dir/b.txt": "b\n" }, "true", {
    ignored: ["build/"],
  });
  try {
    await Deno.writeTextFile(join(repo.dir, "a.txt"), "user's own edit\n");
    const s0 = await snapshotCheckout(repo.dir);
    assert.deepEqual(compareCheckoutSnapshots(s0, await snapshotCheckout(repo.dir)), []);
    // vouch's own state directory is not a change.
    await Deno.mkdir(join(repo.dir, ".vouch"));
    await Deno.writeTextFile(join(repo.dir, ".git/info/exclude"), ".vouch/\n");
    const s1 = await snapshotCheckout(repo.dir);
    assert.deepEqual(compareCheckoutSnapshots(s0, s1), []);
    const cases: [string, () => Promise<unknown>, string][] = [
      [
        "edit of an already-dirty file",
        () => Deno.writeTextFile(join(repo.dir, "a.txt"), "agent edit!!\n"),
        "file:a.txt",
      ],
      ["tracked file", () => Deno.writeTextFile(join(repo.dir, "dir/b.txt"), "x\n"), "part:status"],
      [
        "new untracked file",
        () => Deno.writeTextFile(join(repo.dir, "dir/new.txt"), "x\n"),
        "file:dir/new.txt",
      ],
      ["ignored artefact", () => Deno.mkdir(join(repo.dir, "build")), "part:ignored"],
      [
        "git config",
        () =>
          Deno.writeTextFile(join(repo.dir, ".git/config"), "[core]\n\tfsmonitor = evil\n", {
            append: true,
          }),
        "part:git-config",
      ],
      [
        "hook",
        () => Deno.writeTextFile(join(repo.dir, ".git/hooks/post-checkout"), "#!/bin/sh\n"),
        "part:hooks",
      ],
      ["ref", () => git(repo.dir, "branch", "sneaky"), "part:refs"],
    ];
    let prev = s1;
    for (const [what, act, expected] of cases) {
      await act();
      const next = await snapshotCheckout(repo.dir);
      const changes = compareCheckoutSnapshots(prev, next).map((c) => `${c.kind}:${c.name}`);
      assert.ok(changes.includes(expected), `${what}: ${changes.join(",")}`);
      prev = next;
    }
  } finally {
    await repo.cleanup();
  }
});
