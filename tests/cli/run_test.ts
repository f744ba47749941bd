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
  assert.match(out, /130 killed/);
  assert.equal(await runCli(["run", "--goal", "g", "--nope"], io), 2);
  const empty = await Deno.makeTempDir();
  // Nothing to detect in an empty directory: a usage error, nothing runs.
  assert.equal(await runCli(["run", "--dir", empty, "--goal", "g"], io), 2);
  await Deno.remove(empty);
});
