/**
 * A batch's shared dependency snapshot under bwrap: every candidate's checks
 * see the user's node_modules, may write caches into `node_modules/.cache`,
 * and can write nothing else into it, so no candidate's writes reach another
 * (or the user's checkout). The same batch with private copies (or without a
 * sandbox, which always copies) lets the write through: the check below tells
 * the two apart.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runBatch } from "../../../adapters/batch/mod.ts";

// Fails when the dependency is missing, when another candidate's write is visible, or when
// this check could write into node_modules outside its cache.
const CHECK = [
  "grep -q 42 node_modules/dep/index.js || { echo missing; exit 1; }",
  "[ -e node_modules/dep/marker ] && { echo leaked; exit 1; }",
  "mkdir -p node_modules/.cache && echo c > node_modules/.cache/lint || { echo nocache; exit 1; }",
  "echo x > node_modules/dep/marker 2>/dev/null && { echo wrote; exit 1; }",
  "grep -qx 42 answer.txt",
].join("; ");

function setup(dir: string) {
  const repo = join(dir, "repo");
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo }).toString();
  mkdirSync(join(repo, "node_modules/dep"), { recursive: true });
  git("init", "-q");
  git("config", "user.email", "e@example.invalid");
  git("config", "user.name", "e");
  writeFileSync(join(repo, ".gitignore"), "node_modules\n");
  writeFileSync(join(repo, "answer.txt"), "41\n");
  writeFileSync(join(repo, "node_modules/dep/index.js"), "module.exports = 42;\n");
  git("add", ".");
  git("commit", "-qm", "init");
  const patch = (n: number) =>
    `diff --git a/answer.txt b/answer.txt\n--- a/answer.txt\n+++ b/answer.txt\n@@ -1 +1,2 @@\n-41\n+42\n+${n}\n`;
  writeFileSync(
    join(dir, "tasks.jsonl"),
    JSON.stringify({ id: "deps", repo: "repo", base: "HEAD", verify: { command: CHECK } }) + "\n",
  );
  writeFileSync(
    join(dir, "preds.json"),
    JSON.stringify(
      [1, 2, 3, 4].map((n) => ({
        instance_id: "deps",
        model_name_or_path: `m${n}`,
        model_patch: patch(n),
      })),
    ),
  );
  return repo;
}

Deno.test("batch: shared dependency snapshots are read-only to every check (bwrap); copies are not", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-batch-deps-" });
  try {
    const repo = setup(dir);
    const run = (name: string, extra: Record<string, unknown>) =>
      runBatch({
        tasks: join(dir, "tasks.jsonl"),
        predictions: join(dir, "preds.json"),
        outDir: join(dir, name),
        concurrency: 2,
        keyEnv: { XDG_STATE_HOME: join(dir, "state") },
        worktreeRoot: join(dir, "worktrees"),
        ...extra,
      });
    const shared = (await run("shared", { sandbox: "bwrap" })).report;
    assert.equal(
      shared.resolved_instances,
      4,
      JSON.stringify(shared.candidates.map((c) => c.detail)),
    );
    // The snapshot is removed with the batch; the user's node_modules never changed.
    assert.deepEqual(readdirSync(join(repo, "node_modules")), ["dep"]);
    assert.deepEqual(readdirSync(join(repo, "node_modules/dep")), ["index.js"]);
    // No tree of the batch is left checked out, and no snapshot either.
    const trees = execFileSync("git", ["worktree", "list", "--porcelain"], { cwd: repo })
      .toString();
    assert.equal(trees.split("\n").filter((l) => l.startsWith("worktree ")).length, 1, trees);

    for (
      const [name, extra] of [
        ["copy", { sandbox: "bwrap", dependencies: "copy" }],
        ["none", { sandbox: "none" }],
      ] as const
    ) {
      const r = (await run(name, extra)).report;
      // Private copies: the write goes through (into the candidate's own copy only).
      assert.equal(
        r.unresolved_instances,
        4,
        `${name}: ${JSON.stringify(r.candidates.map((c) => [c.verdict, c.detail]))}`,
      );
      for (const c of r.candidates) {
        // The check's output, in the candidate's own log, says why: it could write.
        const log = readFileSync(join(dir, name, c.artefacts.log!), "utf8");
        assert.match(log, /wrote/, `${name}: ${c.detail}`);
        assert.doesNotMatch(log, /leaked|missing|nocache/, name);
      }
      assert.deepEqual(readdirSync(join(repo, "node_modules/dep")), ["index.js"], name);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
