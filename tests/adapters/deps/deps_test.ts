import assert from "node:assert/strict";
import { join } from "node:path";
import {
  createNodeRepo,
  createRepo,
  snapshot,
  snapshotDifferences,
} from "../../golden/fixture_repos.ts";
import {
  dependencyManifests,
  findDependencyDirs,
  planDependencies,
  provideDependencyDirs,
  runSetup,
} from "../../../adapters/deps/mod.ts";
import { createCleanTree, removeWorktree } from "../../../adapters/worktree/mod.ts";
import { runProcess } from "../../../adapters/process/run.ts";

const FIX = new TextEncoder().encode(
  [
    "diff --git a/index.js b/index.js",
    "--- a/index.js",
    "+++ b/index.js",
    '@@ -2,7 +2,7 @@ const isNumber = require("is-number");',
    " ",
    " function double(x) {",
    '   if (!isNumber(x)) throw new TypeError("not a number");',
    "-  return Number(x) + 2;",
    "+  return Number(x) * 2;",
    " }",
    " ",
    " module.exports = { double };",
    "",
  ].join("\n"),
);

Deno.test("deps: a real npm dependency of the user's checkout is copied into the clean tree; tests pass there only with it; writes stay private", async () => {
  const repo = await createNodeRepo();
  const root = await Deno.makeTempDir({ prefix: "vouch-deps-" });
  try {
    const before = await snapshot(repo.dir);
    const installed = await findDependencyDirs(repo.dir);
    assert.deepEqual(installed, ["node_modules"]);
    const clean = await createCleanTree({
      repo: repo.dir,
      taskId: "n",
      attempt: 1,
      root,
      patch: FIX,
    });
    try {
      const tree = clean.worktree.path;
      const without = await runProcess({ argv: ["node", "--test"], cwd: tree, timeoutMs: 60_000 });
      assert.notEqual(without.exitCode, 0, "tests must not pass without the dependency");
      const plan = planDependencies(clean.changed, installed, { hasSetup: false });
      assert.deepEqual(plan, { mode: "copy", dirs: ["node_modules"] });
      const provided = await provideDependencyDirs(plan, repo.dir, tree);
      assert.deepEqual(provided.copied, ["node_modules"]);
      assert.deepEqual(provided.sources, [await Deno.realPath(join(repo.dir, "node_modules"))]);
      const copy = await Deno.lstat(join(tree, "node_modules"));
      assert.ok(copy.isDirectory && !copy.isSymlink, "a real directory, not a link to the user's");
      const withDeps = await runProcess({ argv: ["node", "--test"], cwd: tree, timeoutMs: 60_000 });
      assert.equal(withDeps.exitCode, 0, withDeps.stdout.head + withDeps.stderr.head);
      // A check writing a cache and overwriting a dependency file changes only the copy.
      const write = await runProcess({
        shell: "mkdir -p node_modules/.cache && echo c > node_modules/.cache/x && " +
          "echo broken > node_modules/is-number/index.js",
        cwd: tree,
        timeoutMs: 60_000,
      });
      assert.equal(write.exitCode, 0, write.stderr.head);
    } finally {
      await removeWorktree(clean.worktree);
    }
    assert.deepEqual(snapshotDifferences(before, await snapshot(repo.dir)), []);
  } finally {
    await repo.cleanup();
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
});

Deno.test("deps: a symlinked node_modules is found and copied from its target", async () => {
  const repo = await createRepo({ "package.json": "{}\n", "x.js": "1\n" }, "true", {
    ignored: ["node_modules"],
  });
  const shared = await Deno.makeTempDir({ prefix: "vouch-deps-shared-" });
  const tree = await Deno.makeTempDir({ prefix: "vouch-deps-tree-" });
  try {
    await Deno.mkdir(join(shared, ".bin"), { recursive: true });
    await Deno.writeTextFile(join(shared, "tool.js"), "tool");
    await Deno.symlink("../tool.js", join(shared, ".bin", "tool"));
    await Deno.symlink(shared, join(repo.dir, "node_modules"));
    assert.deepEqual(await findDependencyDirs(repo.dir), ["node_modules"]);
    const r = await provideDependencyDirs(
      { mode: "copy", dirs: ["node_modules"] },
      repo.dir,
      tree,
    );
    assert.deepEqual(r.copied, ["node_modules"]);
    assert.equal(await Deno.readTextFile(join(tree, "node_modules/.bin/tool")), "tool");
  } finally {
    await repo.cleanup();
    await Deno.remove(shared, { recursive: true });
    await Deno.remove(tree, { recursive: true });
  }
});

Deno.test("deps: nested and untracked dependency dirs are found; tracked vendor/ is not; outermost only", async () => {
  const repo = await createRepo(
    {
      "package.json": "{}\n",
      "web/package.json": "{}\n",
      "vendor/lib.go": "package lib\n",
      "src/x.js": "1\n",
    },
    "true",
    { ignored: ["node_modules/", ".venv/"] },
  );
  try {
    for (
      const d of [
        "node_modules/a",
        "web/node_modules/b/node_modules/c",
        ".venv/bin",
        "target/debug",
      ]
    ) {
      await Deno.mkdir(join(repo.dir, d), { recursive: true });
      await Deno.writeTextFile(join(repo.dir, d, "f"), "x");
    }
    assert.deepEqual(await findDependencyDirs(repo.dir), [
      ".venv",
      "node_modules",
      "target",
      "web/node_modules",
    ]);
  } finally {
    await repo.cleanup();
  }
});

Deno.test("deps: a patch changing manifests or lockfiles is refused without setup, planned with setup", () => {
  assert.deepEqual(dependencyManifests(["a/package.json", "src/x.ts", "Cargo.lock", "go.sum"]), [
    "a/package.json",
    "Cargo.lock",
    "go.sum",
  ]);
  const refused = planDependencies(["package-lock.json", "index.js"], ["node_modules"], {
    hasSetup: false,
  });
  assert.equal(refused.mode, "refuse");
  if (refused.mode === "refuse") {
    assert.deepEqual(refused.manifests, ["package-lock.json"]);
    assert.match(
      refused.reason,
      /^Cannot verify: the patch changes dependency manifest or lockfile package-lock\.json/,
    );
    assert.match(refused.reason, /setup/);
  }
  const setup = planDependencies(["package.json"], ["node_modules"], { hasSetup: true });
  assert.deepEqual(setup, { mode: "setup", manifests: ["package.json"] });
});

Deno.test("deps: providing never overwrites or escapes; setup runs in order and stops at the first failure", async () => {
  const tree = await Deno.makeTempDir({ prefix: "vouch-deps-tree-" });
  const repo = await Deno.makeTempDir({ prefix: "vouch-deps-repo-" });
  try {
    await Deno.mkdir(join(tree, "node_modules"));
    for (const d of ["node_modules", "target", "evil"]) {
      await Deno.mkdir(join(repo, d));
      await Deno.writeTextFile(join(repo, d, "f"), d);
    }
    const r = await provideDependencyDirs(
      { mode: "copy", dirs: ["node_modules", "../evil", "missing/node_modules", "target"] },
      repo,
      tree,
    );
    assert.deepEqual(r.copied, ["target"]);
    assert.deepEqual(r.skipped, ["node_modules", "../evil", "missing/node_modules"]);
    assert.equal(await Deno.readTextFile(join(tree, "target/f")), "target");
    const none = await provideDependencyDirs(
      { mode: "refuse", code: "dependency_change_needs_setup", manifests: [], reason: "" },
      repo,
      tree,
    );
    assert.deepEqual(none.copied, []);
    const seen: string[] = [];
    const ok = await runSetup(
      ["mkdir -p node_modules/dep", "echo hi > node_modules/dep/index.js"],
      {
        tree,
        onResult: (c) => {
          seen.push(c);
        },
      },
    );
    assert.equal(ok.ok, true);
    assert.deepEqual(seen, ["mkdir -p node_modules/dep", "echo hi > node_modules/dep/index.js"]);
    assert.equal(await Deno.readTextFile(join(tree, "node_modules/dep/index.js")), "hi\n");
    const bad = await runSetup(["false", "touch never"], { tree });
    assert.equal(bad.ok, false);
    assert.equal(bad.failed, "false");
    assert.equal(bad.results.length, 1);
    assert.equal(await Deno.lstat(join(tree, "never")).then(() => true, () => false), false);
  } finally {
    await Deno.remove(tree, { recursive: true });
    await Deno.remove(repo, { recursive: true });
  }
});
