// Parsing agent event streams: Codex JSONL and Claude stream-json, 5,000 lines each.
import { ClaudeStreamParser, CodexStreamParser } from "../adapters/backends/mod.ts";
import { LineSplitter } from "../adapters/backends/line_splitter.ts";

const enc = new TextEncoder();
const codexLines: string[] = [
  '{"type":"thread.started","thread_id":"t"}',
  '{"type":"turn.started"}',
];
const claudeLines: string[] = ['{"type":"system","subtype":"init","session_id":"s","model":"m"}'];
for (let i = 0; i < 5000; i++) {
  codexLines.push(
    JSON.stringify({
      type: "item.completed",
      item: {
        id: `item_${i}`,
        type: "command_execution",
        command: `ls ${i}`,
        aggregated_output: "x".repeat(200),
        exit_code: 0,
        status: "completed",
      },
    }),
  );
  claudeLines.push(
    JSON.stringify({
      type: "assistant",
      message: {
        content: [{ type: "text", text: "y".repeat(200) }, {
          type: "tool_use",
          id: `t${i}`,
          name: "Bash",
          input: { command: `ls ${i}` },
        }],
      },
    }),
  );
}
codexLines.push('{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}');
claudeLines.push(
  '{"type":"result","subtype":"success","is_error":false,"num_turns":3,"result":"ok"}',
);
const codexBytes = enc.encode(codexLines.join("\n") + "\n");
const claudeBytes = enc.encode(claudeLines.join("\n") + "\n");

function parse(
  bytes: Uint8Array,
  parser: { accept(l: never): unknown; outcome(): { success: boolean } },
) {
  const s = new LineSplitter(1024 * 1024);
  for (const l of s.push(bytes)) parser.accept(l as never);
  for (const l of s.end()) parser.accept(l as never);
  if (!parser.outcome().success) throw new Error("bench stream must succeed");
}

Deno.bench(
  { group: "agent-stream", name: "codex JSONL, 5k items (1.3 MB)", baseline: true },
  () => {
    parse(codexBytes, new CodexStreamParser());
  },
);

Deno.bench({ group: "agent-stream", name: "claude stream-json, 5k messages (1.6 MB)" }, () => {
  parse(claudeBytes, new ClaudeStreamParser());
});

Deno.bench({ group: "agent-stream", name: "line splitting only (codex stream)" }, () => {
  const s = new LineSplitter(1024 * 1024);
  s.push(codexBytes);
  s.end();
});
