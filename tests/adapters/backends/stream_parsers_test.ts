import assert from "node:assert/strict";
import fc from "fast-check";
import {
  ClaudeStreamParser,
  CodexStreamParser,
  type StreamLine,
} from "../../../adapters/backends/mod.ts";
import { LineSplitter } from "../../../adapters/backends/line_splitter.ts";

function feed<P extends { accept(l: StreamLine): unknown }>(p: P, text: string): P {
  const s = new LineSplitter(4096);
  for (const l of [...s.push(new TextEncoder().encode(text)), ...s.end()]) p.accept(l);
  return p;
}

const codexOk = [
  '{"type":"thread.started","thread_id":"th_1"}',
  '{"type":"turn.started"}',
  '{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}',
  '{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"ls","aggregated_output":"a\\n","exit_code":0,"status":"completed"}}',
  '{"type":"item.completed","item":{"id":"item_2","type":"file_change","changes":[{"path":"src/a.ts","kind":"update"}],"status":"completed","diff_future":"x"}}',
  '{"type":"item.completed","item":{"id":"item_3","type":"error","message":"model rerouted"}}',
  '{"type":"item.completed","item":{"id":"item_4","type":"agent_message","text":"All fixed."}}',
  '{"type":"turn.completed","usage":{"input_tokens":100,"cached_input_tokens":20,"output_tokens":7},"new_field":1}',
].join("\n") + "\n";

Deno.test("codex stream: a clean run succeeds with usage, commands, file hints and the final message", () => {
  const o = feed(new CodexStreamParser(), codexOk).outcome();
  assert.equal(o.success, true, o.failureReason);
  assert.equal(o.threadId, "th_1");
  assert.equal(o.finalMessage, "All fixed.");
  assert.deepEqual(o.commands, ["ls"]);
  assert.deepEqual(o.filesChanged, ["src/a.ts"]);
  assert.deepEqual(o.usage, { inputTokens: 100, cachedInputTokens: 20, outputTokens: 7 });
  assert.equal(o.issues, 0);
});

