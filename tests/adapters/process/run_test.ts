import assert from "node:assert/strict";
import {
  BoundedCapture,
  ProcessSpecError,
  runProcess,
  utf8Tail,
} from "../../../adapters/process/mod.ts";
import fc from "fast-check";
import { readFileSync } from "node:fs";

const enc = new TextEncoder();

function alive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

Deno.test("argv is spawned directly: no shell interpretation", async () => {
  const r = await runProcess({ argv: ["echo", "$HOME; ls", "`id`"], cwd: "/" });
  assert.equal(r.exitCode, 0);
  assert.equal(r.stdout.head, "$HOME; ls `id`\n");
  assert.equal(r.sandbox, "none");
  assert.equal(r.spawnError, null);
});

Deno.test("a shell string runs as exactly sh -c", async () => {
  const r = await runProcess({ shell: "echo $((1+2)); exit 7", cwd: "/" });
  assert.deepEqual(r.argv, ["sh", "-c", "echo $((1+2)); exit 7"]);
  assert.equal(r.stdout.head, "3\n");
  assert.equal(r.exitCode, 7);
});

Deno.test("stdin is /dev/null by default, bytes when given", async () => {
  const r = await runProcess({ argv: ["cat"], cwd: "/", timeoutMs: 5000 });
  assert.equal(r.timedOut, false);
  assert.equal(r.stdout.totalBytes, 0);
  const r2 = await runProcess({ argv: ["cat"], cwd: "/", stdin: enc.encode("fed") });
  assert.equal(r2.stdout.head, "fed");
});

Deno.test("planted secret and injection variables are invisible to the child", async () => {
  const planted = {
    GITHUB_TOKEN: "ghp_planted1",
    AWS_SECRET_ACCESS_KEY: "planted2",
    MY_SERVICE_PASSWORD: "planted3",
    NODE_OPTIONS: "--require=/planted4.js",
    GIT_SSH_COMMAND: "planted5",
    SSH_AUTH_SOCK: "/planted6",
    OPENAI_API_KEY: "planted7",
  };
  for (const [k, v] of Object.entries(planted)) Deno.env.set(k, v);
  try {
    const r = await runProcess({ argv: ["env"], cwd: "/" });
    assert.equal(r.exitCode, 0);
    for (const [k, v] of Object.entries(planted)) {
      assert.ok(!r.stdout.head.includes(k), `${k} leaked`);
      assert.ok(!r.stdout.head.includes(v), `${k} value leaked`);
    }
    const names = r.stdout.head.trim().split("\n").map((l) => l.split("=")[0]).filter((n) =>
      n !== "PWD"
    ).sort();
    assert.deepEqual(names, [...r.envNames]);
    assert.deepEqual([...r.envNames], [
      "HOME",
      "LANG",
      "NO_UPDATE_NOTIFIER",
      "PATH",
      "TERM",
      "TMPDIR",
      "VOUCH_RUN_MARKER",
      "npm_config_update_notifier",
    ]);
    // A fresh HOME per child: npm would ask the registry for updates at every start (seconds
    // without network, issue #22's deps bench); the check is off.
    assert.match(r.stdout.head, /^npm_config_update_notifier=false$/m);
    // HOME is private, not the user's.
    assert.ok(!r.stdout.head.includes(`HOME=${Deno.env.get("HOME")}\n`));
  } finally {
    for (const k of Object.keys(planted)) Deno.env.delete(k);
  }
});

