// Stream fidelity of the codex/claude parsers on lines the real CLIs print
// (codex-cli 0.171.0, Claude Code 2.1.332, recorded against the scripted
// model server), and the live runner: events while the process runs, early
// stop on an authentication error.
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type AgentTask,
  type BackendEvent,
  claudeBackend,
  ClaudeStreamParser,
  codexBackend,
  CodexStreamParser,
} from "../../../adapters/backends/mod.ts";

function feed(p: { accept(l: never): BackendEvent[] }, lines: string[]): BackendEvent[] {
  return lines.flatMap((text, i) =>
    p.accept({ number: i + 1, text, tooLong: false, unterminated: false } as never)
  );
}

Deno.test("codex: a top-level Reconnecting... error followed by turn.completed is a retry, not a failure", () => {
  const p = new CodexStreamParser();
  const events = feed(p, [
    '{"type":"thread.started","thread_id":"t"}',
    '{"type":"turn.started"}',
    '{"type":"error","message":"Reconnecting... 1/1 (stream disconnected before completion: error decoding response body)"}',
    '{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"done"}}',
    '{"type":"turn.completed","usage":{"input_tokens":403,"cached_input_tokens":100,"cache_write_input_tokens":4,"output_tokens":60,"reasoning_output_tokens":22}}',
  ]);
  const o = p.outcome();
  assert.equal(o.success, true, o.failureReason);
  assert.equal(o.reconnects, 1);
  const retry = events.find((e) => e.kind === "retry");
  assert.deepEqual(retry && { attempt: retry.attempt, max: retry.maxAttempts }, {
    attempt: 1,
    max: 1,
  });
  assert.equal(events.some((e) => e.kind === "error"), false);
  // Every usage field is kept, including the newer ones.
  assert.deepEqual(o.usage, {
    inputTokens: 403,
    cachedInputTokens: 100,
    cacheWriteInputTokens: 4,
    outputTokens: 60,
    reasoningOutputTokens: 22,
  });
  // Any other top-level error stays fatal.
  const q = new CodexStreamParser();
  feed(q, [
    '{"type":"error","message":"unexpected status 401 Unauthorized: Incorrect API key provided"}',
    '{"type":"turn.completed"}',
  ]);
  assert.equal(q.outcome().success, false);
  assert.match(q.outcome().failureReason, /401 Unauthorized/);
});

Deno.test("codex: a failed file_change is reported as failed, not as a change; commands show when they start", () => {
  const p = new CodexStreamParser();
  const events = feed(p, [
    '{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -lc ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}',
    '{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -lc ls","aggregated_output":"a\\n","exit_code":0,"status":"completed"}}',
    '{"type":"item.completed","item":{"id":"item_2","type":"file_change","changes":[{"path":"/w/a.txt","kind":"update"}],"status":"failed"}}',
    '{"type":"item.completed","item":{"id":"item_3","type":"file_change","changes":[{"path":"/w/b.txt","kind":"add"}],"status":"completed"}}',
    '{"type":"turn.completed"}',
  ]);
  const changes = events.filter((e) => e.kind === "file_change");
  assert.deepEqual(changes.map((e) => [e.path, e.status]), [["/w/a.txt", "failed"], [
    "/w/b.txt",
    "completed",
  ]]);
  assert.deepEqual(p.outcome().filesChanged, ["/w/b.txt"]);
  assert.deepEqual(p.outcome().failedFileChanges, ["/w/a.txt"]);
  const commands = events.filter((e) => e.kind === "command");
  assert.deepEqual(commands.map((e) => e.status), ["in_progress", "completed"]);
  assert.deepEqual(p.outcome().commands, ["/bin/bash -lc ls"]);
});

const INIT =
  '{"type":"system","subtype":"init","cwd":"/w","session_id":"s","tools":["Bash","Edit","Glob","Grep","NotebookEdit","Read","Write"],"model":"claude-opus-5-5","permissionMode":"acceptEdits","apiKeySource":"ANTHROPIC_API_KEY"}';

Deno.test("claude: api_retry becomes progress; a 401 asks to stop at once, a 500 does not", () => {
  const p = new ClaudeStreamParser();
  const events = feed(p, [
    INIT,
    '{"type":"system","subtype":"api_retry","attempt":1,"max_retries":3,"retry_delay_ms":518,"error_status":500,"error":"server_error","session_id":"s"}',
  ]);
  const retry = events.find((e) => e.kind === "retry");
  assert.equal(retry?.kind === "retry" && retry.httpStatus, 500);
  assert.match(retry?.kind === "retry" ? retry.message : "", /HTTP 500\): server_error/);
  assert.equal(p.stopRequest(), null);
  assert.equal(p.outcome().tools?.length, 7);
  assert.deepEqual(p.outcome().missingTools, []);
  feed(p, [
    '{"type":"system","subtype":"api_retry","attempt":2,"max_retries":3,"retry_delay_ms":1056,"error_status":401,"error":"authentication_failed","session_id":"s"}',
  ]);
  assert.deepEqual(p.stopRequest(), {
    code: "config",
    message: "claude: authentication failed (HTTP 401): authentication_failed",
  });
  assert.equal(p.outcome().retries, 2);
});

