// ACP terminals as Zed runs them (issue 21 §2), against the raw JSON-RPC agent
// (tests/fixtures/acp_agent.mjs, mode `terminals`), unconfined and in the
// agent's real bwrap sandbox: a command line naming a path runs through the
// shell (claude-code-acp sends `node --test test/calc.test.js` as one
// command, which once exited 127 with no output), `args` are appended quoted,
// `env` is honoured, stderr is in the output, `outputByteLimit` keeps the last
// bytes, and an exit code and a signal are told apart. Also: a JSON-RPC error
// from the agent prints as one line with its cause and its real class.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { acpBackend } from "../../../adapters/backends/acp_backend.ts";
import type { AgentTask, BackendResult } from "../../../adapters/backends/types.ts";
import { agentProfile } from "../../../adapters/sandbox/agent_profile.ts";
import { findOnPath } from "../../../adapters/sandbox/bwrap.ts";
import { NO_SANDBOX, type SandboxProfile } from "../../../adapters/sandbox/profile.ts";
import { NODE } from "../../golden/cli_harness.ts";

const FIXTURES = fileURLToPath(new URL("../../fixtures/", import.meta.url));
const AGENT = join(FIXTURES, "acp_agent.mjs");
const BWRAP = findOnPath("bwrap");
if (BWRAP === null) console.log("acp_terminal_test: bwrap not on PATH; the confined variant skips");

interface Noted {
  params: Record<string, unknown>;
  exit?: { exitCode: number | null; signal: string | null };
  output?: { output: string; truncated: boolean };
  error?: { message: string };
}

async function play(
  mode: string,
  confined: boolean,
  env: Record<string, string>,
): Promise<{ result: BackendResult; notes: { what: string; value: Noted }[] }> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-acp-term-" }));
  try {
    const wt = join(root, "wt");
    mkdirSync(join(wt, "test"), { recursive: true });
    mkdirSync(join(root, "scratch"));
    writeFileSync(
      join(wt, "test/calc.test.js"),
      'import test from "node:test";\nimport assert from "node:assert";\n' +
        'test("adds", () => assert.equal(1 + 2, 3));\n',
    );
    const report = join(root, "scratch/report.jsonl");
    const sandbox: SandboxProfile = confined
      ? agentProfile({
        worktree: wt,
        scratch: join(root, "scratch"),
        home: join(root, "home"),
        readOnly: [FIXTURES],
      })
      : NO_SANDBOX;
    const task: AgentTask = {
      taskId: "t-term",
      attempt: 0,
      goal: "terminals",
      worktree: wt,
      allowedRoots: ["**"],
      forbiddenPaths: [],
      maxSeconds: 120,
      maxOutputMb: 10,
    };
    const result = await acpBackend({
      argv: [NODE!, AGENT],
      sandbox,
      env: { VOUCH_ACP_MODE: mode, VOUCH_ACP_REPORT: report, ...env },
    }).run(task, { signal: new AbortController().signal, emit: () => {} });
    let notes: { what: string; value: Noted }[] = [];
    try {
      notes = readFileSync(report, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    } catch { /* the agent wrote nothing */ }
    return { result, notes };
  } finally {
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
}

const TERMINALS = [
  // claude-code-acp's form: one shell line, env CLAUDECODE=1, outputByteLimit 32000.
  {
    command: "node --test test/calc.test.js",
    env: [{ name: "CLAUDECODE", value: "1" }],
    outputByteLimit: 32000,
  },
  { command: "printf", args: ["%s|", "a b", "it's", "$HOME"] },
  { command: 'echo "$VOUCH_T:$CLAUDECODE"', env: [{ name: "VOUCH_T", value: "from env's" }] },
  { command: "cat test/calc.test.js >/dev/null; echo to-stderr >&2" },
  { command: "exit 3" },
  { command: "kill -SEGV $$" },
  {
    command: "head -c 100000 /dev/zero | tr '\\0' a; echo; echo tail-end",
    outputByteLimit: 1000,
  },
  { command: "true", env: [{ name: "NOT=OK", value: "x" }] },
];

for (const confined of [false, true]) {
  Deno.test({
    name: `acp terminals run as Zed runs them (${confined ? "bwrap" : "none"})`,
    ignore: NODE === null || (confined && BWRAP === null),
    fn: async () => {
      const { result, notes } = await play("terminals", confined, {
        VOUCH_ACP_TERMINALS: JSON.stringify(TERMINALS),
      });
      assert.equal(result.status, "ok", JSON.stringify(result.failure));
      const t = notes.filter((n) => n.what === "terminal").map((n) => n.value);
      assert.equal(t.length, TERMINALS.length);
      const [nodeTest, printf, env, stderr, exit3, segv, long, badEnv] = t as Noted[];
      assert.deepEqual(nodeTest!.exit, { exitCode: 0, signal: null }, JSON.stringify(nodeTest));
      assert.match(nodeTest!.output!.output, /# pass 1/);
      assert.equal(printf!.output!.output, "a b|it's|$HOME|");
      assert.equal(env!.output!.output, "from env's:\n");
      assert.equal(stderr!.output!.output, "to-stderr\n");
      assert.deepEqual(exit3!.exit, { exitCode: 3, signal: null });
      assert.deepEqual(segv!.exit, { exitCode: null, signal: "SIGSEGV" });
      assert.equal(long!.output!.truncated, true);
      assert.ok(new TextEncoder().encode(long!.output!.output).length <= 1000);
      assert.match(long!.output!.output, /^a+\ntail-end\n$/);
      assert.match(badEnv!.error!.message, /refused by vouch: bad environment variable name/);
      assert.deepEqual(result.commandsRun.slice(0, 2), [
        "node --test test/calc.test.js",
        "printf '%s|' 'a b' 'it'\\''s' '$HOME'",
      ]);
    },
  });
}

Deno.test({
  name: "acp: a JSON-RPC error from the agent is one line with its cause and its real class",
  ignore: NODE === null,
  fn: async () => {
    const { result } = await play("autherror", false, {});
    assert.equal(result.status, "error");
    assert.equal(result.failure?.code, "config", JSON.stringify(result.failure));
    assert.equal(
      result.failure?.message,
      "acp: session/new failed: Authentication required: API key is missing (set GEMINI_API_KEY) (JSON-RPC -32000)",
    );
    assert.doesNotMatch(result.failure!.message, /object Object|\n/);
  },
});