Deno.test("extra env: allowed names pass, secret/injection names are refused", async () => {
  const r = await runProcess({
    argv: ["sh", "-c", "echo $CI_MODE"],
    cwd: "/",
    env: { CI_MODE: "1" },
  });
  assert.equal(r.stdout.head, "1\n");
  assert.ok(r.envNames.includes("CI_MODE"));
  for (const name of ["LD_PRELOAD", "GH_TOKEN", "NPM_TOKEN", "BASH_ENV", "GIT_EXTERNAL_DIFF"]) {
    await assert.rejects(
      () => runProcess({ argv: ["true"], cwd: "/", env: { [name]: "x" } }),
      (e) => e instanceof ProcessSpecError && e.code === "env_denied",
    );
  }
  const ok = await runProcess({
    argv: ["sh", "-c", "echo $OPENAI_API_KEY"],
    cwd: "/",
    env: { OPENAI_API_KEY: "k" },
    allowSecretEnv: ["OPENAI_API_KEY"],
  });
  assert.equal(ok.stdout.head, "k\n");
  await assert.rejects(
    () =>
      runProcess({
        argv: ["true"],
        cwd: "/",
        env: { LD_PRELOAD: "x" },
        allowSecretEnv: ["LD_PRELOAD"],
      }),
    (e) => e instanceof ProcessSpecError && e.code === "env_denied",
  );
});

