/**
 * Red team, issue #10 §3 and §4, through the real CLI: a check cannot read
 * vouch's keys under the default sandbox; under `--sandbox none` (where it
 * can) the key never reaches `--json` or events.jsonl and the run is marked
 * unsandboxed; without bwrap vouch stops with exit 5 instead of running
 * unconfined.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { createRepo, type FixtureRepo } from "../../golden/fixture_repos.ts";
import { VOUCH_TASK_FLAGS } from "../../golden/cli_harness.ts";
import { skipReason } from "./_harness.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const PATCH = "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n";

async function vouch(
  repo: FixtureRepo,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...VOUCH_TASK_FLAGS, `--config=${ROOT}deno.json`, `${ROOT}cli/main.ts`, ...args],
    cwd: repo.dir,
    env: { HOME: Deno.env.get("HOME") ?? "/tmp", NO_COLOR: "1", ...env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const d = new TextDecoder();
  return { code: out.code, stdout: d.decode(out.stdout), stderr: d.decode(out.stderr) };
}

async function setup() {
  const repo = await createRepo({ "a.txt": "a\n" }, "true");
  // Outside every private /tmp: only the allowlist keeps a check from reading it.
  const state = await Deno.realPath(
    await Deno.makeTempDir({ dir: "/var/tmp", prefix: "vouch-rt-keys-" }),
  );
  await Deno.writeTextFile(`${repo.dir}/../fix.patch`, PATCH);
  const env = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    VOUCH_KEY_FILE: `${state}/key`,
    XDG_STATE_HOME: `${state}/state`,
    VOUCH_WORKTREE_ROOT: `${state}/worktrees`,
  };
  return {
    repo,
    state,
    env,
    cleanup: async () => {
      await repo.cleanup();
      await Deno.remove(state, { recursive: true });
    },
  };
}

const steal = (state: string) => `cat ${state}/key && grep -q b a.txt`;

Deno.test({
  name: "keys: a check cannot read vouch's MAC key under the default sandbox",
  ignore: skipReason !== null,
  fn: async () => {
    const s = await setup();
    try {
      const r = await vouch(
        s.repo,
        ["verify", "--patch", "../fix.patch", "--verify", steal(s.state), "--json"],
        s.env,
      );
      assert.equal(r.code, 1, r.stderr + r.stdout);
      const key = JSON.parse(await Deno.readTextFile(`${s.state}/key`)).key as string;
      assert.ok(key.length > 20);
      assert.ok(!r.stdout.includes(key));
      assert.match(r.stdout, /No such file or directory/);
    } finally {
      await s.cleanup();
    }
  },
});

Deno.test("keys: under --sandbox none a printed key is redacted from --json and events.jsonl; the run is marked unsandboxed", async () => {
  const s = await setup();
  try {
    const r = await vouch(
      s.repo,
      [
        "verify",
        "--patch",
        "../fix.patch",
        "--verify",
        steal(s.state),
        "--json",
        "--sandbox",
        "none",
      ],
      s.env,
    );
    // Unsandboxed, the check CAN read the key (that is what none gives up), and says so.
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stderr, /UNSANDBOXED/);
    const key = JSON.parse(await Deno.readTextFile(`${s.state}/key`)).key as string;
    const events = await Deno.readTextFile(`${s.repo.dir}/.vouch/events.jsonl`);
    assert.ok(!r.stdout.includes(key), "key in --json");
    assert.ok(!events.includes(key), "key in events.jsonl");
    assert.match(r.stdout, /\[redacted:vouch_key\]/);
    // The minted VerifiedPatch records that its checks ran unsandboxed.
    const json = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
    const record = await Deno.readTextFile(json.verifiedPatch);
    assert.match(record, /"sandboxProfile":\s*"none"/);
  } finally {
    await s.cleanup();
  }
});

Deno.test("fail closed: without a working bwrap, verify and run stop with exit 5 and say how to install it", async () => {
  const s = await setup();
  try {
    // A PATH with git but no bwrap.
    const bin = `${s.state}/bin`;
    await Deno.mkdir(bin);
    const git = new Deno.Command("sh", { args: ["-c", "command -v git"], stdout: "piped" })
      .outputSync();
    await Deno.symlink(new TextDecoder().decode(git.stdout).trim(), `${bin}/git`);
    const env = { ...s.env, PATH: bin };
    for (const sandbox of [[], ["--sandbox", "auto"], ["--sandbox", "bwrap"]]) {
      const v = await vouch(s.repo, [
        "verify",
        "--patch",
        "../fix.patch",
        "--verify",
        "true",
        ...sandbox,
      ], env);
      assert.equal(v.code, 5, v.stderr);
      assert.match(v.stderr, /apt-get install bubblewrap/);
      assert.match(v.stderr, /--sandbox none/);
    }
    const run = await vouch(s.repo, [
      "run",
      "--goal",
      "g",
      "--verify",
      "true",
      "--backend",
      "command:/bin/true",
    ], env);
    assert.equal(run.code, 5, run.stderr);
    // Nothing ran: no log was written.
    assert.equal(
      await Deno.stat(`${s.repo.dir}/.vouch/events.jsonl`).then(() => true, () => false),
      false,
    );
  } finally {
    await s.cleanup();
  }
});

Deno.test({
  name:
    "keys: a declared --sandbox-ro dir holding the key file is refused; nothing runs with the key in view",
  ignore: skipReason !== null,
  fn: async () => {
    const s = await setup();
    try {
      // The key file lives inside the directory the user asks to share.
      const r = await vouch(
        s.repo,
        [
          "verify",
          "--patch",
          "../fix.patch",
          "--verify",
          steal(s.state),
          "--sandbox-ro",
          s.state,
          "--json",
        ],
        s.env,
      );
      assert.notEqual(r.code, 0, r.stdout);
      assert.match(r.stdout + r.stderr, /would expose/);
      const key = JSON.parse(await Deno.readTextFile(`${s.state}/key`)).key as string;
      assert.ok(!r.stdout.includes(key) && !r.stderr.includes(key));
    } finally {
      await s.cleanup();
    }
  },
});
