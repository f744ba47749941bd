// `vouch run`'s backend: which variables reach the real CLIs (by name), the
// --agent-env / --progress flags, and the config section applied to the argv.
import assert from "node:assert/strict";
import { UsageError } from "../../../cli/command.ts";
import { parseRunArgs } from "../../../cli/commands/run_args.ts";
import { forwardedEnvNames } from "../../../cli/commands/run_backend.ts";
import { CLAUDE_PROVIDER_ENV } from "../../../adapters/backends/claude_backend.ts";
import { codexArgv } from "../../../adapters/backends/codex_backend.ts";

const none = { path: null, codex: {}, claude: {} };

Deno.test("run: each CLI gets its well-known provider variables, the config's names and --agent-env", () => {
  const claude = forwardedEnvNames("claude", none, []);
  for (
    const name of [
      "ANTHROPIC_BASE_URL",
      "ANTHROPIC_AUTH_TOKEN",
      "ANTHROPIC_API_KEY",
      "CLAUDE_CODE_USE_BEDROCK",
    ]
  ) {
    assert.ok(claude.includes(name), name);
  }
  assert.ok(!claude.includes("OPENAI_API_KEY"), "a CLI gets only its own provider's variables");
  const codex = forwardedEnvNames("codex", {
    ...none,
    codex: { env: ["MY_GATEWAY_KEY"] },
  }, ["EXTRA_TOKEN"]);
  for (const name of ["OPENAI_BASE_URL", "CODEX_HOME", "MY_GATEWAY_KEY", "EXTRA_TOKEN"]) {
    assert.ok(codex.includes(name), name);
  }
  assert.ok(!codex.includes("ANTHROPIC_API_KEY"));
  assert.deepEqual(forwardedEnvNames("command", none, ["A_B"]), ["A_B"]);
  assert.equal(new Set(claude).size, claude.length);
  assert.equal(claude.length, new Set([...CLAUDE_PROVIDER_ENV]).size);
});

Deno.test("run: --agent-env takes names only (a value is refused and never echoed), --progress modes", () => {
  const args = parseRunArgs(["--goal", "g", "--agent-env", "A_TOKEN", "--agent-env", "B"]);
  assert.deepEqual(args.agentEnv, ["A_TOKEN", "B"]);
  assert.equal(args.progress, "plain");
  assert.equal(parseRunArgs(["--goal", "g", "--json"]).progress, "none");
  assert.equal(parseRunArgs(["--goal", "g", "--json", "--progress", "json"]).progress, "json");
  assert.throws(() => parseRunArgs(["--goal", "g", "--progress", "loud"]), UsageError);
  assert.throws(() => parseRunArgs(["--goal", "g", "--agent-env", "LD_PRELOAD"]), UsageError);
  try {
    parseRunArgs(["--goal", "g", "--agent-env", "OPENAI_API_KEY=sk-secret-value"]);
    assert.fail("a NAME=value was accepted");
  } catch (error) {
    assert.ok(error instanceof UsageError);
    assert.ok(!error.message.includes("sk-secret-value"), error.message);
  }
});

Deno.test("run: the config section's model and args reach the codex argv, quiet overrides first", () => {
  const argv = codexArgv({ worktree: "/w" }, {
    model: "gpt-5.5",
    extraArgs: ["--add-dir=/opt"],
    sandboxMode: "danger-full-access",
  });
  assert.ok(argv.includes("--model=gpt-5.5"));
  assert.equal(argv[argv.indexOf("--sandbox") + 1], "danger-full-access");
  assert.deepEqual(argv.slice(-2), ["--add-dir=/opt", "-"]);
  assert.ok(argv.includes("analytics.enabled=false"));
});

Deno.test("run: --egress-allow hosts, --agent-network host|filtered, --mcp-config only with acp:", () => {
  const args = parseRunArgs([
    "--goal",
    "g",
    "--egress-allow",
    "pypi.org",
    "--egress-allow",
    "127.0.0.1:8080",
    "--egress-allow",
    "*.example.com",
  ]);
  assert.deepEqual(args.egressAllow, [
    { host: "pypi.org", port: 443 },
    { host: "127.0.0.1", port: 8080 },
    { host: "*.example.com", port: 443 },
  ]);
  assert.equal(args.agentNetwork, "filtered");
  assert.equal(parseRunArgs(["--goal", "g", "--agent-network", "host"]).agentNetwork, "host");
  for (
    const bad of [
      ["--egress-allow", "http://x.com/"],
      ["--egress-allow", "x.com:99999"],
      ["--agent-network", "open"],
      ["--mcp-config", "/tmp/mcp.json"],
    ]
  ) {
    assert.throws(() => parseRunArgs(["--goal", "g", ...bad]), UsageError, bad.join(" "));
  }
  const acp = parseRunArgs([
    "--goal",
    "g",
    "--backend",
    "acp:agent",
    "--mcp-config",
    "/tmp/m.json",
  ]);
  assert.equal(acp.mcpConfig, "/tmp/m.json");
});
