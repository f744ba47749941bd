/**
 * `verify` under bwrap gives the checks the user's own dependency directories
 * read-only (entry by entry into a private tmpfs), not a copy: a real bwrap
 * check reads them, cannot change them (write, delete, rename all fail), can
 * still create private names (`node_modules/.cache`), sees workspace symlinks
 * as they are; the user's directory is byte-identical afterwards. A patch that
 * itself adds `node_modules/...` is judged exactly as with private copies.
 */
import assert from "node:assert/strict";
import { provideDependencyDirs } from "../../../adapters/deps/mod.ts";
import { verifyPatchInRepo } from "../../../adapters/driver/verify_patch.ts";
import { contractFromCommand } from "../../../adapters/verification/clean_verifier.ts";
import {
  createRepo,
  git,
  snapshot,
  snapshotDifferences,
  writeFiles,
} from "../../golden/fixture_repos.ts";

const CHECK = [
  "set -e",
  // Reads the user's dependency (a file, a symlinked bin, a workspace link into the tree).
  '[ "$(cat node_modules/dep/index.js)" = "module.exports = 1;" ]',
  '[ "$(cat node_modules/.bin/tool)" = tool ]',
  '[ "$(cat node_modules/local/x)" = local ]',
  // Cannot change it in any way.
  "if (echo broken > node_modules/dep/index.js) 2>/dev/null; then echo WROTE; exit 1; fi",
  "if (echo new > node_modules/dep/new.js) 2>/dev/null; then echo ADDED; exit 1; fi",
  "if (rm -rf node_modules/dep) 2>/dev/null; then echo REMOVED; exit 1; fi",
  "if (mv node_modules/dep node_modules/moved) 2>/dev/null; then echo MOVED; exit 1; fi",
  "if (echo x > node_modules/.package-lock.json) 2>/dev/null; then echo LOCK; exit 1; fi",
  // A cache of its own, private and empty at first (the user's old entry is not there).
  "[ ! -e node_modules/.cache/old ] && [ ! -e node_modules/.vite/old ]",
  "echo v > node_modules/.vite/deps.json",
  "mkdir -p node_modules/.cache/eslint && echo c > node_modules/.cache/eslint/x",
  ". ./add.sh",
  '[ "$(add 1 2)" = 3 ]',
].join("\n");

async function fixture() {
  const repo = await createRepo(
    {
      "add.sh": "add() { echo $(($1 - $2)); }\n",
      "test.sh": CHECK + "\n",
      "packages/local/x": "local\n",
    },
    "sh test.sh",
    { prefix: "vouch-bound-deps-", ignored: ["node_modules/"] },
  );
  await writeFiles(repo.dir, {
    "node_modules/dep/index.js": "module.exports = 1;",
    "node_modules/tool.js": "tool",
    "node_modules/.package-lock.json": "{}\n",
    "node_modules/.cache/old": "stale\n",
    "node_modules/.vite/old": "stale\n",
  });
  await Deno.mkdir(`${repo.dir}/node_modules/.bin`);
  await Deno.symlink("../tool.js", `${repo.dir}/node_modules/.bin/tool`);
  await Deno.symlink("../packages/local", `${repo.dir}/node_modules/local`);
  return repo;
}

async function patchOf(dir: string, files: Record<string, string>): Promise<Uint8Array> {
  await writeFiles(dir, files);
  await git(dir, "add", "-A", "-f", ...Object.keys(files));
  const diff = await git(dir, "diff", "--cached", "--binary", "--full-index");
  await git(dir, "reset", "-q");
  await git(dir, "checkout", "--", ".");
  for (const f of Object.keys(files)) {
    if (f.startsWith("node_modules/")) await Deno.remove(`${dir}/${f}`).catch(() => {});
  }
  return new TextEncoder().encode(diff);
}

