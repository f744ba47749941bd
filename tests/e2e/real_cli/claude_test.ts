// Golden scenarios through `vouch run --backend claude` with the real Claude
// Code CLI (tests/fixtures/agent_clis, pinned) against a scripted Anthropic
// Messages API on 127.0.0.1.
import assert from "node:assert/strict";
import type { ScriptEntry } from "../../fixtures/model_server/mod.ts";
import { explain, NODE, REAL_CLIS, runRealCli } from "./_harness.ts";

const ignore = !REAL_CLIS.claude;

const readThen = (path: string, next: ScriptEntry): ScriptEntry[] => [
  (ctx) => ({ calls: [{ name: "Read", input: { file_path: `${ctx.cwd}/${path}` } }] }),
  next,
];

const honest: ScriptEntry[] = [
  {
    text: "Running the test first.",
    calls: [{
      name: "Bash",
      input: { command: "node test/add.test.js", description: "run the failing test" },
    }],
  },
  ...readThen("src/add.js", (ctx) => ({
    calls: [{
      name: "Edit",
      input: {
        file_path: `${ctx.cwd}/src/add.js`,
        old_string: "return a - b;",
        new_string: "return a + b;",
      },
    }],
  })),
  { text: "Fixed add(): it now adds its arguments." },
];

const cheat: ScriptEntry[] = [
  ...readThen("test/add.test.js", (ctx) => ({
    calls: [{
      name: "Write",
      input: { file_path: `${ctx.cwd}/test/add.test.js`, content: 'console.log("ok add");\n' },
    }],
  })),
  { text: "The test passes now." },
];

function assertLoopbackOnly(run: Awaited<ReturnType<typeof runRealCli>>): void {
  for (const r of run.server.requests) {
    assert.match(r.path, /^\/v1\/messages(\/count_tokens)?$|\/models$/, explain(run));
  }
}

Deno.test({
  name:
    "claude (real, vouch under Node): an honest fix is VERIFIED; edits and commands stream live, a slow model too; a dropped stream is retried",
  ignore,
  fn: async () => {
    // One run: the first stream is dropped (retried), the model is slow (1.5 s) before the edit.
    const script = [
      { drop: true },
      honest[0]!,
      { ...(honest[1] as object), delayMs: 1500 } as never,
      ...honest.slice(2),
    ];
    // vouch under Node (the bundle of cli/node_bin.ts) when node is here; egress_test.ts
    // verifies a fix with vouch under Deno.
    const run = await runRealCli({
      backend: "claude",
      script,
      runtime: NODE === null ? "deno" : "node",
    });
    assert.equal(run.code, 0, explain(run));
    assert.equal(run.json.state, "verified", explain(run));
    // The forwarded key reached the CLI (the server accepted it) but no log, transcript or output.
    assert.deepEqual(run.leaks, []);
    // The real CLI ran confined by vouch's sandbox (bwrap), not unsandboxed.
    assert.ok(!run.stderr.includes("UNSANDBOXED"), run.stderr);
    // The dropped stream was retried, live.
    assert.match(run.stderr, /round 1 · claude · retry 1\/1/, explain(run));
    // Live progress off a terminal: one line per event, with what the agent did.
    assert.match(run.stderr, /round 1 · claude · \$ node test\/add\.test\.js/, explain(run));
    assert.match(run.stderr, /round 1 · claude · edit src\/add\.js \(Edit\)/, explain(run));
    assert.match(run.stderr, /round 1 · claude · tokens in \d+/, explain(run));
    // A slow model is shown live: the command's line was stamped when it happened, ~1.5 s
    // before the edit's.
    const stamp = (re: RegExp) => Number(re.exec(run.stderr)?.[1] ?? NaN);
    const cmdAt = stamp(/\[\s*([\d.]+)s\] · round 1 · claude · \$ node/);
    const editAt = stamp(/\[\s*([\d.]+)s\] · round 1 · claude · edit/);
    assert.ok(editAt - cmdAt >= 1.3, `command at ${cmdAt}s, edit at ${editAt}s\n${run.stderr}`);
    // The scripted model saw the tool results: the real CLI ran the command and the edit (4
    // turns after the dropped one).
    assert.equal(run.server.requests.filter((r) => r.agentLoop).length, 5, explain(run));
    assert.ok(run.server.requests.every((r) => r.authorized), explain(run));
    // The closed tool set: what can leave the task is not even offered.
    const offered = run.server.requests.find((r) => r.agentLoop)?.tools ?? [];
    for (const t of ["Task", "Agent", "Workflow", "WebFetch", "WebSearch", "CronCreate"]) {
      assert.ok(!offered.includes(t), `${t} offered: ${offered.join(",")}`);
    }
    assertLoopbackOnly(run);
  },
});

