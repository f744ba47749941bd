/**
 * Red team, issue #10 §2 and §3: a check (patched code) attacks from inside
 * the clean verifier's sandbox. The root is an allowlist: only system dirs,
 * toolchains from PATH, the clean tree and declared paths exist in there.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runProcess } from "../../../adapters/process/run.ts";
import { bwrapProfile } from "../../../adapters/sandbox/bwrap.ts";
import { selectSandbox } from "../../../adapters/host/sandbox_probe.ts";
import { SandboxError } from "../../../adapters/sandbox/profile.ts";
import { hiddenPathHint } from "../../../adapters/deps/outside_paths.ts";
import { arena, probe, skipReason } from "./_harness.ts";

const ignore = skipReason !== null;

async function inBox(
  tree: string,
  shell: string,
  extra: Parameters<typeof bwrapProfile>[0] | null = null,
) {
  const profile = bwrapProfile(extra ?? { worktree: tree, bwrapPath: probe.bwrap.path! });
  return await runProcess({ shell, cwd: tree, sandbox: profile, timeoutMs: 20_000 });
}

Deno.test({
  name:
    "check: the agent's worktree (ignored artefacts), other worktrees and the checkout are invisible",
  ignore,
  fn: async () => {
    const a = await arena({ "a.txt": "a\n", ".gitignore": "build/\n" });
    const clean = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-rt-clean-" }));
    try {
      await Deno.mkdir(join(a.wt.path, "build"));
      await Deno.writeTextFile(join(a.wt.path, "build/flag"), "ok");
      await Deno.writeTextFile(join(a.repo.dir, "untracked.txt"), "user's");
      const r = await inBox(
        clean,
        [
          `cat ${a.wt.path}/build/flag`,
          `cat ${a.repo.dir}/a.txt ${a.repo.dir}/untracked.txt`,
          `ls ${a.scratch}/worktrees`,
        ].join("; "),
      );
      assert.equal(r.stdout.head, "", r.stdout.head);
      assert.match(r.stderr.head, /No such file or directory/);
    } finally {
      await Deno.remove(clean, { recursive: true });
      await a.cleanup();
    }
  },
});

Deno.test({
  name: "check: HOME secrets, /etc/shadow, /var/tmp sockets, /srv /mnt /media are not visible",
  ignore,
  fn: async () => {
    const clean = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-rt-clean-" }));
    const home = Deno.env.get("HOME")!;
    const planted = join(home, `.vouch-rt-${crypto.randomUUID()}.pgpass`);
    const sock = `/var/tmp/vouch-rt-${crypto.randomUUID()}.sock`;
    await Deno.writeTextFile(planted, "db:5432:*:u:PLANTED-PGPASS\n");
    const listener = Deno.listen({ transport: "unix", path: sock });
    try {
      const shadowReadable = await Deno.readTextFile("/etc/shadow").then(
        (t) => t.length > 0,
        () => false,
      );
      const r = await inBox(
        clean,
        [
          `cat ${planted}`,
          `ls -A ${home}`,
          "cat /etc/shadow /etc/gshadow",
          `test -S ${sock} && echo SOCKET-VISIBLE`,
          "ls -A /var/tmp /srv /mnt /media /run /home",
          "echo HOME=$HOME",
        ].join("; "),
      );
      const out = r.stdout.head;
      assert.ok(!out.includes("PLANTED"), out);
      assert.ok(!out.includes("SOCKET-VISIBLE"), out);
      assert.ok(!/^root:/m.test(out), "shadow leaked");
      assert.match(out, /HOME=\/tmp\/vouch-home/);
      if (!shadowReadable) console.log("note: /etc/shadow is not readable here (not root)");
      // Control: the same commands outside the sandbox do see them.
      const open = await runProcess({
        shell: `cat ${planted}; test -S ${sock} && echo SOCKET-VISIBLE`,
        cwd: clean,
      });
      assert.ok(
        open.stdout.head.includes("PLANTED") && open.stdout.head.includes("SOCKET-VISIBLE"),
      );
    } finally {
      listener.close();
      await Deno.remove(sock).catch(() => {});
      await Deno.remove(planted);
      await Deno.remove(clean, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "check: a toolchain installed under HOME runs (shim -> real install); credentials beside it and the keys stay hidden",
  ignore,
  fn: async () => {
    const clean = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-rt-clean-" }));
    const home = await Deno.realPath(
      await Deno.makeTempDir({ dir: "/var/tmp", prefix: "vouch-rt-home-" }),
    );
    const chain = join(home, ".fakechain");
    await Deno.mkdir(join(chain, "versions/1.0/bin"), { recursive: true });
    await Deno.mkdir(join(chain, "shims"));
    await Deno.writeTextFile(
      join(chain, "versions/1.0/bin/faketool"),
      "#!/bin/sh\necho tool-1.0 ok\n",
    );
    await Deno.chmod(join(chain, "versions/1.0/bin/faketool"), 0o755);
    // A pyenv-like shim that execs the real install by absolute path.
    await Deno.writeTextFile(
      join(chain, "shims/faketool"),
      `#!/bin/sh\nexec ${chain}/versions/1.0/bin/faketool "$@"\n`,
    );
    await Deno.chmod(join(chain, "shims/faketool"), 0o755);
    await Deno.writeTextFile(join(chain, "credentials.toml"), "token = PLANTED-CARGO-TOKEN\n");
    // A nvm-like link from a PATH dir into another install dir under HOME.
    await Deno.mkdir(join(home, "linkbin"));
    await Deno.mkdir(join(home, ".otherchain/bin"), { recursive: true });
    await Deno.writeTextFile(join(home, ".otherchain/bin/other"), "#!/bin/sh\necho other ok\n");
    await Deno.chmod(join(home, ".otherchain/bin/other"), 0o755);
    await Deno.symlink(join(home, ".otherchain/bin/other"), join(home, "linkbin/other"));
    // Keys in HOME's state dir: never visible (a toolchain dir holding them is not mounted
    // whole: tests/adapters/sandbox/toolchains_test.ts).
    const keys = join(home, ".local/state/vouch/keys");
    await Deno.mkdir(keys, { recursive: true });
    await Deno.writeTextFile(join(keys, "k.hmac.json"), "PLANTED-KEY");
    await Deno.writeTextFile(join(home, ".bash_history"), "export TOKEN=PLANTED-HISTORY\n");
    try {
      const path = `${chain}/shims:${home}/linkbin:/usr/bin:/bin`;
      const profile = bwrapProfile({
        worktree: clean,
        home,
        keyStoreDir: keys,
        path,
        bwrapPath: probe.bwrap.path!,
      });
      const r = await runProcess({
        shell: [
          "faketool",
          "other",
          `cat ${chain}/credentials.toml`,
          `cat ${keys}/k.hmac.json`,
          `cat ${home}/.bash_history`,
        ].join("; "),
        cwd: clean,
        sandbox: profile,
        env: { PATH: path },
      });
      const out = r.stdout.head;
      assert.match(out, /tool-1\.0 ok/);
      assert.match(out, /other ok/);
      assert.ok(!out.includes("PLANTED"), out);
    } finally {
      await Deno.remove(home, { recursive: true });
      await Deno.remove(clean, { recursive: true });
    }
  },
});

const rustc = `${Deno.env.get("HOME")}/.cargo/bin/rustc`;
const hasRust = await Deno.stat(rustc).then(() => true, () => false);
if (!hasRust) console.log(`SKIP real rustup toolchain test: ${rustc} not installed`);

Deno.test({
  name: "check: the real rustup toolchain under ~/.cargo + ~/.rustup works inside the sandbox",
  ignore: ignore || !hasRust,
  fn: async () => {
    const clean = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-rt-clean-" }));
    try {
      const r = await runProcess({
        shell: "rustc --version && cargo --version",
        cwd: clean,
        sandbox: bwrapProfile({ worktree: clean, bwrapPath: probe.bwrap.path! }),
        timeoutMs: 60_000,
      });
      assert.equal(r.exitCode, 0, r.stderr.head);
      assert.match(r.stdout.head, /^rustc \d/m);
    } finally {
      await Deno.remove(clean, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "check: an outside path is visible only when declared (--sandbox-ro), with a hint naming the flag",
  ignore,
  fn: async () => {
    const clean = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-rt-clean-" }));
    const data = await Deno.realPath(
      await Deno.makeTempDir({ dir: "/var/tmp", prefix: "vouch-rt-data-" }),
    );
    await Deno.writeTextFile(join(data, "fixture.txt"), "fixture\n");
    // Data others may read (a root vouch's check runs as uid 65534: a 0700 dir stays closed).
    await Deno.chmod(data, 0o755);
    try {
      const missing = await inBox(clean, `cat ${data}/fixture.txt`);
      assert.notEqual(missing.exitCode, 0);
      const hint = hiddenPathHint(`${missing.stderr.head}${missing.stderr.tail}`, { tree: clean });
      assert.ok(hint?.includes(`--sandbox-ro ${data}`), hint ?? "no hint");
      const declared = await selectSandbox("bwrap", {
        worktree: clean,
        probe,
        declaredReadOnly: [data],
      });
      const ok = await runProcess({
        shell: `cat ${data}/fixture.txt; echo x > ${data}/w`,
        cwd: clean,
        sandbox: declared,
      });
      assert.equal(ok.stdout.head, "fixture\n");
      assert.equal(
        await Deno.stat(join(data, "w")).then(() => true, () => false),
        false,
        "declared paths are read-only",
      );
      // Declaring the key store (or HOME) is refused: it would expose the keys.
      const home = Deno.env.get("HOME")!;
      await assert.rejects(
        () => selectSandbox("bwrap", { worktree: clean, probe, declaredReadOnly: [home] }),
        (e) => e instanceof SandboxError && e.code === "sandbox_invalid",
      );
    } finally {
      await Deno.remove(data, { recursive: true });
      await Deno.remove(clean, { recursive: true });
    }
  },
});