Deno.test("verify under bwrap: the user's node_modules is bound read-only, never copied; writes fail, caches are private", async () => {
  const repo = await fixture();
  const state = await Deno.makeTempDir({ prefix: "vouch-bound-deps-state-" });
  try {
    const patch = await patchOf(repo.dir, { "add.sh": "add() { echo $(($1 + $2)); }\n" });
    const before = await snapshot(repo.dir);
    const steps: string[] = [];
    const r = await verifyPatchInRepo({
      dir: repo.dir,
      patch,
      contract: contractFromCommand("sh test.sh", 60_000),
      sandbox: "bwrap",
      keyEnv: { VOUCH_KEY_FILE: `${state}/key` },
      worktreeRoot: `${state}/worktrees`,
      onStep: (s: string) => steps.push(s),
    });
    assert.equal(r.verdict, "verified", `${r.reasons.join(", ")}\n${r.details.join("\n")}`);
    assert.ok(
      steps.some((s) => /^binding node_modules read-only, 7 entries$/.test(s)),
      steps.join("|"),
    );
    assert.ok(!steps.some((s) => s.startsWith("copying")), steps.join("|"));
    // The user's node_modules is exactly as it was (no cache written into it, nothing changed).
    assert.deepEqual(snapshotDifferences(before, await snapshot(repo.dir)), []);
  } finally {
    await repo.cleanup();
    await Deno.remove(state, { recursive: true }).catch(() => {});
  }
});

Deno.test("verify: a patch that adds node_modules files is judged the same with bound deps (bwrap) and with copies (none)", async () => {
  const repo = await fixture();
  const state = await Deno.makeTempDir({ prefix: "vouch-bound-deps-state-" });
  try {
    // The cheat ships its own "dependency" (and the fix): the tree then has node_modules of
    // the patch, and the user's is given neither way.
    const patch = await patchOf(repo.dir, {
      "add.sh": "add() { echo $(($1 + $2)); }\n",
      "node_modules/dep/index.js": "module.exports = 2;",
    });
    const before = await snapshot(repo.dir);
    const judge = (sandbox: "bwrap" | "none", n: number) =>
      verifyPatchInRepo({
        dir: repo.dir,
        patch,
        contract: contractFromCommand("sh test.sh", 60_000),
        sandbox,
        keyEnv: { VOUCH_KEY_FILE: `${state}/key` },
        worktreeRoot: `${state}/worktrees-${n}`,
        stateDir: `${state}/state-${n}`,
      });
    const bound = await judge("bwrap", 1);
    const copied = await judge("none", 2);
    assert.equal(bound.verdict, "rejected", bound.reasons.join(", "));
    assert.equal(bound.verdict, copied.verdict);
    assert.deepEqual(bound.reasons, copied.reasons);
    assert.deepEqual(snapshotDifferences(before, await snapshot(repo.dir)), []);
  } finally {
    await repo.cleanup();
    await Deno.remove(state, { recursive: true }).catch(() => {});
  }
});

Deno.test("provideDependencyDirs bind: node_modules and .venv are views of the user's dirs; a Rust target/ (the build writes it) is copied", async () => {
  const repo = await Deno.makeTempDir({ prefix: "vouch-bound-deps-kinds-" });
  const tree = await Deno.makeTempDir({ prefix: "vouch-bound-deps-tree-" });
  try {
    await writeFiles(repo, {
      "node_modules/a/index.js": "a",
      ".venv/pyvenv.cfg": "home = /usr/bin\n",
      "target/debug/x": "x",
    });
    const r = await provideDependencyDirs(
      { mode: "copy", dirs: ["node_modules", ".venv", "target"] },
      repo,
      tree,
      { kind: "bind" },
    );
    assert.deepEqual(r.copied, ["target"]);
    assert.deepEqual(r.views.map((v) => v.path), [`${tree}/node_modules`, `${tree}/.venv`]);
    assert.deepEqual(r.views.map((v) => v.entries?.map((e) => e.name)), [["a"], ["pyvenv.cfg"]]);
    // Only empty mount points in the host tree: nothing of the user's was copied.
    assert.deepEqual([...Deno.readDirSync(`${tree}/node_modules`)], []);
    assert.equal(await Deno.readTextFile(`${tree}/target/debug/x`), "x");
  } finally {
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(tree, { recursive: true });
  }
});