Deno.test("claude: an init tool list with a tool vouch did not allow stops the run; stale allowed names are reported missing", () => {
  const p = new ClaudeStreamParser(["Read", "Edit", "Bash", "MultiEdit", "LS"]);
  feed(p, [
    '{"type":"system","subtype":"init","session_id":"s","tools":["Task","Bash","Edit","Read","Workflow"]}',
  ]);
  assert.equal(p.stopRequest()?.code, "config");
  assert.equal(p.stopRequest()?.message, "claude offers tools vouch did not allow: Task, Workflow");
  assert.deepEqual(p.outcome().missingTools, ["MultiEdit", "LS"]);
});

Deno.test("claude: cache_creation_input_tokens are kept as cache writes", () => {
  const p = new ClaudeStreamParser();
  feed(p, [
    INIT,
    '{"type":"result","subtype":"success","is_error":false,"num_turns":3,"result":"ok","total_cost_usd":0.0024,"usage":{"input_tokens":306,"cache_creation_input_tokens":12,"cache_read_input_tokens":21,"output_tokens":60}}',
  ]);
  assert.deepEqual(p.outcome().usage, {
    costUsd: 0.0024,
    inputTokens: 306,
    outputTokens: 60,
    cachedInputTokens: 21,
    cacheWriteInputTokens: 12,
  });
});

async function withScript(body: string, fn: (exe: string, task: AgentTask) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "vouch-live-" });
  try {
    const exe = join(dir, "agent");
    await Deno.writeTextFile(exe, `#!/bin/sh\ncat > /dev/null\n${body}\n`);
    await Deno.chmod(exe, 0o755);
    await fn(exe, {
      taskId: "t",
      attempt: 1,
      goal: "g",
      worktree: dir,
      allowedRoots: [],
      forbiddenPaths: [],
      maxSeconds: 30,
      maxOutputMb: 4,
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("agent CLI runner: events reach the context while the process still runs", async () => {
  const body = [
    `echo '{"type":"thread.started","thread_id":"t"}'`,
    `echo '{"type":"item.started","item":{"id":"i","type":"command_execution","command":"ls","status":"in_progress"}}'`,
    "sleep 1.5",
    `echo '{"type":"turn.completed"}'`,
  ].join("\n");
  await withScript(body, async (exe, task) => {
    const seen: { kind: string; at: number }[] = [];
    const started = Date.now();
    const r = await codexBackend({ executable: exe }).run(task, {
      signal: new AbortController().signal,
      emit: (e) => seen.push({ kind: e.kind, at: Date.now() - started }),
    });
    const ended = Date.now() - started;
    assert.equal(r.status, "ok", r.failure?.message);
    const command = seen.find((e) => e.kind === "command");
    assert.ok(command !== undefined);
    // Shown about 1.5 s before the process ended, not after it.
    assert.ok(command.at < ended - 1000, `command at ${command.at} ms, run ended at ${ended} ms`);
  });
});

Deno.test("agent CLI runner: an authentication error stops claude at once with the cause", async () => {
  const body = [
    `echo '${INIT}'`,
    `echo '{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":500,"error_status":401,"error":"authentication_failed"}'`,
    "sleep 30",
  ].join("\n");
  await withScript(body, async (exe, task) => {
    const started = Date.now();
    const r = await claudeBackend({ executable: exe, graceMs: 200 }).run(task, {
      signal: new AbortController().signal,
      emit: () => {},
    });
    assert.ok(Date.now() - started < 10_000, "stopped early, not after the retries");
    assert.equal(r.status, "error");
    assert.equal(r.failure?.code, "config");
    assert.equal(r.failure?.retryable, false);
    assert.equal(
      r.failure?.message,
      "claude: authentication failed (HTTP 401): authentication_failed",
    );
  });
});

Deno.test("agent CLI runner: a CLI that prints no stream has its last stderr line as the cause", async () => {
  await withScript(
    "echo 'warming up' >&2; echo 'fatal: no config found' >&2; exit 2",
    async (exe, task) => {
      const r = await codexBackend({ executable: exe }).run(task, {
        signal: new AbortController().signal,
        emit: () => {},
      });
      assert.equal(r.status, "error");
      assert.equal(
        r.failure?.message,
        "codex reported failure: stream ended without turn.completed (exit 2): fatal: no config found",
      );
    },
  );
});
