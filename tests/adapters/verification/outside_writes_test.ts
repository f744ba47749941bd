import assert from "node:assert/strict";
import {
  diffOutsideSnapshots,
  diffStatSnapshots,
  snapshotOutside,
  snapshotTrees,
} from "../../../adapters/verification/outside_writes.ts";
import { createRepo } from "../../golden/fixture_repos.ts";

Deno.test("snapshotTrees: creations, changes, deletions and symlinks are seen; skipped paths not", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/keep`);
    await Deno.mkdir(`${dir}/skip`);
    await Deno.writeTextFile(`${dir}/keep/a.txt`, "a");
    await Deno.writeTextFile(`${dir}/gone.txt`, "x");
    const trees = [{ root: dir, skip: ["skip"] }];
    const before = await snapshotTrees(trees);
    await Deno.writeTextFile(`${dir}/keep/a.txt`, "changed!");
    await Deno.remove(`${dir}/gone.txt`);
    await Deno.symlink("/etc/passwd", `${dir}/link`);
    await Deno.writeTextFile(`${dir}/skip/ignored.txt`, "vouch's own");
    const after = await snapshotTrees(trees);
    assert.deepEqual(diffStatSnapshots(before, after), [
      `${dir}/gone.txt`,
      `${dir}/keep/a.txt`,
      `${dir}/link`,
    ]);
    assert.deepEqual(diffStatSnapshots(after, await snapshotTrees(trees)), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("snapshotTrees: one walk of many roots; glob characters are literal; a missing root says so", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // Names find would read as patterns if they were not escaped.
    await Deno.mkdir(`${dir}/a[1]*/s?ip`, { recursive: true });
    await Deno.mkdir(`${dir}/a1x/s?ip`, { recursive: true });
    await Deno.writeTextFile(`${dir}/a[1]*/s?ip/own.txt`, "x");
    await Deno.writeTextFile(`${dir}/a1x/s?ip/watched.txt`, "x");
    await Deno.writeTextFile(`${dir}/file with spaces`, "x");
    await Deno.symlink("target with spaces", `${dir}/a1x/link`);
    const trees = [
      { root: `${dir}/a[1]*`, skip: ["s?ip"] },
      { root: `${dir}/a1x`, skip: [] },
      { root: `${dir}/file with spaces`, skip: [] },
      { root: `${dir}/not-there`, skip: [] },
    ];
    const before = await snapshotTrees(trees);
    assert.equal(before.entries.get(`${dir}/not-there`), "missing");
    assert.equal(before.entries.get(`${dir}/a1x/link`), "l:target with spaces");
    assert.equal(before.entries.has(`${dir}/a[1]*/s?ip`), false);
    assert.ok(before.entries.has(`${dir}/a1x/s?ip/watched.txt`));
    await Deno.writeTextFile(`${dir}/a[1]*/s?ip/own.txt`, "skipped, never seen");
    await Deno.writeTextFile(`${dir}/a1x/s?ip/watched.txt`, "seen");
    await Deno.writeTextFile(`${dir}/file with spaces`, "seen too");
    await Deno.remove(`${dir}/a1x/link`);
    await Deno.symlink("elsewhere", `${dir}/a1x/link`);
    await Deno.mkdir(`${dir}/not-there`);
    assert.deepEqual(diffStatSnapshots(before, await snapshotTrees(trees)), [
      `${dir}/a1x/link`,
      `${dir}/a1x/s?ip/watched.txt`,
      `${dir}/file with spaces`,
      `${dir}/not-there`,
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("snapshotOutside: a dirty file read once is read again when its stat data moves, stealth rewrites included", async () => {
  const repo = await createRepo({ "a.txt": "tracked\n" }, "true");
  try {
    const dir = repo.dir;
    await Deno.writeTextFile(`${dir}/a.txt`, "user edit 1\n");
    await Deno.writeTextFile(`${dir}/notes.txt`, "draft one\n");
    // Settled: changed well before the snapshots, so their digests are kept with their stat data.
    await new Promise((r) => setTimeout(r, 2_700));
    const scope = { checkout: dir, trees: [] };
    const s0 = await snapshotOutside(scope);
    assert.deepEqual(diffOutsideSnapshots(s0, await snapshotOutside(scope)), []);
    await stealthRewrite(`${dir}/a.txt`, "user edit 2\n");
    await stealthRewrite(`${dir}/notes.txt`, "draft two\n");
    const changed = diffOutsideSnapshots(s0, await snapshotOutside(scope));
    assert.deepEqual(changed.filter((c) => !c.includes("#")), [`${dir}/a.txt`, `${dir}/notes.txt`]);
  } finally {
    await repo.cleanup();
  }
});

/** Rewrites `path` with same-size content, then puts its mtime back with `touch -r`. */
async function stealthRewrite(path: string, content: string): Promise<void> {
  const ref = await Deno.makeTempFile();
  try {
    const touch = (args: string[]) => new Deno.Command("touch", { args }).output();
    assert.equal((await touch(["-r", path, ref])).code, 0);
    const old = await Deno.readTextFile(path);
    assert.equal(new TextEncoder().encode(content).length, new TextEncoder().encode(old).length);
    await Deno.writeTextFile(path, content);
    assert.equal((await touch(["-r", ref, path])).code, 0);
  } finally {
    await Deno.remove(ref);
  }
}

Deno.test("snapshotOutside: same-size rewrites with the mtime restored are still seen in the checkout", async () => {
  const repo = await createRepo(
    { "a.txt": "tracked\n", "dir/b.txt": "clean\n" },
    "true",
    { ignored: ["build/"] },
  );
  const container = await Deno.makeTempDir();
  try {
    const dir = repo.dir;
    await Deno.writeTextFile(`${dir}/a.txt`, "user edit 1\n"); // tracked, dirty
    await Deno.writeTextFile(`${dir}/notes.txt`, "draft one\n"); // untracked
    await Deno.mkdir(`${dir}/build`);
    await Deno.writeTextFile(`${dir}/build/out.js`, "let x = 1;\n"); // ignored
    // vouch's own state (excluded as `vouch run` does): never a change.
    await Deno.mkdir(`${dir}/.vouch`);
    await Deno.writeTextFile(`${dir}/.git/info/exclude`, ".vouch/\n");
    await Deno.mkdir(`${container}/tree`);
    const scope = { checkout: dir, trees: [{ root: container, skip: ["tree"] }] };
    const s0 = await snapshotOutside(scope);
    await Deno.writeTextFile(`${dir}/.vouch/events.jsonl`, "{}\n");
    await Deno.writeTextFile(`${container}/tree/work.ts`, "inside the worktree\n");
    assert.deepEqual(diffOutsideSnapshots(s0, await snapshotOutside(scope)), []);

    // The stealth rewrites: size and mtime identical, content different.
    const before = await Deno.stat(`${dir}/a.txt`);
    await stealthRewrite(`${dir}/a.txt`, "user edit 2\n");
    await stealthRewrite(`${dir}/notes.txt`, "draft two\n");
    const after = await Deno.stat(`${dir}/a.txt`);
    assert.equal(after.size, before.size);
    assert.equal(after.mtime?.getTime(), before.mtime?.getTime());
    const s1 = await snapshotOutside(scope);
    const stealth = diffOutsideSnapshots(s0, s1);
    // Both files by name (the top-level listing digest, which hashes top-level files, moves too).
    assert.deepEqual(stealth.filter((c) => !c.includes("#")), [`${dir}/a.txt`, `${dir}/notes.txt`]);
    assert.deepEqual(stealth.filter((c) => c.includes("#")), [`${dir}/.git#top-level`]);

    // Inside an ignored directory, in the git dir, and in the container: seen by stat.
    await Deno.writeTextFile(`${dir}/build/out.js`, "let x = 2; // longer\n");
    await Deno.writeTextFile(`${dir}/.git/info/exclude`, "*\n", { append: true });
    await Deno.writeTextFile(`${container}/escaped.txt`, "x\n");
    const s2 = await snapshotOutside(scope);
    const changes = diffOutsideSnapshots(s1, s2);
    assert.ok(changes.includes(`${dir}/build/out.js`), changes.join(","));
    assert.ok(changes.includes(`${dir}/.git/info/exclude`), changes.join(","));
    assert.ok(changes.includes(`${container}/escaped.txt`), changes.join(","));
    // Git state is judged by snapshotCheckout, reported per part.
    const s3 = await snapshotOutside(scope);
    await Deno.writeTextFile(`${dir}/.git/hooks/pre-commit`, "#!/bin/sh\n");
    assert.deepEqual(diffOutsideSnapshots(s3, await snapshotOutside(scope)), [
      `${dir}/.git#hooks`,
    ]);
  } finally {
    await repo.cleanup();
    await Deno.remove(container, { recursive: true });
  }
});

Deno.test("snapshotOutside: a checkout git cannot read is a change (fail closed)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const scope = { checkout: dir, trees: [] };
    const s = await snapshotOutside(scope);
    assert.notEqual(s.checkoutError, null);
    assert.deepEqual(diffOutsideSnapshots(s, await snapshotOutside(scope)), [
      `${dir}/.git#unreadable`,
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
