// MCP passthrough with the REAL claude-code-acp (issue 21 §9): the user's MCP
// servers from `--mcp-config FILE` (the {"mcpServers": {...}} shape Claude and
// Zed use) are offered in ACP `session/new`; the agent starts them itself, so
// each runs inside the agent's sandbox. The scripted model calls the probe
// server's tool: its answer (with the env the config gave it) reaches the
// model, while the server reaches neither a loopback port of the host nor a
// host file outside the sandbox; the honest fix that follows is VERIFIED.
// The same run proves claude-code-acp's egress allowlist (issue 21 §3): its
// model calls pass vouch's proxy, the only host it reaches is the model's
// (its call home to api.anthropic.com is refused and recorded).
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:net";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { AGENT_CLI_BIN, explain, NODE, runRealCli } from "./_harness.ts";

const PROBE = fileURLToPath(new URL("../../fixtures/mcp_probe/server.mjs", import.meta.url));
const present = existsSync(`${AGENT_CLI_BIN}/claude-code-acp`) && NODE !== null;

Deno.test({
  name:
    "claude-code-acp (real): a --mcp-config server is offered, runs sandboxed, its tool answers",
  ignore: !present,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "vouch-mcp-" });
    let seen = 0;
    const bait: Server = createServer((s) => (seen++, s.destroy()));
    await new Promise<void>((ok) => bait.listen(0, "127.0.0.1", ok));
    try {
      const secret = `${dir}/secret.txt`;
      await Deno.writeTextFile(secret, "HOST-SECRET\n");
      await Deno.writeTextFile(
        `${dir}/mcp.json`,
        JSON.stringify({
          mcpServers: {
            probe: {
              command: NODE,
              args: [PROBE],
              env: {
                PROBE_TOKEN: "from-config",
                BAIT_PORT: String((bait.address() as AddressInfo).port),
                SECRET_FILE: secret,
              },
            },
          },
        }),
      );
      const run = await runRealCli({
        backend: "acp:claude-code-acp",
        flags: [
          "--agent-env",
          "ANTHROPIC_BASE_URL",
          "--agent-env",
          "ANTHROPIC_API_KEY",
          "--mcp-config",
          `${dir}/mcp.json`,
        ],
        script: [
          { calls: [{ name: "mcp__probe__probe", input: {} }] },
          (ctx) => ({
            calls: [{
              name: "mcp__acp__Edit",
              input: {
                file_path: `${ctx.cwd}/src/add.js`,
                old_string: "return a - b;",
                new_string: "return a + b;",
              },
            }],
          }),
          { text: "Fixed add()." },
        ],
      });
      const offered = run.server.requests.flatMap((r) => r.tools);
      assert.ok(offered.includes("mcp__probe__probe"), `tools offered: ${offered.join(", ")}`);
      const bodies = run.server.requests.map((r) => JSON.stringify(r.body)).join("\n");
      assert.match(bodies, /MCP-PROBE ran token=from-config/, explain(run));
      // Inside the agent's sandbox: no host loopback, no host file.
      assert.match(bodies, /net=ECONNREFUSED secret=ENOENT/, explain(run));
      assert.equal(seen, 0);
      assert.equal(run.code, 0, explain(run));
      assert.equal(run.json.state, "verified", explain(run));
      // Egress: the model host was reached (every scripted turn); whatever else it tried
      // (api.anthropic.com) was refused: nothing but the model host.
      assert.ok(run.server.requests.length >= 3, explain(run));
      const refusals = (run.json.rounds as { refusals?: string[] }[]).flatMap((r) =>
        r.refusals ?? []
      );
      for (const r of refusals) assert.match(r, /^refused network: /, r);
      assert.deepEqual(run.leaks, []);
    } finally {
      await new Promise<void>((ok) => bait.close(() => ok()));
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
