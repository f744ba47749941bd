import assert from "node:assert/strict";
import { parseRunArgs } from "../../cli/commands/run_args.ts";
import { UsageError } from "../../cli/command.ts";
import { runCli } from "../../cli/main.ts";

Deno.test("parseRunArgs: defaults and every flag", () => {
  const a = parseRunArgs(["--goal", "fix", "--verify", "deno test"]);
  assert.equal(a.dir, ".");
  assert.equal(a.backend.kind, "codex");
  assert.equal(a.maxRounds, 3);
  assert.equal(a.timeoutSeconds, 1800);
  assert.equal(a.integrateBranch, null);
  const b = parseRunArgs([
    "--goal=g",
    "--contract",
    "c.json",
    "--backend",
    "command:./agent.sh",
    "--max-rounds",
    "5",
    "--allow",
    "src/**",
    "--allow",
    "tests/**",
    "--forbid",
    "secrets/**",
    "--integrate",
    "branch:vouch/fix",
    "--yes",
    "--json",
    "--sandbox",
    "none",
    "--timeout",
    "60",
  ]);
  assert.deepEqual(b.backend, { kind: "command", path: "./agent.sh" });
  assert.deepEqual(b.allow, ["src/**", "tests/**"]);
  assert.deepEqual(b.forbid, ["secrets/**"]);
  assert.equal(b.integrateBranch, "vouch/fix");
  assert.equal(b.yes, true);
  assert.equal(b.json, true);
  assert.equal(b.sandbox, "none");
  assert.equal(b.maxRounds, 5);
  assert.equal(b.timeoutSeconds, 60);
});

Deno.test("parseRunArgs: bad combinations are usage errors", () => {
  const bad = [
    [],
    ["--goal", " "],
    ["--goal", "g", "--verify", "a", "--contract", "b"],
    ["--goal", "g", "--backend", "gpt"],
    ["--goal", "g", "--backend", "command:"],
    ["--goal", "g", "--max-rounds", "0"],
    ["--goal", "g", "--max-rounds", "x"],
    ["--goal", "g", "--integrate", "main"],
    ["--goal", "g", "--sandbox", "docker"],
    ["--goal", "g", "extra"],
  ];
  for (const argv of bad) assert.throws(() => parseRunArgs(argv), UsageError, argv.join(" "));
});

Deno.test("vouch run: --help shows the exit codes, unknown flags exit 2", async () => {
  let out = "";
  const io = { out: (t: string) => void (out += t), err: () => {}, isTerminal: false };
  assert.equal(await runCli(["run", "--help"], io), 0);
  assert.match(out, /130 cancelled/);
  assert.equal(await runCli(["run", "--goal", "g", "--nope"], io), 2);
  const empty = await Deno.makeTempDir();
  // Nothing to detect in an empty directory: a usage error, nothing runs.
  assert.equal(await runCli(["run", "--dir", empty, "--goal", "g"], io), 2);
  await Deno.remove(empty);
});

Deno.test("vouch run: progress on stderr, the summary table on stdout (command: backend)", async () => {
  const { createDenoRepo } = await import("../golden/fixture_repos.ts");
  const repo = await createDenoRepo();
  const state = await Deno.makeTempDir();
  const saved = Deno.env.get("VOUCH_WORKTREE_ROOT");
  Deno.env.set("VOUCH_WORKTREE_ROOT", `${state}/wt`);
  const savedKey = Deno.env.get("VOUCH_KEY_FILE");
  Deno.env.set("VOUCH_KEY_FILE", `${state}/key`);
  const savedXdg = Deno.env.get("XDG_STATE_HOME");
  Deno.env.set("XDG_STATE_HOME", `${state}/state`);
  try {
    await Deno.writeTextFile(
      `${state}/agent.sh`,
      '#!/bin/sh\nsed -i \'s/a - b/a + b/\' math.ts\necho \'{"summary":"fixed","done":true}\'\n',
    );
    await Deno.chmod(`${state}/agent.sh`, 0o755);
    await Deno.writeTextFile(`${repo.dir}/README.md`, "# dirty, uncommitted\n");
    let out = "";
    let err = "";
    const io = {
      out: (t: string) => void (out += t),
      err: (t: string) => void (err += t),
      isTerminal: false,
    };
    const code = await runCli([
      "run",
      "--dir",
      repo.dir,
      "--backend",
      `command:${state}/agent.sh`,
      "--sandbox",
      "none",
      "--goal",
      "make the tests pass",
      "--verify",
      repo.verify,
    ], io);
    assert.equal(code, 0, err + out);
    // The dirty file was reported, left alone, and not part of the base or the patch.
    assert.match(err, /uncommitted changes in 1 path/);
    assert.equal(await Deno.readTextFile(`${repo.dir}/README.md`), "# dirty, uncommitted\n");
    assert.match(out, /^VERIFIED \(verified\)/);
    assert.match(out, /round\s+backend\s+claimed done\s+files\s+verdict/);
    assert.match(err, /round 1 · backend/);
    assert.match(err, /round 1 · verify · check "verify"/);
  } finally {
    for (
      const [k, v] of [["VOUCH_WORKTREE_ROOT", saved], ["VOUCH_KEY_FILE", savedKey], [
        "XDG_STATE_HOME",
        savedXdg,
      ]]
    ) {
      if (v === undefined) Deno.env.delete(k!);
      else Deno.env.set(k!, v);
    }
    await repo.cleanup();
    await Deno.remove(state, { recursive: true });
  }
});
