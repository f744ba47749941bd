// The REAL `@zed-industries/codex-acp` (pinned in tests/fixtures/agent_clis) through
// `vouch run --backend acp:codex` (the preset: codex-acp with codex's quiet overrides and, inside
// vouch's bwrap, codex's own sandbox off), driven by the scripted OpenAI Responses server on
// 127.0.0.1 through a `model_providers` entry in the forwarded $CODEX_HOME.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { AGENT_CLI_BIN, explain, runRealCli } from "./_harness.ts";
import { cheatScenario, CODEX, workScenario } from "./_scenarios.ts";

const present = existsSync(`${AGENT_CLI_BIN}/codex-acp`);
if (!present) console.log(`real_cli: SKIP codex-acp scenarios: not installed in ${AGENT_CLI_BIN}`);

const patch = (path: string, minus: string, plus: string) =>
  `*** Begin Patch\n*** Update File: ${path}\n@@\n-${minus}\n+${plus}\n*** End Patch\n`;

// One run (./_scenarios.ts): `exec_command` lines run inside vouch's bwrap (codex's own
// sandbox off); its `apply_patch` of test/add.test.js refused; round 2 continues codex's live
// session; the honest `apply_patch` VERIFIED; its usage_update counted.
workScenario(CODEX, (run) => {
  // codex's own bwrap did not fail inside vouch's (the commands' output reached the model).
  assert.ok(run.server.requests.filter((r) => r.agentLoop).length >= 3, explain(run));
  assert.doesNotMatch(JSON.stringify(run.server.requests), /uid map/, explain(run));
  for (const r of run.server.requests) assert.match(r.path, /^\/v1\/(responses|models)$/);
  // codex asks before every patch (approval_policy untrusted); vouch refuses the protected
  // file; codex abandons its turn ("cancelled"): a round judged with the reason on screen, not
  // exit 4 backend_cancelled.
  assert.match(run.stderr, /permission:edit \(vouch refused: test\/add\.test\.js is protected/);
  assert.match(run.stderr, /vouch refused: permission edit: test\/add\.test\.js is protected/);
  const rounds = run.json.rounds as { backendStatus: string }[];
  assert.equal(rounds[0]?.backendStatus, "ok", explain(run));
});

Deno.test({
  name:
    "codex-acp (real, acp:codex): its usage_update is counted live and --max-cost stops the run",
  ignore: !present,
  fn: async () => {
    const run = await runRealCli({
      backend: "acp:codex",
      script: [
        {
          calls: [{
            name: "apply_patch",
            custom: patch("src/add.js", "  return a - b;", "  return a + b;"),
          }],
        },
        { text: "Fixed." },
      ],
      // The scripted server reports ~230 tokens per request: 5 units is spent by round 1.
      flags: ["--max-cost", "5"],
    });
    assert.match(run.stderr, /round 1 · acp · tokens in \d{2,}/, explain(run));
    assert.equal(run.code, 3, explain(run));
    assert.equal(run.json.state, "budget_exhausted", explain(run));
    assert.equal(run.json.reason, "budget_cost_units", explain(run));
  },
});

Deno.test("acp: a missing agent is named before the baseline (exit 4, nothing ran)", async () => {
  const run = await runRealCli({ backend: "acp:codex", script: [], withoutCli: true });
  assert.equal(run.code, 4, explain(run));
  assert.deepEqual(run.json.backendFailure, {
    code: "config",
    message: "acp: codex-acp: not found on PATH",
  });
  assert.match(run.stdout, /acp: codex-acp: not found on PATH/);
  assert.equal(run.server.requests.length, 0);
  assert.equal(run.artefacts, false, "no baseline, no round: nothing ran");
});

Deno.test("acp: a program that does not speak ACP is named before the baseline, saying why", async () => {
  const run = await runRealCli({ backend: "acp:/bin/true", script: [] });
  assert.equal(run.code, 4, explain(run));
  const failure = run.json.backendFailure as { code: string; message: string };
  assert.equal(failure.code, "config", explain(run));
  assert.equal(failure.message, "acp: true exited (code 0) before answering initialize");
  assert.equal(run.json.reason, "backend_unavailable", explain(run));
  // Started once in its task's sandbox, before the baseline: no check ran, no round.
  assert.deepEqual(run.json.baseline, [], explain(run));
  assert.deepEqual(run.json.rounds, [], explain(run));
  assert.doesNotMatch(run.stderr, /· baseline/, explain(run));
});

// Issue #19 through this agent: it skips the failing test; REJECTED with the oracle's words.
cheatScenario(CODEX);
