// The user's agent-CLI settings file: where it is read from, what it may say.
import assert from "node:assert/strict";
import {
  AgentCliConfigError,
  loadAgentCliConfig,
} from "../../../adapters/backends/agent_cli_config.ts";

async function withFile(text: string, fn: (path: string, dir: string) => void): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/config.json`, text);
    fn(`${dir}/config.json`, dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("agent config: per-backend model, env names, args and executable", async () => {
  const text = JSON.stringify({
    backends: {
      codex: { model: "gpt-5.5", env: ["MY_GATEWAY_KEY"], args: ["--add-dir=/opt"] },
      claude: {
        executable: "/opt/claude",
        env: ["ANTHROPIC_BEDROCK_BASE_URL"],
        tools: ["Read", "Edit", "Bash", "mcp__docs__search"],
      },
    },
    other: { kept: "for other sections" },
  });
  await withFile(text, (path, dir) => {
    const explicit = loadAgentCliConfig(path, {});
    assert.equal(explicit.path, path);
    assert.deepEqual(explicit.codex, {
      model: "gpt-5.5",
      env: ["MY_GATEWAY_KEY"],
      args: ["--add-dir=/opt"],
    });
    assert.equal(explicit.claude.executable, "/opt/claude");
    assert.deepEqual(explicit.claude.tools, ["Read", "Edit", "Bash", "mcp__docs__search"]);
    // VOUCH_CONFIG, then XDG_CONFIG_HOME/vouch/config.json.
    assert.equal(loadAgentCliConfig(null, { VOUCH_CONFIG: path }).codex.model, "gpt-5.5");
    Deno.mkdirSync(`${dir}/vouch`);
    Deno.copyFileSync(path, `${dir}/vouch/config.json`);
    assert.equal(loadAgentCliConfig(null, { XDG_CONFIG_HOME: dir }).codex.model, "gpt-5.5");
  });
});

Deno.test("agent config: a missing default file is no settings; a missing explicit one, bad JSON, unknown fields and injection names are refused", async () => {
  assert.equal(loadAgentCliConfig(null, { XDG_CONFIG_HOME: "/nonexistent" }).path, null);
  assert.throws(
    () => loadAgentCliConfig("/nonexistent/v.json", {}),
    (e: unknown) => e instanceof AgentCliConfigError && e.code === "agent_config_unreadable",
  );
  const bad = [
    "{not json",
    JSON.stringify({ backends: { codex: { modle: "x" } } }),
    JSON.stringify({ backends: { aider: {} } }),
    JSON.stringify({ backends: { claude: { env: ["LD_PRELOAD"] } } }),
    JSON.stringify({ backends: { claude: { tools: ["Bash,WebFetch"] } } }),
    JSON.stringify({ backends: { claude: { env: ["ANTHROPIC_API_KEY=sk-ant-x"] } } }),
  ];
  for (const text of bad) {
    await withFile(text, (path) => {
      assert.throws(
        () => loadAgentCliConfig(path, {}),
        (e: unknown) =>
          e instanceof AgentCliConfigError && e.code === "agent_config_invalid" &&
          !e.message.includes("sk-ant-x"),
        text,
      );
    });
  }
});
