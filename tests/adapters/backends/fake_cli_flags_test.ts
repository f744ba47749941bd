// The fake agent executables accept exactly the real flags vouch passes and
// reproduce the real CLIs' argument errors.
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { claudeArgv } from "../../../adapters/backends/claude_backend.ts";
import { codexArgv } from "../../../adapters/backends/codex_backend.ts";
import { runProcess } from "../../../adapters/process/run.ts";

const BIN = fileURLToPath(new URL("../../fixtures/bin/", import.meta.url));

async function run(argv: string[], stdin = "do it (attempt 1)", env: Record<string, string> = {}) {
  const cwd = await Deno.makeTempDir();
  try {
    return await runProcess({
      argv,
      cwd,
      stdin: new TextEncoder().encode(stdin),
      env,
      timeoutMs: 20_000,
    });
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
}

Deno.test("fake codex: vouch's argv is accepted; unknown flags, missing --json and bad sandbox are refused", async () => {
  const cwd = "/tmp";
  const ok = await run(codexArgv({ worktree: cwd }, { executable: join(BIN, "codex") }), "x", {
    VOUCH_FAKE_AGENT_MODE: "claims-done",
  });
  assert.equal(ok.exitCode, 0, ok.stderr.head);
  assert.match(ok.stdout.head, /"type":"turn.completed"/);
  const unknown = await run([join(BIN, "codex"), "exec", "--json", "--bogus", "-"]);
  assert.equal(unknown.exitCode, 2);
  assert.match(unknown.stderr.head, /unexpected argument '--bogus'/);
  const noJson = await run([join(BIN, "codex"), "exec", "-"]);
  assert.notEqual(noJson.exitCode, 0);
  const badSandbox = await run([join(BIN, "codex"), "exec", "--json", "--sandbox", "yolo", "-"]);
  assert.match(badSandbox.stderr.head, /invalid value 'yolo'/);
  const untrusted = await run([join(BIN, "codex"), "exec", "--json", "-"]);
  assert.match(untrusted.stderr.head, /Not inside a trusted directory/);
});

Deno.test("fake claude: vouch's argv is accepted; stream-json without --verbose fails like the real CLI", async () => {
  const ok = await run(claudeArgv({ executable: join(BIN, "claude") }), "x", {
    VOUCH_FAKE_AGENT_MODE: "claims-done",
  });
  assert.equal(ok.exitCode, 0, ok.stderr.head);
  const init = JSON.parse(ok.stdout.head.split("\n")[0]!);
  assert.equal(init.type, "system");
  assert.equal(init.permissionMode, "acceptEdits");
  assert.deepEqual(init.tools.includes("WebFetch"), false);
  const noVerbose = await run([join(BIN, "claude"), "-p", "--output-format", "stream-json"]);
  assert.equal(noVerbose.exitCode, 1);
  assert.match(
    noVerbose.stderr.head,
    /When using --print, --output-format=stream-json requires --verbose/,
  );
  const unknown = await run([join(BIN, "claude"), "-p", "--nope"]);
  assert.match(unknown.stderr.head, /unknown option '--nope'/);
  const silent = await run(claudeArgv({ executable: join(BIN, "claude") }), "x", {
    VOUCH_FAKE_AGENT_MODE: "crash-silent",
  });
  assert.match(silent.stdout.head, /"num_turns":0/);
});

Deno.test("probeAgentCli: the fakes report their versions; a missing CLI says why", async () => {
  const { probeAgentCli } = await import("../../../adapters/backends/mod.ts");
  const codex = await probeAgentCli("codex", join(BIN, "codex"));
  assert.equal(codex.available, true);
  assert.equal(codex.version, "codex-cli 0.0.0-fake");
  const claude = await probeAgentCli("claude", join(BIN, "claude"));
  assert.equal(claude.version, "0.0.0-fake (Claude Code)");
  const missing = await probeAgentCli("codex", "/nonexistent/codex");
  assert.equal(missing.available, false);
  assert.match(missing.reason ?? "", /no such file/);
});
