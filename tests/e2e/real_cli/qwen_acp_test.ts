// The REAL `@qwen-code/qwen-code` (pinned in tests/fixtures/agent_clis) through
// `vouch run --backend acp:qwen` (the preset: `qwen --acp`, OPENAI_* forwarded by name,
// `authenticate` with its `openai` method), driven by the scripted Chat Completions server on
// 127.0.0.1 (tests/fixtures/chat_server.ts, streaming as the real API does).
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { CHAT_API_KEY, startChatServer } from "../../fixtures/chat_server.ts";
import { AGENT_CLI_BIN, explain, runRealCli } from "./_harness.ts";

const present = existsSync(`${AGENT_CLI_BIN}/qwen`);
if (!present) console.log(`real_cli: SKIP qwen scenarios: not installed in ${AGENT_CLI_BIN}`);

Deno.test({
  name: "qwen (real, acp:qwen): an honest fix by its shell tool is VERIFIED; the key never leaks",
  ignore: !present,
  fn: async () => {
    const chat = await startChatServer([
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
        backend: "acp:qwen",
        script: [],
        apiKey: CHAT_API_KEY,
        env: {
          OPENAI_BASE_URL: chat.baseUrl,
          OPENAI_API_KEY: CHAT_API_KEY,
          OPENAI_MODEL: "qwen-scripted",
        },
      });
      assert.equal(run.code, 0, explain(run));
      assert.equal(run.json.state, "verified", explain(run));
      const rounds = run.json.rounds as { filesChanged: string[] }[];
      assert.deepEqual(rounds.at(-1)?.filesChanged, ["src/add.js"]);
      // The forwarded key reached qwen (every model request carried it) but no log or output.
      assert.ok(chat.requests.length >= 2, explain(run));
      for (const r of chat.requests) assert.equal(r.authorization, `Bearer ${CHAT_API_KEY}`);
      assert.deepEqual(run.leaks, []);
      assert.equal(run.server.requests.length, 0, "nothing went to the other scripted server");
    } finally {
      await chat.close();
    }
  },
});