Deno.test({
  name: "claude (real): a 401 stops at once with the cause on screen and in --json (exit 4)",
  ignore,
  fn: async () => {
    // One run without --json: the human summary on screen; the document --json prints is
    // built from its outcome.json by the CLI's own code.
    const run = await runRealCli({
      backend: "claude",
      script: [],
      apiKey: "wrong-key",
      human: true,
    });
    assert.equal(run.code, 4, explain(run));
    assert.equal(run.json.state, "backend_failed");
    assert.match(String(run.json.message), /claude: authentication failed \(HTTP 401\)/);
    assert.deepEqual(run.json.backendFailure, {
      code: "config",
      message: "claude: authentication failed (HTTP 401): authentication_failed",
    });
    // On screen too (the human summary), not only in round-1/backend_result.json.
    assert.match(run.stdout, /^BACKEND FAILED .*: claude: authentication failed \(HTTP 401\)/);
    assert.match(run.stdout, /round 1 backend: claude: authentication failed \(HTTP 401\)/);
    assert.match(run.stderr, /retry 1\/1: provider request failed \(HTTP 401\)/, explain(run));
    assert.ok(!run.stdout.includes("wrong-key"), "the key never reaches the output");
  },
});

Deno.test({
  name: "claude (real): a 500 ends backend_failed with the provider's error (exit 4)",
  ignore,
  fn: async () => {
    const run = await runRealCli({ backend: "claude", script: [{ status: 500, repeat: true }] });
    assert.equal(run.code, 4, explain(run));
    assert.match(String(run.json.message), /API Error: 500/, explain(run));
    assert.match(run.stderr, /HTTP 500/, explain(run));
  },
});

Deno.test({
  name: "claude (real): a model slower than the round budget times out (exit 4)",
  ignore,
  fn: async () => {
    const late = await runRealCli({
      backend: "claude",
      script: [{ delayMs: 15_000, text: "too late" }],
      flags: ["--backend-timeout", "2"],
    });
    assert.equal(late.code, 4, explain(late));
    assert.match(String(late.json.message), /did not finish within its time budget/, explain(late));
  },
});

Deno.test({
  name: 'claude (real): "done" without a change is REJECTED; so is a test-editing cheat',
  ignore,
  fn: async () => {
    // With the user's config section: its model and its env names reach the real CLI. Round 1
    // claims "done" without a change, round 2 rewrites the protected test.
    const run = await runRealCli({
      backend: "claude",
      script: [
        {
          calls: [{
            name: "Bash",
            input: { command: 'echo "marker=$VOUCH_E2E_MARKER"', description: "look" },
          }],
        },
        { text: "All done: the test passes now." },
        ...cheat,
      ],
      flags: ["--max-rounds", "2"],
      env: { VOUCH_E2E_MARKER: "from-the-config-env" },
      agentConfig: {
        backends: { claude: { model: "claude-from-config", env: ["VOUCH_E2E_MARKER"] } },
      },
    });
    assert.equal(run.code, 1, explain(run));
    assert.equal(run.json.state, "rejected", explain(run));
    const rounds = run.json.rounds as { filesChanged: string[]; verdict: string }[];
    assert.equal(rounds.length, 2, explain(run));
    assert.deepEqual(rounds[0]!.filesChanged, [], explain(run));
    // The cheat: its patch touches the protected test file, and is rejected for it.
    assert.notEqual(rounds[1]!.verdict, "verified", explain(run));
    assert.match(JSON.stringify(rounds[1]), /test\/add\.test\.js/, explain(run));
    const loop = run.server.requests.filter((r) => r.agentLoop);
    assert.ok(loop.every((r) => (r.body as { model?: string }).model === "claude-from-config"));
    assert.match(JSON.stringify(loop[1]?.body), /marker=from-the-config-env/, explain(run));
  },
});

Deno.test("claude: a CLI missing from PATH is named before anything runs (exit 4, no retries)", async () => {
  const run = await runRealCli({ backend: "claude", script: [], withoutCli: true });
  assert.equal(run.code, 4, explain(run));
  assert.equal(run.json.reason, "backend_unavailable");
  assert.equal(run.json.message, "the backend cannot start: claude: not found on PATH");
  assert.deepEqual(run.json.backendFailure, {
    code: "config",
    message: "claude: not found on PATH",
  });
  assert.equal(run.server.requests.length, 0);
  assert.equal(run.artefacts, false, "no baseline, no round: nothing ran");
  const human = await runRealCli({ backend: "claude", script: [], withoutCli: true, human: true });
  assert.equal(human.code, 4);
  assert.equal(
    human.stdout,
    "BACKEND FAILED (backend_unavailable): the backend cannot start: claude: not found on PATH\n",
  );
});
