// The REAL `@google/gemini-cli` (pinned in tests/fixtures/agent_clis) through
// `vouch run --backend acp:gemini` (the preset: `gemini --experimental-acp`, GEMINI_API_KEY and
// GOOGLE_GEMINI_BASE_URL forwarded by name, `authenticate` with `gemini-api-key`), driven by the
// scripted Gemini API on 127.0.0.1 (tests/fixtures/gemini_server.ts:
// `streamGenerateContent?alt=sse` as the real API streams).
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { GEMINI_API_KEY, startGeminiServer } from "../../fixtures/gemini_server.ts";
import { AGENT_CLI_BIN, explain, runRealCli } from "./_harness.ts";

const present = existsSync(`${AGENT_CLI_BIN}/gemini`);
if (!present) console.log(`real_cli: SKIP gemini scenarios: not installed in ${AGENT_CLI_BIN}`);

Deno.test({
  name:
    "gemini (real, acp:gemini): an honest fix by its shell tool is VERIFIED; the key never leaks",
  ignore: !present,
  fn: async () => {
    const gemini = await startGeminiServer([
      {
        calls: [{
          name: "run_shell_command",
          args: {
            command: "sed -i 's/a - b/a + b/' src/add.js && node test/add.test.js",
            description: "fix add",
          },
        }],
      },
      { say: "Fixed add()." },
    ]);
    try {
      const run = await runRealCli({
        backend: "acp:gemini",
        script: [],
        apiKey: GEMINI_API_KEY,
        env: { GOOGLE_GEMINI_BASE_URL: gemini.url, GEMINI_API_KEY },
      });
      assert.equal(run.code, 0, explain(run));
      assert.equal(run.json.state, "verified", explain(run));
      const rounds = run.json.rounds as { filesChanged: string[] }[];
      assert.deepEqual(rounds.at(-1)?.filesChanged, ["src/add.js"]);
      // Both main-loop turns were streamed (alt=sse) with the forwarded key; nothing else leaked.
      const loop = gemini.requests.filter((r) => r.agentLoop);
      assert.equal(loop.length, 2, JSON.stringify(gemini.requests.map((r) => r.path)));
      for (const r of loop) assert.match(r.path, /:streamGenerateContent$/);
      assert.ok(gemini.requests.every((r) => r.authorized));
      // The shell's real output (the passing test) reached the model in the second turn.
      assert.match(JSON.stringify(loop[1]?.body), /ok add/, explain(run));
      assert.deepEqual(run.leaks, []);
    } finally {
      await gemini.close();
    }
  },
});
