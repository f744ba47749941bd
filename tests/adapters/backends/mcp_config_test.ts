// `--mcp-config`: the {"mcpServers": {...}} file Claude and Zed write, checked
// at the byte boundary: every refusal is an McpConfigError with a stable code,
// the accepted shape becomes ACP session/new entries in the file's order.
import assert from "node:assert/strict";
import {
  loadMcpConfig,
  mcpServerOfTool,
  parseMcpConfig,
} from "../../../adapters/backends/mcp_config.ts";

const code = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return "accepted";
};

Deno.test("mcp config: the Claude/Zed shape becomes ACP entries, in order", () => {
  const servers = parseMcpConfig(JSON.stringify({
    mcpServers: {
      b: { command: "/bin/b", args: ["--x"], env: { K: "v" } },
      a: { type: "stdio", command: "a" },
    },
    otherClientSetting: true,
  }));
  assert.deepEqual(servers, [
    { name: "b", command: "/bin/b", args: ["--x"], env: [{ name: "K", value: "v" }] },
    { name: "a", command: "a", args: [], env: [] },
  ]);
});

Deno.test("mcp config: anything else is refused with a stable code", () => {
  for (
    const [text, why] of <[string, string][]> [
      ["not json", "syntax"],
      ["[]", "not an object"],
      ['{"mcpServers": {"a b": {"command": "x"}}}', "a name with a space"],
      ['{"mcpServers": {"a": {"command": ""}}}', "an empty command"],
      ['{"mcpServers": {"a": {"command": "x", "cwd": "/"}}}', "an unknown field"],
      ['{"mcpServers": {"a": {"command": "x", "env": {"K": 1}}}}', "a non-string env value"],
      ['{"mcpServers": {"a": {"command": "x", "env": {"A=B": "1"}}}}', "a bad env name"],
      ['{"mcpServers": {"a": {"command": "x", "args": "--flag"}}}', "args as a string"],
      ['{"mcpServers": {"web": {"type": "sse", "url": "https://x"}}}', "a remote server"],
    ]
  ) {
    assert.equal(code(() => parseMcpConfig(text)), "mcp_config_invalid", why);
  }
  assert.equal(code(() => loadMcpConfig("/nonexistent/mcp.json")), "mcp_config_unreadable");
});

Deno.test("mcp config: only a configured server's tools are recognised", () => {
  assert.equal(mcpServerOfTool("mcp__probe__probe", ["probe"]), true);
  assert.equal(mcpServerOfTool("probe__probe", ["probe"]), true);
  assert.equal(mcpServerOfTool("mcp__probe2__x", ["probe"]), false);
  assert.equal(mcpServerOfTool("mcp__probe__x", []), false);
  assert.equal(mcpServerOfTool(undefined, ["probe"]), false);
});
