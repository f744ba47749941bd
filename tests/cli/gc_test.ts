import assert from "node:assert/strict";
import { runCli } from "../../cli/main.ts";

Deno.test("vouch gc: removes a worktree whose owner process is gone, keeps nothing else", async () => {
  const root = await Deno.makeTempDir();
  try {
    // A leftover container with an owner.json naming a dead pid.
    const container = `${root}/0123456789abcdef/t-dead-1-work`;
    await Deno.mkdir(`${container}/tree`, { recursive: true });
    await Deno.writeTextFile(
      `${container}/owner.json`,
      JSON.stringify({
        schema: "vouch.worktree/v1",
        repo: root,
        taskId: "t-dead",
        attempt: 1,
        purpose: "work",
        base: "0".repeat(40),
        pid: 2 ** 22 + 12345,
        pidStart: null,
        createdAt: new Date(0).toISOString(),
      }),
    );
    let out = "";
    const io = { out: (t: string) => void (out += t), err: () => {}, isTerminal: false };
    assert.equal(await runCli(["gc", "--root", root, "--dry-run", "--json"], io), 0);
    const dry = JSON.parse(out);
    assert.equal(dry.removed.length, 1, out);
    assert.ok(Deno.statSync(container).isDirectory, "dry run removes nothing");
    out = "";
    assert.equal(await runCli(["gc", "--root", root], io), 0);
    assert.match(out, /removed 1/);
    assert.throws(() => Deno.statSync(container));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
