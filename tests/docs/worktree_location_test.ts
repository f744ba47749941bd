/**
 * The worktree location is documented once (docs/run.md, "Where worktrees
 * live") and says what `defaultWorktreeRoot` does; no other doc names a root
 * of its own (docs/sandbox.md once named `$XDG_STATE_HOME/vouch/worktrees`).
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defaultWorktreeRoot } from "../../adapters/worktree/location.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");

Deno.test("the worktree root is documented once, in docs/run.md, as the code computes it", async () => {
  const run = await Deno.readTextFile(join(ROOT, "docs/run.md"));
  assert.match(run, /^### Where worktrees live$/m);
  const section = run.slice(run.indexOf("### Where worktrees live"));
  assert.match(section, /`<tmp>\/vouch-<user>\/worktrees`/);
  assert.equal(
    defaultWorktreeRoot({ env: { TMPDIR: "/scratch", USER: "ann" } }),
    "/scratch/vouch-ann/worktrees",
  );
  assert.equal(defaultWorktreeRoot({ env: { VOUCH_WORKTREE_ROOT: "/w" } }), "/w");
  const docs = [
    "README.md",
    ...[...Deno.readDirSync(join(ROOT, "docs"))].map((e) => `docs/${e.name}`),
  ]
    .filter((p) => p.endsWith(".md") && p !== "docs/run.md");
  for (const doc of docs) {
    const text = await Deno.readTextFile(join(ROOT, doc));
    assert.doesNotMatch(
      text,
      /vouch\/worktrees|vouch-worktrees|vouch-<user>\/worktrees/,
      `${doc} names a worktree root; link to docs/run.md#where-worktrees-live instead`,
    );
  }
});
