// Property tests of the Chat Completions SSE folder (adapters/backends/_chat_stream.ts): however
// a server cuts content and tool-call arguments into pieces, interleaves parallel calls, adds
// keep-alive comments or uses CRLF, the folded reply equals the whole; and any bytes at all give a
// completion or a protocol failure, never a throw.
import assert from "node:assert/strict";
import fc from "fast-check";
import { parseChatStream } from "../../../adapters/backends/_chat_stream.ts";

/** Cuts `text` at the given fractions (sorted, deduplicated). */
function cut(text: string, at: number[]): string[] {
  const points = [...new Set(at.map((f) => Math.floor(f * text.length)))].sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const p of points) {
    out.push(text.slice(from, p));
    from = p;
  }
  out.push(text.slice(from));
  return out;
}

const fractions = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 });
const call = fc.record({
  name: fc.constantFrom("read_file", "write_file", "run_command", "list_files"),
  args: fc.json(),
  cuts: fractions,
});

Deno.test("chat stream: pieces, interleaving, comments and CRLF fold back into the whole", () => {
  fc.assert(
    fc.property(
      fc.string(),
      fractions,
      fc.array(call, { maxLength: 4 }),
      fc.boolean(),
      fc.boolean(),
      fc.nat({ max: 1000 }),
      (content, contentCuts, calls, crlf, comments, tokens) => {
        const nl = crlf ? "\r\n" : "\n";
        const ev = (o: unknown) =>
          `${comments ? `: ping${nl}` : ""}data: ${JSON.stringify(o)}${nl}${nl}`;
        const delta = (d: unknown, finish: string | null = null) =>
          ev({ choices: [{ index: 0, delta: d, finish_reason: finish }] });
        let body = delta({ role: "assistant", content: "" });
        for (const p of cut(content, contentCuts)) body += delta({ content: p });
        calls.forEach((c, index) => {
          body += delta({
            tool_calls: [{ index, id: `c${index}`, function: { name: c.name, arguments: "" } }],
          });
        });
        const pieces = calls.map((c) => cut(c.args, c.cuts));
        for (let r = 0; r < Math.max(0, ...pieces.map((p) => p.length)); r++) {
          pieces.forEach((p, index) => {
            if (r < p.length) {
              body += delta({ tool_calls: [{ index, function: { arguments: p[r] } }] });
            }
          });
        }
        body += delta({}, calls.length > 0 ? "tool_calls" : "stop");
        body += ev({ choices: [], usage: { prompt_tokens: tokens, completion_tokens: 1 } });
        body += `data: [DONE]${nl}${nl}`;
        const r = parseChatStream(body);
        assert.ok(!("kind" in r), JSON.stringify(r));
        assert.equal(r.content, content);
        assert.deepEqual(
          r.toolCalls.map((c) => [c.id, c.name, c.arguments]),
          calls.map((c, i) => [`c${i}`, c.name, c.args]),
        );
        assert.equal(r.usage.inputTokens, tokens);
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("chat stream: arbitrary bytes are a completion or a protocol failure, never a throw", () => {
  const chunk = fc.oneof(
    fc.string(),
    fc.json().map((j) => `data: ${j}\n\n`),
    fc.constant("data: [DONE]\n\n"),
    fc.constant('data: {"choices":[{"delta":{"tool_calls":[{"index":99}]}}]}\n\n'),
  );
  fc.assert(
    fc.property(fc.array(chunk, { maxLength: 8 }), (parts) => {
      const r = parseChatStream(parts.join(""));
      if ("kind" in r) assert.equal(r.kind, "protocol");
      else assert.equal(typeof r.content, "string");
    }),
    { numRuns: 500 },
  );
});
