import assert from "node:assert/strict";
import { runProcess } from "../../../adapters/process/mod.ts";
import { closeFdsArgv } from "../../../adapters/sandbox/_close_fds.ts";
import {
  bwrapArgv,
  bwrapProfile,
  SandboxError,
  worktreeGitPaths,
} from "../../../adapters/sandbox/mod.ts";
import { probeSandbox, selectSandbox } from "../../../adapters/host/mod.ts";
import { extraReadOnlyPaths } from "../../../adapters/sandbox/bwrap.ts";

const probe = await probeSandbox();
const skipReason = probe.bwrap.available ? null : `bwrap unavailable: ${probe.bwrap.reason}`;
if (skipReason !== null) console.log(`SKIP bwrap tests: ${skipReason}`);

function git(cwd: string, ...args: string[]): void {
  const r = new Deno.Command("git", {
    args: ["-c", "user.name=t", "-c", "user.email=t@t", ...args],
    cwd,
    stdout: "null",
    stderr: "piped",
  }).outputSync();
  if (!r.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(r.stderr)}`);
}

async function repo(): Promise<string> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-sbx-" }));
  git(dir, "init", "-q");
  await Deno.writeTextFile(`${dir}/a.txt`, "a\n");
  git(dir, "add", "a.txt");
  git(dir, "commit", "-qm", "init");
  return dir;
}

Deno.test("bwrapArgv: isolation flags, clean env, worktree rw then .git ro, argv last", () => {
  const argv = bwrapArgv(
    {
      kind: "bwrap",
      bwrapPath: "/usr/bin/bwrap",
      writable: ["/wt"],
      readOnly: ["/wt/.git"],
      hiddenDirs: ["/home/u/.ssh"],
      hiddenFiles: ["/home/u/.netrc"],
    },
    ["deno", "test"],
    "/wt",
    { PATH: "/usr/bin" },
  );
  for (
    const flag of [
      "--unshare-net",
      "--unshare-pid",
      "--die-with-parent",
      "--new-session",
      "--clearenv",
    ]
  ) {
    assert.ok(argv.includes(flag), flag);
  }
  const s = argv.join(" ");
  assert.ok(!s.includes("--ro-bind / /"), "the root is an allowlist, never / itself");
  assert.ok(s.includes("--tmpfs /tmp"));
  assert.ok(s.includes("--remount-ro /"));
  assert.ok(s.includes("--tmpfs /home/u/.ssh --remount-ro /home/u/.ssh"));
  assert.ok(s.includes("--ro-bind /dev/null /home/u/.netrc"));
  assert.ok(s.indexOf("--bind /wt /wt") < s.indexOf("--ro-bind /wt/.git /wt/.git"));
  // The command starts behind the shell that closes every inherited fd (`_close_fds.ts`).
  const inside = argv.slice(argv.indexOf("--") + 1);
  assert.deepEqual(inside.slice(0, 4), closeFdsArgv());
  assert.deepEqual(inside.slice(4), ["deno", "test"]);
  assert.ok(s.includes("--chdir /wt -- "));
});

Deno.test("worktreeGitPaths handles a .git dir and a linked worktree's gitdir file", async () => {
  const main = await repo();
  assert.deepEqual(worktreeGitPaths(main), [`${main}/.git`]);
  const linked = `${main}-linked`;
  git(main, "worktree", "add", "-q", linked);
  const paths = worktreeGitPaths(linked);
  assert.equal(paths[0], `${linked}/.git`);
  assert.ok(paths.includes(`${main}/.git/worktrees/${linked.split("/").pop()}`), paths.join());
  assert.ok(paths.includes(`${main}/.git`), paths.join());
  await Deno.remove(linked, { recursive: true });
  await Deno.remove(main, { recursive: true });
});

Deno.test({
  name: "bwrap: loopback connect fails, writes outside the worktree fail, inside succeed",
  ignore: skipReason !== null,
  fn: async () => {
    const wt = await repo();
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    const accepting = (async () => {
      for await (const conn of listener) conn.close();
    })();
    const connect = `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected`;
    try {
      // Control: without the sandbox the same connect succeeds.
      const open = await runProcess({ argv: ["bash", "-c", connect], cwd: wt, timeoutMs: 5000 });
      assert.equal(open.stdout.head, "connected\n");
      const profile = bwrapProfile({ worktree: wt });
      const boxed = await runProcess({
        argv: ["bash", "-c", connect],
        cwd: wt,
        sandbox: profile,
        timeoutMs: 5000,
      });
      assert.equal(boxed.sandbox, "bwrap");
      assert.notEqual(boxed.exitCode, 0);
      assert.ok(!boxed.stdout.head.includes("connected"));

      // Even a root-started sandbox cannot remount the read-only root writable.
      const remount = await runProcess({
        shell:
          "mount -o remount,rw / 2>/dev/null; touch /usr/vouch-remount-probe && echo wrote-usr",
        cwd: wt,
        sandbox: profile,
      });
      assert.ok(!remount.stdout.head.includes("wrote-usr"), remount.stdout.head);
      await assert.rejects(() => Deno.stat("/usr/vouch-remount-probe"));
      // Unix sockets under /run (dbus, docker, postgres) are out of reach: /run is an empty tmpfs.
      const hostRun = [...Deno.readDirSync("/run")].length;
      const run = await runProcess({ shell: "ls -A /run | wc -l", cwd: wt, sandbox: profile });
      assert.equal(run.stdout.head.trim(), "0");
      if (hostRun === 0) console.log("note: host /run is empty, the /run check is vacuous here");
      const caps = await runProcess({
        shell: "grep CapEff /proc/self/status",
        cwd: wt,
        sandbox: profile,
      });
      assert.match(caps.stdout.head, /CapEff:\s*0+\n/);

      const outside = `/var/tmp/vouch-outside-${crypto.randomUUID()}`;
      const w = await runProcess({
        shell:
          `echo x > ${outside}; echo $?; echo y > inside.txt && echo wrote-inside; echo z > /tmp/private && echo tmp-ok`,
        cwd: wt,
        sandbox: profile,
      });
      assert.ok(!w.stdout.head.startsWith("0\n"), w.stdout.head);
      assert.ok(w.stdout.head.includes("wrote-inside"));
      assert.ok(w.stdout.head.includes("tmp-ok"));
      await assert.rejects(() => Deno.stat(outside));
      assert.equal(await Deno.readTextFile(`${wt}/inside.txt`), "y\n");
      // The private /tmp left nothing on the host.
      await assert.rejects(() => Deno.stat("/tmp/private"));
    } finally {
      listener.close();
      await accepting.catch(() => {});
      await Deno.remove(wt, { recursive: true });
    }
  },
});

Deno.test({
  name: "bwrap: .git is read-only (plain and linked worktree), secret dirs and files hidden",
  ignore: skipReason !== null,
  fn: async () => {
    const wt = await repo();
    const home = await Deno.makeTempDir({ prefix: "vouch-home-" });
    await Deno.mkdir(`${home}/.ssh`);
    await Deno.writeTextFile(`${home}/.ssh/id_ed25519`, "PLANTED-PRIVATE-KEY");
    await Deno.mkdir(`${home}/.aws`);
    await Deno.writeTextFile(`${home}/.aws/credentials`, "PLANTED-AWS");
    await Deno.writeTextFile(`${home}/.netrc`, "machine x password PLANTED-NETRC");
    const keys = await Deno.makeTempDir({ prefix: "vouch-keys-" });
    await Deno.writeTextFile(`${keys}/mac.key`, "PLANTED-MAC-KEY");
    const linked = `${wt}-linked`;
    git(wt, "worktree", "add", "-q", linked);
    try {
      for (const tree of [wt, linked]) {
        const profile = bwrapProfile({ worktree: tree, home, keyStoreDir: keys });
        const r = await runProcess({
          shell: [
            "echo hacked > .git/hooks-planted && echo git-writable",
            `cat ${home}/.ssh/id_ed25519 ${home}/.aws/credentials ${home}/.netrc ${keys}/mac.key 2>/dev/null`,
            "git config core.fsmonitor evil 2>/dev/null && echo config-writable",
            "echo ok > work.txt && echo worktree-writable",
          ].join("; "),
          cwd: tree,
          sandbox: profile,
        });
        const out = r.stdout.head;
        assert.ok(!out.includes("git-writable"), `${tree}: ${out}`);
        assert.ok(!out.includes("config-writable"), `${tree}: ${out}`);
        assert.ok(!out.includes("PLANTED"), `${tree}: ${out}`);
        assert.ok(out.includes("worktree-writable"), `${tree}: ${out}`);
      }
    } finally {
      for (const d of [linked, wt, home, keys]) await Deno.remove(d, { recursive: true });
    }
  },
});

/** Pids whose command line contains `marker`, read from /proc; fails unless the scan sees this very process. */
async function processesWith(marker: string): Promise<number[]> {
  const found: number[] = [];
  let sawSelf = false;
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^[0-9]+$/.test(entry.name)) continue;
    const cmdline = await Deno.readTextFile(`/proc/${entry.name}/cmdline`).catch(() => "");
    if (Number(entry.name) === Deno.pid && cmdline.length > 0) sawSelf = true;
    if (cmdline.includes(marker)) found.push(Number(entry.name));
  }
  // Fail closed: a scan that sees nothing would report "no survivor" and prove nothing.
  assert.ok(sawSelf, "the /proc scan did not see this test process");
  return found;
}

Deno.test({
  name: "bwrap: timeout kills the whole pid namespace (SIGTERM-ignoring grandchild)",
  ignore: skipReason !== null,
  fn: async () => {
    const wt = await Deno.realPath(await Deno.makeTempDir());
    const marker = `vouch-marker-${crypto.randomUUID()}`;
    // The grandchild is a shell whose $0 is the marker; it ignores TERM and outlives its parent's
    // group leader unless the whole namespace is killed.
    const run = runProcess({
      shell: `trap "" TERM; sh -c 'trap "" TERM; sleep 61; :' ${marker} & sleep 60`,
      cwd: wt,
      sandbox: bwrapProfile({ worktree: wt }),
      timeoutMs: 3000,
      graceMs: 300,
    });
    // The grandchild must really be running first, or its absence afterwards proves nothing.
    let running: number[] = [];
    for (let i = 0; i < 50 && running.length === 0; i++) {
      await new Promise((res) => setTimeout(res, 50));
      running = await processesWith(marker);
    }
    assert.ok(running.length > 0, "the grandchild never started");
    const r = await run;
    assert.equal(r.exitCode, 124);
    await new Promise((res) => setTimeout(res, 200));
    assert.deepEqual(await processesWith(marker), [], "survivor found");
    await Deno.remove(wt, { recursive: true });
  },
});

Deno.test("probe reports availability with a reason; policy (auto included) refuses rather than downgrades", async () => {
  assert.equal(probe.none.available, true);
  if (probe.bwrap.available) assert.equal(probe.bwrap.reason, null);
  else assert.ok(probe.bwrap.reason);
  const broken = await probeSandbox({ bwrapPath: "/bin/false" });
  assert.equal(broken.bwrap.available, false);
  assert.match(broken.bwrap.reason ?? "", /probe run failed/);
  const wt = await Deno.makeTempDir();
  await assert.rejects(
    () => selectSandbox("bwrap", { worktree: wt, probe: broken }),
    (e) => e instanceof SandboxError && e.code === "sandbox_unavailable",
  );
  // `auto` never falls back to no sandbox: it stops, saying how to install bwrap or opt out.
  await assert.rejects(
    () => selectSandbox("auto", { worktree: wt, probe: broken }),
    (e) =>
      e instanceof SandboxError && e.code === "sandbox_unavailable" &&
      /apt-get install bubblewrap/.test(e.message) && /--sandbox none/.test(e.message),
  );
  assert.equal((await selectSandbox("none", { worktree: wt })).kind, "none");
  if (probe.bwrap.available) {
    assert.equal((await selectSandbox("bwrap", { worktree: wt, probe })).kind, "bwrap");
  }
  await Deno.remove(wt, { recursive: true });
});

Deno.test({
  name:
    "bwrap: a program run by absolute path outside the allowlist is made visible (its dir only)",
  ignore: skipReason !== null,
  fn: async () => {
    const base = await Deno.realPath(
      await Deno.makeTempDir({ dir: "/var/tmp", prefix: "vouch-prog-" }),
    );
    const wt = await Deno.realPath(await Deno.makeTempDir());
    try {
      await Deno.mkdir(`${base}/tool`);
      await Deno.mkdir(`${base}/secret`);
      await Deno.writeTextFile(`${base}/tool/run.sh`, "#!/bin/sh\necho tool-ran\n");
      await Deno.chmod(`${base}/tool/run.sh`, 0o755);
      await Deno.writeTextFile(`${base}/secret/s.txt`, "PLANTED");
      const profile = bwrapProfile({ worktree: wt, bwrapPath: probe.bwrap.path! });
      const direct = await runProcess({ argv: [`${base}/tool/run.sh`], cwd: wt, sandbox: profile });
      assert.equal(direct.stdout.head, "tool-ran\n", direct.stderr.head);
      const shell = await runProcess({
        shell: `'${base}/tool/run.sh'; cat ${base}/secret/s.txt`,
        cwd: wt,
        sandbox: profile,
      });
      assert.equal(shell.stdout.head, "tool-ran\n", shell.stderr.head);
    } finally {
      await Deno.remove(base, { recursive: true });
      await Deno.remove(wt, { recursive: true });
    }
  },
});

Deno.test("bwrapArgv: root mounts inside /tmp are mounted over the private /tmp, the rest before it", () => {
  const argv = bwrapArgv(
    {
      kind: "bwrap",
      bwrapPath: "/usr/bin/bwrap",
      writable: ["/wt"],
      readOnly: [],
      hiddenDirs: [],
      hiddenFiles: [],
      root: [
        { kind: "ro", path: "/usr" },
        { kind: "ro", path: "/tmp/clone/tests/fixtures" },
      ],
    },
    ["true"],
    "/wt",
    {},
  );
  const tmpfs = argv.findIndex((a, i) => a === "--tmpfs" && argv[i + 1] === "/tmp");
  const usr = argv.indexOf("/usr");
  const fixtures = argv.indexOf("/tmp/clone/tests/fixtures");
  assert.ok(usr > 0 && usr < tmpfs, "system dirs first");
  assert.ok(fixtures > tmpfs, "a toolchain under /tmp must not be hidden by the private /tmp");
});

Deno.test("extraReadOnlyPaths: an agent program in or around the checkout is its file alone (rt2 finding 6)", async () => {
  const { agentArgumentPaths, agentProgramPaths } = await import(
    "../../../adapters/driver/confined_backend.ts"
  );
  const x = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-extra-ro-" }));
  try {
    const repo = `${x}/repo`;
    for (const d of [`${repo}/.git`, `${repo}/node_modules/.bin`, `${x}/tools`, `${x}/home/me`]) {
      await Deno.mkdir(d, { recursive: true });
    }
    for (const f of [`${repo}/agent.sh`, `${repo}/server.js`, `${x}/agent.sh`, `${x}/tools/a`]) {
      await Deno.writeTextFile(f, "#!/bin/sh\n");
    }
    await Deno.writeTextFile(`${x}/home/me/agent.sh`, "#!/bin/sh\n");
    const keep = { home: `${x}/home/me`, forbidden: [], repository: [repo, `${repo}/.git`] };
    const paths = [
      ...agentProgramPaths(`${repo}/agent.sh`),
      ...agentArgumentPaths([`${repo}/server.js`, "--flag", `${repo}/node_modules/.bin`]),
      ...agentProgramPaths(`${x}/agent.sh`), // beside the checkout: its dir contains it
      ...agentProgramPaths(`${x}/tools/a`),
      ...agentProgramPaths(`${x}/home/me/agent.sh`), // directly in HOME
    ];
    // A node_modules in the checkout may be shown (as the dependency views do); `.bin` alone not.
    assert.deepEqual(extraReadOnlyPaths(paths, keep), [
      `${repo}/node_modules`,
      `${x}/tools`,
      `${repo}/agent.sh`,
      `${repo}/server.js`,
      `${x}/agent.sh`,
      `${x}/home/me/agent.sh`,
    ]);
    // Without a checkout (or HOME) there, a program's dir is kept (and its file with it).
    assert.deepEqual(
      extraReadOnlyPaths(agentProgramPaths(`${x}/agent.sh`), {
        home: "/nonexistent-home",
        forbidden: [],
        repository: [],
      }),
      [x],
    );
    // vouch's state: never, not even the file.
    assert.deepEqual(
      extraReadOnlyPaths(agentProgramPaths(`${x}/tools/a`), { ...keep, forbidden: [`${x}/tools`] }),
      [],
    );
  } finally {
    await Deno.remove(x, { recursive: true });
  }
});

Deno.test({
  name: "withPrograms: a check's leading program kept in the user's checkout is its file alone",
  ignore: (() => {
    try {
      return Deno.statSync("/usr/bin/bwrap") === null;
    } catch {
      return true;
    }
  })(),
  fn: async () => {
    const { withPrograms } = await import("../../../adapters/sandbox/bwrap.ts");
    const main = await Deno.realPath(await repo());
    const linked = `${main}-clean`;
    git(main, "worktree", "add", "-q", linked);
    try {
      // `--verify /home/u/proj/run_tests.sh`: the checkout's untracked files and .vouch/ are
      // beside it; binding its directory showed them to the check.
      await Deno.writeTextFile(`${main}/run_tests.sh`, "#!/bin/sh\nexit 0\n");
      await Deno.chmod(`${main}/run_tests.sh`, 0o755);
      await Deno.mkdir(`${main}/tools`);
      await Deno.writeTextFile(`${main}/tools/lint`, "#!/bin/sh\n");
      const outside = await Deno.makeTempDir({ prefix: "vouch-prog-" });
      await Deno.writeTextFile(`${outside}/tool`, "#!/bin/sh\n");
      const profile = bwrapProfile({ worktree: linked, bwrapPath: "/usr/bin/bwrap" });
      const added = (p: string) =>
        withPrograms(profile, [p]).readOnly.slice(profile.readOnly.length);
      assert.deepEqual(added(`${main}/run_tests.sh`), [`${main}/run_tests.sh`]);
      assert.deepEqual(added(`${main}/tools/lint`), [`${main}/tools/lint`]);
      // Elsewhere, its directory comes along (a tool beside its data).
      assert.deepEqual(added(`${outside}/tool`), [outside]);
      await Deno.remove(outside, { recursive: true });
    } finally {
      await Deno.remove(linked, { recursive: true });
      await Deno.remove(main, { recursive: true });
    }
  },
});
