/**
 * Red team, issue 21 §3: the commands an agent has vouch run for it (the
 * native loop's `run_command`, ACP `terminal/create`) get no network at all,
 * even though the agent process itself shares the host network for its model.
 * A scripted model (and a scripted ACP agent) asks for a command that connects
 * to a loopback TCP server this test starts: the server must see no
 * connection. The control run shows the probe does reach the server from the
 * agent's own profile, so a silent pass is impossible.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { acpBackend } from "../../../adapters/backends/acp_backend.ts";
import { openaiBackend } from "../../../adapters/backends/openai_backend.ts";
import type { AgentTask } from "../../../adapters/backends/types.ts";
import { runProcess } from "../../../adapters/process/run.ts";
import { agentProfile } from "../../../adapters/sandbox/agent_profile.ts";
import { findOnPath } from "../../../adapters/sandbox/bwrap.ts";
import { CHAT_API_KEY, startChatServer } from "../../fixtures/chat_server.ts";
import { NODE } from "../../golden/cli_harness.ts";

const BWRAP = findOnPath("bwrap");
const PYTHON = findOnPath("python3");
const skip = BWRAP === null ? "bwrap not on PATH" : PYTHON === null ? "python3 not on PATH" : null;
if (skip !== null) console.log(`SKIP tool network red-team: ${skip}`);
const FIXTURES = fileURLToPath(new URL("../../fixtures/", import.meta.url));

/** A loopback TCP server counting the connections it accepts. */
async function listener(): Promise<
  { port: number; seen: () => number; close: () => Promise<void> }
> {
  let seen = 0;
  const server: Server = createServer((socket) => {
    seen++;
    socket.on("error", () => {});
    socket.end("hello from the host\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    seen: () => seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const probe = (port: number) =>
  `python3 -c "import socket; s = socket.create_connection(('127.0.0.1', ${port}), 5); ` +
  `print('CONNECTED', s.recv(100))"`;
const bashProbe = (port: number) =>
  `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port} && echo CONNECTED'`;

async function tree() {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-rt-net-" }));
  mkdirSync(join(root, "wt"));
  mkdirSync(join(root, "scratch"));
  const task: AgentTask = {
    taskId: "t-net",
    attempt: 0,
    goal: "reach the network",
    worktree: join(root, "wt"),
    allowedRoots: ["**"],
    forbiddenPaths: [],
    maxSeconds: 120,
    maxOutputMb: 10,
  };
  const profile = agentProfile({
    worktree: task.worktree,
    scratch: join(root, "scratch"),
    home: join(root, "home"),
    readOnly: [FIXTURES],
  });
  return { root, task, profile, close: () => Deno.remove(root, { recursive: true }) };
}

Deno.test({
  name: "red team: the native loop's run_command cannot reach a loopback server of the host",
  ignore: skip !== null,
  fn: async () => {
    const target = await listener();
    const t = await tree();
    const chat = await startChatServer([
      { calls: [{ name: "run_command", args: { command: probe(target.port) } }] },
      { calls: [{ name: "run_command", args: { command: bashProbe(target.port) } }] },
      { say: "could not exfiltrate" },
    ]);
    try {
      // Control: the agent's own profile shares the network, and the probe gets through.
      const control = await runProcess({
        argv: ["/bin/sh", "-c", probe(target.port)],
        cwd: t.task.worktree,
        sandbox: t.profile,
        timeoutMs: 60_000,
      });
      assert.match(control.stdout.head, /CONNECTED/, control.stderr.head);
      assert.equal(target.seen(), 1);

      const result = await openaiBackend({
        model: "scripted-model",
        baseUrl: chat.baseUrl,
        apiKey: CHAT_API_KEY,
        sandbox: t.profile,
      }).run(t.task, { signal: new AbortController().signal, emit: () => {} });
      assert.equal(result.status, "ok", JSON.stringify(result.failure));
      assert.equal(target.seen(), 1, "a tool command reached the host's loopback server");
      const answers = (chat.requests.at(-1)?.body.messages ?? [])
        .filter((m) => m.role === "tool").map((m) => String(m.content));
      assert.equal(answers.length, 2);
      for (const a of answers) {
        assert.doesNotMatch(a, /CONNECTED/);
        assert.match(a, /^exit code [1-9]/);
        assert.match(a, /the network is unavailable to run_command/, a);
      }
      assert.match(answers[0]!, /Connection refused|Network is unreachable/);
    } finally {
      await chat.close();
      await target.close();
      await t.close();
    }
  },
});

Deno.test({
  name: "red team: an ACP terminal command cannot reach a loopback server of the host",
  ignore: skip !== null || NODE === null,
  fn: async () => {
    const target = await listener();
    const t = await tree();
    const report = join(t.root, "scratch/report.jsonl");
    try {
      const result = await acpBackend({
        argv: [NODE!, join(FIXTURES, "acp_agent.mjs")],
        sandbox: t.profile,
        env: {
          VOUCH_ACP_MODE: "terminals",
          VOUCH_ACP_REPORT: report,
          VOUCH_ACP_TERMINALS: JSON.stringify([
            { command: probe(target.port) },
            { command: bashProbe(target.port) },
          ]),
        },
      }).run(t.task, { signal: new AbortController().signal, emit: () => {} });
      assert.equal(result.status, "ok", JSON.stringify(result.failure));
      assert.equal(target.seen(), 0, "a terminal command reached the host's loopback server");
      const terms = readFileSync(report, "utf8").trim().split("\n").map((l) => JSON.parse(l))
        .filter((n) => n.what === "terminal").map((n) => n.value);
      assert.equal(terms.length, 2);
      for (const term of terms) {
        assert.notEqual(term.exit.exitCode, 0, JSON.stringify(term));
        assert.doesNotMatch(term.output.output, /CONNECTED/);
      }
      assert.match(terms[0].output.output, /Connection refused|Network is unreachable/);
    } finally {
      await target.close();
      await t.close();
    }
  },
});
