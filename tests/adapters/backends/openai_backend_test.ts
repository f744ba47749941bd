// The native backend against a scripted Chat Completions server on 127.0.0.1:
// an honest fix, refused accesses, malformed tool calls, a model that never
// stops, 401/429/500, a body that is not JSON, the token budget.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openaiBackend } from "../../../adapters/backends/openai_backend.ts";
import type { AgentTask, BackendEvent } from "../../../adapters/backends/types.ts";
import {
  CHAT_API_KEY,
  type ChatServerOptions,
  type ChatStep,
  startChatServer,
} from "../../fixtures/chat_server.ts";

function worktree(): string {
  const dir = mkdtempSync(join(tmpdir(), "vouch-openai-"));
  mkdirSync(join(dir, "src"));
  mkdirSync(join(dir, "test"));
  writeFileSync(join(dir, "src/add.js"), "export const add = (a, b) => a - b;\n");
  writeFileSync(join(dir, "test/add.test.js"), "assert(add(2, 3) === 5);\n");
  return dir;
}

function task(dir: string): AgentTask {
  return {
    taskId: "t-openai",
    attempt: 0,
    goal: "make add add",
    worktree: dir,
    allowedRoots: ["**"],
    forbiddenPaths: ["test/**", ".github/**"],
    maxSeconds: 60,
    maxOutputMb: 10,
  };
}

