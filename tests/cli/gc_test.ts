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

Deno.test("vouch gc: without --root also cleans the old default root (~/.local/state/vouch/worktrees)", async () => {
  const home = await Deno.makeTempDir();
  const saved = { HOME: Deno.env.get("HOME"), XDG: Deno.env.get("XDG_STATE_HOME") };
  const savedRoot = Deno.env.get("VOUCH_WORKTREE_ROOT");
  try {
    Deno.env.set("HOME", home);
    Deno.env.delete("XDG_STATE_HOME");
    Deno.env.set("VOUCH_WORKTREE_ROOT", `${home}/new-root`);
    const container = `${home}/.local/state/vouch/worktrees/0123456789abcdef/t-old-1-work`;
    await Deno.mkdir(`${container}/tree`, { recursive: true });
    await Deno.writeTextFile(
      `${container}/owner.json`,
      JSON.stringify({
        schema: "vouch.worktree/v1",
        repo: home,
        taskId: "t-old",
        attempt: 1,
        purpose: "work",
        base: "0".repeat(40),
        pid: 2 ** 22 + 12346,
        pidStart: null,
        createdAt: new Date(0).toISOString(),
      }),
    );
    let out = "";
    const io = { out: (t: string) => void (out += t), err: () => {}, isTerminal: false };
    assert.equal(await runCli(["gc"], io), 0);
    assert.match(out, /removed 1/);
    assert.throws(() => Deno.statSync(container));
  } finally {
    if (saved.HOME !== undefined) Deno.env.set("HOME", saved.HOME);
    if (saved.XDG !== undefined) Deno.env.set("XDG_STATE_HOME", saved.XDG);
    if (savedRoot !== undefined) Deno.env.set("VOUCH_WORKTREE_ROOT", savedRoot);
    else Deno.env.delete("VOUCH_WORKTREE_ROOT");
    await Deno.remove(home, { recursive: true });
  }
});