Deno.test("codex stream: turn.failed, fatal error, no completion or two completions are failures", () => {
  const failed = feed(
    new CodexStreamParser(),
    codexOk.replace(
      /\{"type":"turn.completed"[^\n]*/,
      '{"type":"turn.failed","error":{"message":"boom"}}',
    ),
  ).outcome();
  assert.equal(failed.success, false);
  assert.match(failed.failureReason, /turn failed/);
  const fatal = feed(
    new CodexStreamParser(),
    '{"type":"error","message":"stream broke"}\n' + codexOk,
  )
    .outcome();
  assert.equal(fatal.success, false);
  assert.match(fatal.failureReason, /fatal stream error/);
  const none = feed(new CodexStreamParser(), codexOk.split("\n").slice(0, 6).join("\n") + "\n")
    .outcome();
  assert.equal(none.success, false);
  assert.match(none.failureReason, /without turn.completed/);
  const two = feed(new CodexStreamParser(), codexOk + '{"type":"turn.completed"}\n').outcome();
  assert.equal(two.success, false);
  assert.match(two.failureReason, /exactly one/);
});

Deno.test("codex stream: malformed, unknown and truncated lines become typed protocol issues", () => {
  const p = new CodexStreamParser();
  const events = [
    "not json",
    "[1,2]",
    '{"type":"item.completed","item":{"id":"x"}}',
    '{"type":"brand.new"}',
    '{"type":"item.completed","item":{"id":"y","type":"hologram"}}',
    '{"type":"turn.completed","usage":{"input_tokens":"many"}}',
  ].flatMap((text, i) => p.accept({ number: i + 1, text, tooLong: false, unterminated: false }));
  const trunc = p.accept({
    number: 7,
    text: '{"type":"turn.comp',
    tooLong: false,
    unterminated: true,
  });
  const long = p.accept({ number: 8, text: '{"type":"x"', tooLong: true, unterminated: false });
  const codes = [...events, ...trunc, ...long].filter((e) => e.kind === "protocol").map((e) =>
    e.kind === "protocol" ? e.code : ""
  );
  assert.deepEqual(codes, [
    "not_json",
    "schema",
    "schema",
    "unknown_type",
    "unknown_type",
    "schema",
    "truncated",
    "line_too_long",
  ]);
  assert.equal(p.outcome().issues, 8);
  assert.equal(p.outcome().success, false);
});

const claudeOk = [
  '{"type":"system","subtype":"init","session_id":"s1","model":"m1","tools":["Bash"],"permissionMode":"acceptEdits","apiKeySource":"none"}',
  '{"type":"assistant","message":{"content":[{"type":"text","text":"Looking"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"npm test"}}]},"session_id":"s1"}',
  '{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok","is_error":false}]}}',
  '{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t2","name":"Edit","input":{"file_path":"/w/src/a.ts"}},{"type":"thinking","thinking":"hm","signature":"x"}]}}',
  '{"type":"rate_limit_event","rate_limit_info":{"status":"allowed"}}',
  '{"type":"system","subtype":"hook_started"}',
  '{"type":"result","subtype":"success","is_error":false,"num_turns":3,"total_cost_usd":0.5,"usage":{"input_tokens":10,"output_tokens":4},"result":"Fixed it","future":true}',
].join("\n") + "\n";

Deno.test("claude stream: a clean run succeeds; session, model, commands, edits and cost are read", () => {
  const o = feed(new ClaudeStreamParser(), claudeOk).outcome();
  assert.equal(o.success, true, o.failureReason);
  assert.equal(o.sessionId, "s1");
  assert.equal(o.model, "m1");
  assert.equal(o.permissionMode, "acceptEdits");
  assert.equal(o.finalMessage, "Fixed it");
  assert.deepEqual(o.commands, ["npm test"]);
  assert.deepEqual(o.filesChanged, ["/w/src/a.ts"]);
  assert.deepEqual(o.usage, { costUsd: 0.5, inputTokens: 10, outputTokens: 4 });
  assert.equal(o.issues, 0);
});

Deno.test("claude stream: is_error success, num_turns 0, error subtypes, no result and two results fail", () => {
  const withResult = (r: string) => claudeOk.replace(/\{"type":"result"[^\n]*/, r);
  const cases: [string, RegExp][] = [
    [
      withResult(
        '{"type":"result","subtype":"success","is_error":true,"num_turns":2,"result":"API 429"}',
      ),
      /is_error/,
    ],
    [
      withResult(
        '{"type":"result","subtype":"success","is_error":false,"num_turns":0,"result":""}',
      ),
      /num_turns 0/,
    ],
    [
      withResult('{"type":"result","subtype":"error_max_turns","is_error":true,"num_turns":9}'),
      /error_max_turns/,
    ],
    [claudeOk.split("\n").slice(0, 6).join("\n"), /without a result/],
    [claudeOk + claudeOk.split("\n")[6] + "\n", /exactly one result/],
  ];
  for (const [text, reason] of cases) {
    const o = feed(new ClaudeStreamParser(), text).outcome();
    assert.equal(o.success, false, text);
    assert.match(o.failureReason, reason);
  }
});

Deno.test("claude stream: accepts snake_case permission_mode, flags malformed lines", () => {
  const p = feed(
    new ClaudeStreamParser(),
    '{"type":"system","subtype":"init","permission_mode":"plan"}\nnope\n{"type":"assistant","message":"x"}\n{"type":"result","subtype":"succ',
  );
  assert.equal(p.outcome().permissionMode, "plan");
  assert.equal(p.outcome().issues, 3);
  assert.equal(p.outcome().success, false);
});

Deno.test("stream parsers: never throw and stay bounded on arbitrary lines (property)", () => {
  const jsonish = fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.json({ maxDepth: 3 }),
    fc.record({
      type: fc.constantFrom(
        "thread.started",
        "turn.completed",
        "turn.failed",
        "item.completed",
        "error",
        "system",
        "assistant",
        "user",
        "result",
      ),
      item: fc.anything({ maxDepth: 2 }),
      message: fc.anything({ maxDepth: 2 }),
      subtype: fc.string({ maxLength: 10 }),
      is_error: fc.boolean(),
      num_turns: fc.integer(),
    }).map((o) => JSON.stringify(o)),
  );
  fc.assert(
    fc.property(fc.array(jsonish, { maxLength: 30 }), fc.boolean(), (lines, cut) => {
      const text = lines.join("\n") + (cut ? "" : "\n");
      for (const p of [new CodexStreamParser(), new ClaudeStreamParser()]) {
        const o = feed(p, text).outcome();
        assert.ok(o.finalMessage.length <= 4096);
        assert.ok(o.commands.length <= 200);
        if (o.success) assert.equal(o.failureReason, "");
      }
    }),
    { numRuns: 200 },
  );
});

Deno.test("LineSplitter: chunk boundaries do not matter; overlong lines keep only a bounded head", () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 300 }), fc.integer({ min: 1, max: 17 }), (text, step) => {
      const bytes = new TextEncoder().encode(text);
      const whole = new LineSplitter(64);
      const a = [...whole.push(bytes), ...whole.end()];
      const parts = new LineSplitter(64);
      const b: StreamLine[] = [];
      for (let i = 0; i < bytes.length; i += step) {
        b.push(...parts.push(bytes.subarray(i, i + step)));
      }
      b.push(...parts.end());
      assert.deepEqual(b, a);
      for (const l of a) assert.ok(new TextEncoder().encode(l.text).length <= 64 + 3);
    }),
    { numRuns: 200 },
  );
  const s = new LineSplitter(8);
  const lines = [...s.push(new TextEncoder().encode("0123456789abcdef\nok\n"))];
  assert.deepEqual(lines.map((l) => [l.text, l.tooLong]), [["01234567", true], ["ok", false]]);
});
