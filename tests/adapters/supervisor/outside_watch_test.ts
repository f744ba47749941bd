import assert from "node:assert/strict";
import {
  diffOutsideSnapshots,
  snapshotOutside,
} from "../../../adapters/supervisor/outside_watch.ts";

Deno.test("snapshotOutside: creations, changes, deletions and symlinks are seen; skipped paths not", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/keep`);
    await Deno.mkdir(`${dir}/skip`);
    await Deno.writeTextFile(`${dir}/keep/a.txt`, "a");
    await Deno.writeTextFile(`${dir}/gone.txt`, "x");
    const trees = [{ root: dir, skip: ["skip"] }];
    const before = await snapshotOutside(trees);
    await Deno.writeTextFile(`${dir}/keep/a.txt`, "changed!");
    await Deno.remove(`${dir}/gone.txt`);
    await Deno.symlink("/etc/passwd", `${dir}/link`);
    await Deno.writeTextFile(`${dir}/skip/ignored.txt`, "vouch's own");
    const after = await snapshotOutside(trees);
    assert.deepEqual(diffOutsideSnapshots(before, after), [
      `${dir}/gone.txt`,
      `${dir}/keep/a.txt`,
      `${dir}/link`,
    ]);
    assert.deepEqual(diffOutsideSnapshots(after, await snapshotOutside(trees)), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