async function play(
  script: ChatStep[],
  extra: { maxTurns?: number; maxTokens?: number; apiKey?: string } = {},
  serverOptions: ChatServerOptions = {},
) {
  const server = await startChatServer(script, serverOptions);
  const dir = worktree();
  const events: BackendEvent[] = [];
  try {
    const backend = openaiBackend({
      model: "scripted-model",
      baseUrl: server.baseUrl,
      apiKey: extra.apiKey ?? CHAT_API_KEY,
      backoffMs: 10,
      ...(extra.maxTurns !== undefined ? { maxTurns: extra.maxTurns } : {}),
      ...(extra.maxTokens !== undefined ? { maxTokens: extra.maxTokens } : {}),
    });
    const result = await backend.run(task(dir), {
      signal: new AbortController().signal,
      emit: (e) => events.push(e),
    });
    const files = new Map<string, string | null>();
    for (const p of ["src/add.js", "test/add.test.js"]) {
      files.set(p, existsSync(join(dir, p)) ? readFileSync(join(dir, p), "utf8") : null);
    }
    return { result, events, requests: server.requests, file: (p: string) => files.get(p) ?? null };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The text of the tool answers the model received, in order (from the last request). */
function toolAnswers(
  requests: readonly { body: { messages?: readonly { role: string; content: unknown }[] } }[],
) {
  const last = requests.at(-1)?.body.messages ?? [];
  return last.filter((m) => m.role === "tool").map((m) => String(m.content));
}

Deno.test("openai backend: an honest fix reads, writes and runs through vouch's tools", async () => {
  const script: ChatStep[] = [
    { calls: [{ name: "list_files", args: { path: "" } }] },
    { calls: [{ name: "read_file", args: { path: "src/add.js" } }] },
    {
      text: "Fixing it.",
      calls: [{
        name: "write_file",
        args: { path: "src/add.js", content: "export const add = (a, b) => a + b;\n" },
      }],
    },
    { calls: [{ name: "run_command", args: { command: "cat src/add.js; exit 3" } }] },
    { say: "add() now adds." },
  ];
  let seenFile: string | null = null;
  const run = await play(script).then((r) => {
    seenFile = r.file("src/add.js");
    return r;
  });
  assert.equal(run.result.status, "ok");
  assert.equal(run.result.selfClaimedDone, true);
  assert.equal(run.result.summary, "add() now adds.");
  assert.equal(seenFile, "export const add = (a, b) => a + b;\n");
  assert.deepEqual(run.result.commandsRun, ["cat src/add.js; exit 3"]);
  assert.equal(run.result.usage.inputTokens, 500);
  assert.equal(run.result.usage.outputTokens, 100);
  assert.equal(run.requests.length, 5);
  // Every request names the model, offers the four tools and carries the key.
  for (const r of run.requests) {
    assert.equal(r.body.model, "scripted-model");
    assert.equal(r.body.tools?.length, 4);
    assert.equal(r.authorization, `Bearer ${CHAT_API_KEY}`);
  }
  const answers = toolAnswers(run.requests);
  assert.equal(answers[0], "src/\ntest/");
  assert.equal(answers[1], "export const add = (a, b) => a - b;\n");
  assert.match(answers[3]!, /^exit code 3\nexport const add = \(a, b\) => a \+ b;/);
  assert.ok(run.events.some((e) => e.kind === "file_change" && e.path === "src/add.js"));
  assert.ok(run.events.some((e) => e.kind === "command" && e.exitCode === 3));
  assert.equal(run.result.transcript?.bytes !== undefined && run.result.transcript.bytes > 0, true);
});

Deno.test("openai backend: the kernel refuses escaping, protected, secret and linked-out accesses", async () => {
  const outside = mkdtempSync(join(tmpdir(), "vouch-openai-outside-"));
  writeFileSync(join(outside, "data.txt"), "private\n");
  const script: ChatStep[] = [
    { calls: [{ name: "write_file", args: { path: "../escape.txt", content: "x" } }] },
    { calls: [{ name: "write_file", args: { path: join(outside, "abs.txt"), content: "x" } }] },
    { calls: [{ name: "write_file", args: { path: "test/add.test.js", content: "pass" } }] },
    { calls: [{ name: "read_file", args: { path: ".git/config" } }] },
    { calls: [{ name: "write_file", args: { path: ".env", content: "K=1" } }] },
    { calls: [{ name: "run_command", args: { command: `ln -s ${outside} out` } }] },
    { calls: [{ name: "read_file", args: { path: "out/data.txt" } }] },
    { calls: [{ name: "write_file", args: { path: "out/planted.txt", content: "x" } }] },
    { calls: [{ name: "read_file", args: { path: "test/add.test.js" } }] },
    { say: "tried" },
  ];
  try {
    let protectedText: string | null = null;
    const run = await play(script).then((r) => {
      protectedText = r.file("test/add.test.js");
      return r;
    });
    const answers = toolAnswers(run.requests);
    assert.match(answers[0]!, /^refused \(path_rejected\)/);
    assert.match(answers[1]!, /^refused \(path_rejected\)/);
    assert.match(answers[2]!, /^refused \(protected_path\)/);
    assert.match(answers[3]!, /^refused \(path_rejected\)/);
    assert.match(answers[4]!, /^refused \(policy_denied\)/);
    assert.match(answers[6]!, /^refused \(path_rejected\): out is a symbolic link/);
    assert.match(answers[7]!, /^refused \(path_rejected\)/);
    // Reading a protected test is fine; changing it is not.
    assert.equal(answers[8], "assert(add(2, 3) === 5);\n");
    assert.equal(protectedText, "assert(add(2, 3) === 5);\n");
    assert.equal(existsSync(join(outside, "abs.txt")), false);
    assert.equal(existsSync(join(outside, "planted.txt")), false);
    assert.equal(run.result.risks.filter((r) => r.startsWith("refused")).length, 7);
  } finally {
    rmSync(outside, { recursive: true, force: true });
  }
});

Deno.test("openai backend: malformed tool calls are answered as errors and the loop goes on", async () => {
  const run = await play([
    { calls: [{ name: "write_file", args: "{not json" }] },
    { calls: [{ name: "delete_everything", args: {} }] },
    { calls: [{ name: "read_file", args: { file: "src/add.js" } }] },
    { calls: [{ name: "read_file", args: { path: 7 } }] },
    { say: "gave up" },
  ]);
  assert.equal(run.result.status, "ok");
  assert.equal(run.result.protocolIssues, 4);
  const answers = toolAnswers(run.requests);
  assert.match(answers[0]!, /not JSON/);
  assert.match(answers[1]!, /unknown tool "delete_everything"/);
  assert.match(answers[2]!, /bad arguments for read_file/);
  assert.match(answers[3]!, /bad arguments for read_file/);
});

Deno.test("openai backend: a model that never stops calling tools is bounded by maxTurns", async () => {
  const run = await play(
    [{ calls: [{ name: "list_files", args: {} }] }],
    { maxTurns: 4 },
    { whenSpent: "repeat" },
  );
  assert.equal(run.result.status, "error");
  assert.equal(run.result.failure?.code, "limit_exceeded");
  assert.match(run.result.failure?.message ?? "", /still calling tools after 4 turns/);
  assert.equal(run.requests.length, 4);
});

Deno.test("openai backend: 401 stops at once, with the cause", async () => {
  const run = await play([{ say: "never" }], { apiKey: "wrong" });
  assert.equal(run.result.status, "error");
  assert.equal(run.result.failure?.code, "config");
  assert.equal(run.result.failure?.retryable, false);
  assert.match(
    run.result.failure?.message ?? "",
    /refused the credentials \(HTTP 401: scripted 401\)/,
  );
  assert.equal(run.requests.length, 1);
});

Deno.test("openai backend: 429 and 500 are retried with backoff; a persistent 500 fails with the cause", async () => {
  const ok = await play([{ status: 429, retryAfter: 0 }, { status: 500 }, { say: "fine" }]);
  assert.equal(ok.result.status, "ok");
  // 429, 500, "fine" (a text-only first reply: nudged once), then the server's "done".
  assert.equal(ok.requests.length, 4);
  const retries = ok.events.filter((e) => e.kind === "retry");
  assert.deepEqual(retries.map((e) => e.kind === "retry" ? e.httpStatus : null), [429, 500]);

  const down = await play([{ status: 500 }], {}, { whenSpent: "repeat" });
  assert.equal(down.result.status, "error");
  assert.equal(down.result.failure?.code, "execution");
  assert.match(down.result.failure?.message ?? "", /HTTP 500: scripted 500 \(after 4 attempts\)/);
  assert.equal(down.requests.length, 4);
});

Deno.test("openai backend: an answer that is not a chat completion is a protocol failure", async () => {
  for (const raw of ["not json at all", '{"choices": []}', '{"choices": [{"message": 5}]}']) {
    const run = await play([{ raw }]);
    assert.equal(run.result.status, "error", raw);
    assert.equal(run.result.failure?.code, "protocol", raw);
  }
});

Deno.test("openai backend: the token budget stops the round", async () => {
  const run = await play(
    [{ calls: [{ name: "list_files", args: {} }] }],
    { maxTokens: 250 },
    { whenSpent: "repeat" },
  );
  assert.equal(run.result.status, "error");
  assert.equal(run.result.failure?.code, "limit_exceeded");
  assert.match(run.result.failure?.message ?? "", /spent 360 tokens \(budget 250\)/);
  assert.equal(run.requests.length, 3);
});

Deno.test("openai backend: a slow model past the round's time limit ends timed_out", async () => {
  const server = await startChatServer([{ delayMs: 5000, then: { say: "late" } }]);
  const dir = worktree();
  try {
    const backend = openaiBackend({ model: "m", baseUrl: server.baseUrl, apiKey: CHAT_API_KEY });
    const started = Date.now();
    const result = await backend.run({ ...task(dir), maxSeconds: 1 }, {
      signal: new AbortController().signal,
      emit: () => {},
    });
    assert.equal(result.status, "timed_out");
    assert.ok(Date.now() - started < 4000);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

Deno.test("openai backend: symlinks made before the call cannot be written through", async () => {
  const outside = mkdtempSync(join(tmpdir(), "vouch-openai-outside-"));
  const server = await startChatServer([
    { calls: [{ name: "write_file", args: { path: "src/link.js", content: "pwned" } }] },
    { say: "done" },
  ]);
  const dir = worktree();
  symlinkSync(join(outside, "target.js"), join(dir, "src/link.js"));
  try {
    const backend = openaiBackend({ model: "m", baseUrl: server.baseUrl, apiKey: CHAT_API_KEY });
    await backend.run(task(dir), { signal: new AbortController().signal, emit: () => {} });
    assert.equal(existsSync(join(outside, "target.js")), false);
    assert.match(toolAnswers(server.requests)[0]!, /^refused \(path_rejected\)/);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  }
});

/** A raw Chat Completions body with one choice. */
function completion(message: Record<string, unknown>, finish: string): ChatStep {
  return {
    raw: JSON.stringify({
      choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish }],
      usage: { prompt_tokens: 10, completion_tokens: 5 },
    }),
  };
}

const FIXED = "export const add = (a, b) => a + b;\n";

Deno.test("openai backend: a tool call without id or with object arguments is accepted, with a note", async () => {
  const run = await play([
    completion({
      content: null,
      tool_calls: [
        { type: "function", function: { name: "read_file", arguments: { path: "src/add.js" } } },
        {
          id: "",
          function: { name: "write_file", arguments: { path: "src/add.js", content: FIXED } },
        },
      ],
    }, "tool_calls"),
    { say: "fixed" },
  ]);
  assert.equal(run.result.status, "ok", JSON.stringify(run.result.failure));
  assert.equal(run.file("src/add.js"), FIXED);
  const last = run.requests.at(-1)?.body.messages ?? [];
  const assistant = last.find((m) => m.role === "assistant") as unknown as {
    tool_calls: { id: string; function: { arguments: unknown } }[];
  };
  // vouch sends back what a strict server takes: ids named, arguments as JSON strings.
  assert.deepEqual(assistant.tool_calls.map((c) => c.id), ["call_vouch_1_1", "call_vouch_1_2"]);
  assert.equal(typeof assistant.tool_calls[0]!.function.arguments, "string");
  const answers = last.filter((m) => m.role === "tool");
  assert.deepEqual(answers.map((m) => m.tool_call_id), ["call_vouch_1_1", "call_vouch_1_2"]);
  assert.match(String(answers[0]!.content), /no id; vouch named it call_vouch_1_1/);
  assert.match(String(answers[0]!.content), /JSON object, not as a JSON string/);
  assert.match(String(answers[0]!.content), /a - b/);
  assert.match(String(answers[1]!.content), /wrote \d+ characters to src\/add.js/);
});

Deno.test("openai backend: unparsable arguments are answered with an error and the model retries", async () => {
  const run = await play([
    completion({
      content: null,
      tool_calls: [{
        id: "c1",
        type: "function",
        function: { name: "write_file", arguments: '{"path": "src/add.js", "content": "exp' },
      }],
    }, "length"),
    { calls: [{ name: "write_file", args: { path: "src/add.js", content: FIXED } }] },
    { say: "fixed on the second try" },
  ]);
  assert.equal(run.result.status, "ok", JSON.stringify(run.result.failure));
  assert.equal(run.file("src/add.js"), FIXED);
  const answers = toolAnswers(run.requests);
  assert.match(answers[0]!, /not JSON.*nothing was done\. Call write_file again/s);
  assert.match(answers[0]!, /hit the length limit, so these arguments were cut off/);
});

Deno.test("openai backend: finish_reason length is not a done claim; the model is told to continue", async () => {
  const run = await play([
    { calls: [{ name: "list_files", args: {} }] },
    completion({ content: "I will now change src/add.js so that" }, "length"),
    { calls: [{ name: "write_file", args: { path: "src/add.js", content: FIXED } }] },
    { say: "done: add adds" },
  ]);
  assert.equal(run.result.status, "ok");
  assert.equal(run.result.summary, "done: add adds");
  assert.equal(run.file("src/add.js"), FIXED);
  assert.equal(run.requests.length, 4);
  const third = run.requests[2]!.body.messages ?? [];
  assert.match(String(third.at(-1)?.content), /cut off at the length limit/);
  assert.equal(third.at(-1)?.role, "user");

  // Cut off on every turn: the round ends limit_exceeded, never "ok".
  const cut = await play(
    [completion({ content: "and then" }, "length")],
    { maxTurns: 3 },
    { whenSpent: "repeat" },
  );
  assert.equal(cut.result.status, "error");
  assert.equal(cut.result.failure?.code, "limit_exceeded");
  assert.equal(cut.result.selfClaimedDone, false);
});

Deno.test("openai backend: a text-only first reply is nudged once, then the round ends", async () => {
  const run = await play([
    { say: "Sure, I can help with that." },
    { calls: [{ name: "write_file", args: { path: "src/add.js", content: FIXED } }] },
    { say: "fixed" },
  ]);
  assert.equal(run.result.status, "ok");
  assert.equal(run.file("src/add.js"), FIXED);
  assert.equal(run.requests.length, 3);
  const second = run.requests[1]!.body.messages ?? [];
  assert.equal(second.at(-1)?.role, "user");
  assert.match(String(second.at(-1)?.content), /not used any tool yet/);

  // Text twice: one nudge only, then the round ends with the model's words.
  const idle = await play([{ say: "nothing to do" }], {}, { whenSpent: "repeat" });
  assert.equal(idle.result.status, "ok");
  assert.equal(idle.requests.length, 2);
  assert.equal(idle.result.summary, "nothing to do");
});

Deno.test("openai backend: content sent as parts is read as text", async () => {
  const run = await play([
    { calls: [{ name: "list_files", args: {} }] },
    completion(
      { content: [{ type: "text", text: "all " }, { type: "text", text: "done" }] },
      "stop",
    ),
  ]);
  assert.equal(run.result.status, "ok");
  assert.equal(run.result.summary, "all done");
});

Deno.test("openai backend: streams like a real client (SSE, parallel calls, usage from the last chunk)", async () => {
  const run = await play(
    [
      {
        calls: [
          { name: "read_file", args: { path: "src/add.js" } },
          { name: "write_file", args: { path: "src/add.js", content: FIXED } },
        ],
      },
      { say: "add() adds now, and this sentence arrives in many pieces." },
    ],
    {},
    { usage: [40, 2] },
  );
  assert.equal(run.result.status, "ok", JSON.stringify(run.result.failure));
  assert.equal(run.result.summary, "add() adds now, and this sentence arrives in many pieces.");
  assert.equal(run.file("src/add.js"), FIXED);
  for (const r of run.requests) {
    assert.equal(r.body.stream, true);
    assert.equal(r.body.stream_options?.include_usage, true);
  }
  // Both calls of the one reply, each answered under its own id, arguments reassembled.
  const answers = (run.requests.at(-1)?.body.messages ?? []).filter((m) => m.role === "tool");
  assert.deepEqual(answers.map((m) => m.tool_call_id), ["call_1", "call_2"]);
  assert.match(String(answers[0]!.content), /a - b/);
  assert.match(String(answers[1]!.content), /^wrote /);
  assert.equal(run.result.usage?.inputTokens, 80);
  assert.equal(run.result.usage?.outputTokens, 4);
});

Deno.test("openai backend: a server that answers JSON to stream:true, or refuses streaming, still works", async () => {
  const json = await play(
    [
      { calls: [{ name: "write_file", args: { path: "src/add.js", content: FIXED } }] },
      { say: "fixed" },
    ],
    {},
    { sse: "never" },
  );
  assert.equal(json.result.status, "ok", JSON.stringify(json.result.failure));
  assert.equal(json.file("src/add.js"), FIXED);
  assert.equal(json.result.usage?.inputTokens, 200);

  const refused = await play([
    { status: 400 },
    { calls: [{ name: "write_file", args: { path: "src/add.js", content: FIXED } }] },
    { say: "fixed" },
  ]);
  assert.equal(refused.result.status, "ok", JSON.stringify(refused.result.failure));
  assert.equal(refused.file("src/add.js"), FIXED);
  assert.equal(refused.requests[0]!.body.stream, true);
  assert.equal(refused.requests[1]!.body.stream, undefined);
});

const sse = (...chunks: unknown[]) =>
  chunks.map((c) =>
    typeof c === "string" && c.startsWith(":")
      ? c // an SSE comment line, as servers send keep-alives
      : `data: ${typeof c === "string" ? c : JSON.stringify(c)}\n\n`
  ).join("");

Deno.test("openai backend: streamed content as parts, arguments as objects, cut and broken streams", async () => {
  const parts = await play([
    { calls: [{ name: "list_files", args: {} }] },
    {
      rawSse: sse(
        { choices: [{ index: 0, delta: { content: [{ type: "text", text: "all " }] } }] },
        ": keep-alive comment\n",
        { choices: [{ index: 0, delta: { content: [{ type: "text", text: "done" }] } }] },
        { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
        { choices: [], usage: { prompt_tokens: 5, completion_tokens: 1 } },
        "[DONE]",
      ),
    },
  ]);
  assert.equal(parts.result.status, "ok");
  assert.equal(parts.result.summary, "all done");

  const objectArgs = await play([
    {
      rawSse: sse(
        {
          choices: [{
            delta: {
              tool_calls: [{
                function: { name: "write_file", arguments: { path: "src/add.js", content: FIXED } },
              }],
            },
            finish_reason: "tool_calls",
          }],
        },
        "[DONE]",
      ),
    },
    { say: "fixed" },
  ]);
  assert.equal(objectArgs.result.status, "ok", JSON.stringify(objectArgs.result.failure));
  assert.equal(objectArgs.file("src/add.js"), FIXED);
  assert.match(toolAnswers(objectArgs.requests)[0]!, /no id; vouch named it call_vouch_1_1/);

  for (
    const [body, why] of [
      [sse({ choices: [{ delta: { content: "half a" } }] }), /ended before its last chunk/],
      [sse({ error: { message: "model overloaded" } }), /streamed an error: model overloaded/],
      [sse("{not json"), /not JSON/],
      [sse({ choices: [{ delta: { tool_calls: "x" } }] }), /not a chat completion chunk/],
      ["", /no chunk/],
    ] as const
  ) {
    const run = await play([{ rawSse: body }]);
    assert.equal(run.result.status, "error", body);
    assert.equal(run.result.failure?.code, "protocol", body);
    assert.match(run.result.failure?.message ?? "", why);
  }
});
