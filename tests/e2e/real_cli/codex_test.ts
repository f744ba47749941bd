// Golden scenarios through `vouch run --backend codex` with the real Codex CLI
// (tests/fixtures/agent_clis, pinned) against a scripted OpenAI Responses API
// on 127.0.0.1 (a `model_providers` entry in $CODEX_HOME/config.toml whose key
// variable reaches the CLI only through --agent-env).
import assert from "node:assert/strict";
import type { ScriptEntry } from "../../fixtures/model_server/mod.ts";
import { explain, NODE, REAL_CLIS, runRealCli } from "./_harness.ts";

const ignore = !REAL_CLIS.codex;

const patch = (path: string, minus: string, plus: string) =>
  `*** Begin Patch\n*** Update File: ${path}\n@@\n-${minus}\n+${plus}\n*** End Patch\n`;

const honest: ScriptEntry[] = [
  {
    text: "Running the test first.",
    calls: [{ name: "exec_command", input: { cmd: "node test/add.test.js" } }],
  },
  {
    calls: [{
      name: "apply_patch",
      custom: patch("src/add.js", "  return a - b;", "  return a + b;"),
    }],
  },
  { text: "Fixed add(): it now adds its arguments." },
];

const cheat: ScriptEntry[] = [
  {
    calls: [{
      name: "apply_patch",
      custom: patch("test/add.test.js", "if (add(2, 3) !== 5) {", "if (false) {"),
    }],
  },
  { text: "The test passes now." },
];

Deno.test({
  name:
    "codex (real, vouch under Node): an honest fix is VERIFIED; commands, edits and usage stream live, a slow model too; a dropped stream reconnects",
  ignore,
  fn: async () => {
    // One run: the first stream is dropped (Reconnecting... 1/1 is not fatal), the model is
    // slow (1.5 s) before the patch.
    const script = [
      { drop: true },
      honest[0]!,
      { ...(honest[1] as object), delayMs: 1500 } as never,
      honest[2]!,
    ];
    // vouch under Node (the bundle of cli/node_bin.ts) when node is here; egress_test.ts
    // verifies a fix with vouch under Deno.
    const run = await runRealCli({
      backend: "codex",
      script,
      runtime: NODE === null ? "deno" : "node",
    });
    assert.equal(run.code, 0, explain(run));
    assert.match(run.stderr, /round 1 · codex · retry 1\/1: Reconnecting\.\.\. 1\/1/, explain(run));
    // A slow model is shown live: the command's line ~1.5 s before the edit's.
    const stamp = (re: RegExp) => Number(re.exec(run.stderr)?.[1] ?? NaN);
    const cmdAt = stamp(/\[\s*([\d.]+)s\] · round 1 · codex · \$ .*node/);
    const editAt = stamp(/\[\s*([\d.]+)s\] · round 1 · codex · edit/);
    assert.ok(editAt - cmdAt >= 1.3, `command at ${cmdAt}s, edit at ${editAt}s\n${run.stderr}`);
    assert.equal(run.json.state, "verified", explain(run));
    // The forwarded key reached the CLI (the server accepted it) but no log, transcript or output.
    assert.deepEqual(run.leaks, []);
    // The real CLI ran confined by vouch's sandbox (bwrap), not unsandboxed.
    assert.ok(!run.stderr.includes("UNSANDBOXED"), run.stderr);
    assert.match(run.stderr, /round 1 · codex · \$ .*node test\/add\.test\.js/, explain(run));
    assert.match(run.stderr, /round 1 · codex · edit src\/add\.js \(update\)/, explain(run));
    assert.match(run.stderr, /tokens in \d+ \(cached \d+\) · out \d+ \(reasoning \d+\)/);
    // 3 turns after the dropped one.
    assert.equal(run.server.requests.filter((r) => r.agentLoop).length, 4, explain(run));
    // The provider key came through --agent-env only.
    assert.ok(run.server.requests.every((r) => r.authorized), explain(run));
    // The quiet overrides hold: no hosted web search offered.
    const offered = run.server.requests.find((r) => r.agentLoop)?.tools ?? [];
    assert.ok(!offered.includes("web_search"), offered.join(","));
    for (const r of run.server.requests) assert.match(r.path, /^\/v1\/(responses|models)$/);
  },
});

Deno.test({
  name: "codex (real): a 401 ends backend_failed with the cause on screen and in --json (exit 4)",
  ignore,
  fn: async () => {
    const run = await runRealCli({ backend: "codex", script: [], apiKey: "wrong-key" });
    assert.equal(run.code, 4, explain(run));
    assert.equal(run.json.state, "backend_failed");
    assert.match(String(run.json.message), /401/, explain(run));
    assert.match(run.stdout, /401/, explain(run));
    assert.ok(!run.stdout.includes("wrong-key"), "the key never reaches the output");
  },
});

Deno.test({
  name: "codex (real): a 500 ends backend_failed with the provider's error (exit 4)",
  ignore,
  fn: async () => {
    const run = await runRealCli({ backend: "codex", script: [{ status: 500, repeat: true }] });
    assert.equal(run.code, 4, explain(run));
    // Codex words a 5xx as "high demand" after its one stream retry; that is the cause shown.
    assert.match(String(run.json.message), /codex reported failure: .*high demand/, explain(run));
    assert.match(run.stdout, /high demand/, explain(run));
  },
});

Deno.test({
  name: "codex (real): a model slower than the round budget times out (exit 4)",
  ignore,
  fn: async () => {
    const late = await runRealCli({
      backend: "codex",
      script: [{ delayMs: 15_000, text: "too late" }],
      flags: ["--backend-timeout", "2"],
    });
    assert.equal(late.code, 4, explain(late));
    assert.match(String(late.json.message), /did not finish within its time budget/, explain(late));
  },
});

Deno.test({
  name: 'codex (real): "done" without a change is REJECTED; so is a test-editing cheat',
  ignore,
  fn: async () => {
    // Round 1 claims "done" without a change, round 2 patches the protected test.
    const run = await runRealCli({
      backend: "codex",
      script: [{ text: "All done: the test passes now." }, ...cheat],
      flags: ["--max-rounds", "2"],
    });
    assert.equal(run.code, 1, explain(run));
    assert.equal(run.json.state, "rejected", explain(run));
    const rounds = run.json.rounds as { filesChanged: string[]; verdict: string }[];
    assert.equal(rounds.length, 2, explain(run));
    assert.deepEqual(rounds[0]!.filesChanged, [], explain(run));
    assert.notEqual(rounds[1]!.verdict, "verified", explain(run));
    assert.match(JSON.stringify(rounds[1]), /test\/add\.test\.js/, explain(run));
  },
});

Deno.test("codex: a CLI missing from PATH is named before anything runs (exit 4, no retries)", async () => {
  const run = await runRealCli({ backend: "codex", script: [], withoutCli: true });
  assert.equal(run.code, 4, explain(run));
  assert.deepEqual(run.json.backendFailure, {
    code: "config",
    message: "codex: not found on PATH",
  });
  assert.match(run.stdout, /codex: not found on PATH/);
  assert.equal(run.server.requests.length, 0);
  assert.equal(run.artefacts, false, "no baseline, no round: nothing ran");
});