Deno.test("a program that cannot run is a result with spawnError, never a throw", async () => {
  const r = await runProcess({ argv: ["definitely-not-a-program-xyz"], cwd: "/" });
  assert.equal(r.spawnError?.code, "not_found");
  assert.equal(r.exitCode, 127);
  const r2 = await runProcess({ argv: ["true"], cwd: "/nonexistent-dir-xyz" });
  assert.equal(r2.spawnError?.code, "bad_cwd");
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/script.sh`, "echo hi\n");
  const r3 = await runProcess({ argv: ["./script.sh"], cwd: dir });
  assert.equal(r3.spawnError?.code, "not_executable");
  assert.equal(r3.exitCode, 126);
  await Deno.remove(dir, { recursive: true });
  await assert.rejects(() => runProcess({ cwd: "/" }), ProcessSpecError);
});

Deno.test("killed by a signal reports 128+n and the signal name", async () => {
  const r = await runProcess({ shell: "kill -KILL $$", cwd: "/" });
  assert.equal(r.exitCode, 137);
  assert.equal(r.signal, "SIGKILL");
});

Deno.test("timeout: a grandchild ignoring SIGTERM is gone afterwards (by pid)", async () => {
  const started = performance.now();
  const r = await runProcess({
    // The grandchild (sleep) inherits the ignored SIGTERM; so does the shell.
    shell: 'trap "" TERM; sleep 60 & echo $!; sleep 60',
    cwd: "/",
    timeoutMs: 300,
    graceMs: 300,
  });
  const elapsed = performance.now() - started;
  assert.equal(r.timedOut, true);
  assert.equal(r.exitCode, 124);
  // Half the 60 s the shell and its grandchild would sleep: it proves they were not waited
  // for, and a busy machine's seconds of delay do not fail it.
  assert.ok(elapsed < 30_000, `took ${elapsed} ms`);
  const pid = Number(r.stdout.head.trim());
  assert.ok(pid > 0, r.stdout.head);
  await new Promise((res) => setTimeout(res, 50));
  assert.equal(alive(pid), false, `grandchild ${pid} survived`);
});

Deno.test("after a normal exit, leftovers in the group are killed and pipes drain quickly", async () => {
  const started = performance.now();
  const r = await runProcess({ shell: "(sleep 60; echo late) & echo $!; echo done", cwd: "/" });
  // Half the leftover's 60 s sleep: not waited for, whatever the machine's load.
  assert.ok(performance.now() - started < 30_000);
  assert.equal(r.exitCode, 0);
  assert.equal(r.leftoversKilled, true);
  const pid = Number(r.stdout.head.split("\n")[0]);
  await new Promise((res) => setTimeout(res, 50));
  assert.equal(alive(pid), false);
});

Deno.test("a grandchild escaping the group (setsid) is swept by its run marker, pipes close", async () => {
  const started = performance.now();
  const r = await runProcess({
    shell: "setsid sleep 60 & pid=$!; sleep 0.3; echo $pid",
    cwd: "/",
    drainMs: 300,
  });
  const elapsed = performance.now() - started;
  const pid = Number(r.stdout.head.trim());
  try {
    assert.equal(r.exitCode, 0);
    // Half the escaped sleep's 60 s: the pipes closed without waiting for it.
    assert.ok(elapsed < 30_000, `took ${elapsed} ms`);
    assert.ok(pid > 0);
    // It left the process group, yet the unsandboxed sweep found and killed it.
    await new Promise((res) => setTimeout(res, 50));
    assert.equal(alive(pid), false);
    assert.equal(r.leftoversKilled, true);
  } finally {
    if (pid > 0) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch { /* already gone */ }
    }
  }
});

Deno.test("AbortSignal cancels like a timeout", async () => {
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 100);
  const r = await runProcess({ shell: "sleep 60", cwd: "/", signal: ac.signal, graceMs: 200 });
  assert.equal(r.cancelled, true);
  assert.equal(r.timedOut, false);
  assert.equal(r.exitCode, 124);
  const pre = new AbortController();
  pre.abort();
  const r2 = await runProcess({ shell: "sleep 60", cwd: "/", signal: pre.signal, graceMs: 200 });
  assert.equal(r2.cancelled, true);
});

Deno.test({
  // No wall-clock bound is asserted: on a busy 2-core machine piping 1 GiB can take minutes,
  // so the timeouts are generous and only bytes, digest and memory are judged.
  name: "1 GiB of output: capture exact to the byte, digest matches sha256sum, memory bounded",
  sanitizeResources: false,
  fn: async () => {
    const cmd = "yes 'vouch é output line' | head -c 1073741824";
    // The same bytes, hashed by coreutils: the reference digest.
    const expected = await runProcess({
      shell: `${cmd} | sha256sum`,
      cwd: "/",
      timeoutMs: 900_000,
    });
    const hex = expected.stdout.head.split(" ")[0];
    // The capture runs in a fresh process (no other test's garbage in its RSS) that forces a
    // full GC before both readings: what is left is what the capture holds.
    const child = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--no-prompt",
        "--v8-flags=--expose-gc",
        new URL("./_capture_rss.ts", import.meta.url).pathname,
      ],
      stdout: "piped",
      stderr: "inherit",
    }).output();
    assert.equal(child.code, 0);
    const { rssGrowth, ...r } = JSON.parse(new TextDecoder().decode(child.stdout)) as {
      exitCode: number;
      stdout: {
        totalBytes: number;
        sha256: string;
        truncated: boolean;
        head: string;
        tail: string;
      };
      rssGrowth: number;
    };
    assert.equal(r.exitCode, 0);
    assert.equal(r.stdout.totalBytes, 1073741824);
    assert.equal(r.stdout.sha256, `sha256:${hex}`);
    assert.equal(r.stdout.truncated, true);
    assert.ok(enc.encode(r.stdout.head).length <= 2048);
    assert.ok(enc.encode(r.stdout.tail).length <= 2048);
    assert.ok(!r.stdout.head.includes("\uFFFD") && !r.stdout.tail.includes("\uFFFD"));
    assert.ok(r.stdout.head.startsWith("vouch é output line\n"));
    assert.ok(rssGrowth < 96 * 1024 * 1024, `rss grew ${rssGrowth}`);
  },
});

Deno.test("capture: small output kept whole; multibyte boundaries never split", () => {
  const c = new BoundedCapture(10);
  c.push(enc.encode("héllo"));
  const s = c.finish();
  assert.deepEqual([s.head, s.tail, s.truncated, s.totalBytes], ["héllo", "", false, 6]);
  fc.assert(
    fc.property(
      // U+FFFD in the input would read as a split character in the output (seed 459602264).
      fc.array(fc.string({ unit: "grapheme" }).filter((p) => !p.includes("\uFFFD")), {
        maxLength: 20,
      }),
      fc.integer({ min: 2, max: 64 }),
      (parts, max) => {
        const c = new BoundedCapture(max);
        let all = "";
        for (const p of parts) {
          c.push(enc.encode(p));
          all += p;
        }
        const s = c.finish();
        const bytes = enc.encode(all);
        assert.equal(s.totalBytes, bytes.length);
        assert.equal(s.truncated, bytes.length > max);
        if (!s.truncated) assert.equal(s.head, all);
        else {
          assert.ok(!s.head.includes("\uFFFD") && !s.tail.includes("\uFFFD"));
          assert.ok(all.startsWith(s.head));
          assert.ok(all.endsWith(s.tail));
          assert.ok(enc.encode(s.head).length + enc.encode(s.tail).length <= max);
        }
      },
    ),
    { numRuns: 200 },
  );
  assert.equal(utf8Tail("abc", 10), "abc");
});

Deno.test("the private HOME/TMPDIR is fresh per run and removed afterwards", async () => {
  const r = await runProcess({
    shell:
      'echo "$HOME"; ls -A "$HOME" | wc -l; mkdir -p "$HOME/.cache/x" && touch "$HOME/.cache/x/f"',
    cwd: "/",
  });
  const [home, count] = r.stdout.head.trim().split("\n");
  assert.ok(home && home !== Deno.env.get("HOME"));
  assert.equal(count, "0");
  await assert.rejects(() => Deno.stat(home!));
  const r2 = await runProcess({ shell: 'echo "$HOME"', cwd: "/" });
  assert.notEqual(r2.stdout.head.trim(), home);
});

Deno.test("TMPDIR is private and never HOME (Codex refuses helpers under TMPDIR), given HOME or not", async () => {
  const given = await Deno.makeTempDir({ prefix: "vouch-given-home-" });
  try {
    for (const spec of [{}, { home: given }]) {
      const r = await runProcess({ shell: 'echo "$HOME"; echo "$TMPDIR"', cwd: "/", ...spec });
      const [home, tmp] = r.stdout.head.trim().split("\n");
      assert.ok(home && tmp, r.stdout.head);
      assert.notEqual(tmp, home);
      assert.ok(!tmp!.startsWith(home! + "/"), `${tmp} under ${home}`);
      await assert.rejects(() => Deno.stat(tmp!), "the private TMPDIR is removed afterwards");
    }
  } finally {
    await Deno.remove(given, { recursive: true });
  }
});

Deno.test("ownTool (vouch's git): no private HOME or TMPDIR is made and no sweep marker is set", async () => {
  const { tmpdir } = await import("node:os");
  const before = new Set([...Deno.readDirSync(tmpdir())].map((e) => e.name));
  const show = 'printf "%s|%s|%s" "$HOME" "$TMPDIR" "${VOUCH_RUN_MARKER-unset}"';
  const own = await runProcess({ shell: show, cwd: "/", ownTool: true });
  assert.equal(own.stdout.head, `/nonexistent|${tmpdir()}|unset`);
  const made = [...Deno.readDirSync(tmpdir())].map((e) => e.name)
    .filter((n) => !before.has(n) && /^vouch-(proc|tmp)-/.test(n));
  assert.deepEqual(made, []);
  // Any other unsandboxed child still gets its private HOME, TMPDIR and marker.
  const other = await runProcess({ shell: show, cwd: "/" });
  const [home, tmp, marker] = other.stdout.head.split("|");
  assert.match(home!, /vouch-proc-/);
  assert.match(tmp!, /vouch-tmp-/);
  assert.notEqual(marker, "unset");
});

Deno.test("no launcher in front: an unsandboxed check leads its own process group, vouch's git shares vouch's", async () => {
  // `ps` is not needed: /proc/self/stat field 5 is the process group.
  const show = "read -r s < /proc/self/stat; set -- ${s##*) }; echo $$ $3";
  const check = await runProcess({ shell: show, cwd: "/" });
  assert.deepEqual(check.spawnedArgv.slice(0, 2), ["sh", "-c"]);
  const [pid, pgid] = check.stdout.head.trim().split(" ").map(Number);
  // sh is the child itself (no setsid exec in front), and it leads a group of its own.
  assert.equal(check.spawnedArgv[0], "sh");
  assert.equal(pgid, pid, check.stdout.head);
  const own = await runProcess({ shell: show, cwd: "/", ownTool: true });
  const ownGroup = Number(own.stdout.head.trim().split(" ")[1]);
  const self = Number(readFileSync("/proc/self/stat", "latin1").split(") ")[1]!.split(" ")[2]);
  assert.equal(ownGroup, self, `${own.stdout.head} vs ${self}`);
});
