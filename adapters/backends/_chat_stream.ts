/**
 * A streamed Chat Completions answer (`stream: true`, Server-Sent Events):
 * `data: {chunk}` events ending with `data: [DONE]`. Content arrives as
 * string deltas (or parts), tool calls as deltas keyed by `index` whose
 * `arguments` are concatenated (several calls in parallel), usage in the final
 * chunk (`stream_options.include_usage`). Untrusted bytes: every chunk is
 * zod-checked and a malformed stream is a protocol failure, never a throw.
 *
 * @module
 */
import { z } from "zod";
import {
  type ChatCompletion,
  type ChatFailure,
  ContentSchema,
  contentText,
  type ParsedToolCall,
  usageOf,
  UsageSchema,
} from "./_chat_schema.ts";

const ToolCallDeltaSchema = z.lazy(() =>
  z.object({
    index: z.number().int().nonnegative().max(63).optional(),
    id: z.string().max(256).nullish(),
    type: z.string().max(64).nullish(),
    function: z.object({
      name: z.string().max(256).nullish(),
      arguments: z.union([z.string().max(4_000_000), z.record(z.string(), z.unknown())]).nullish(),
    }).nullish(),
  })
);

const ChunkSchema = z.lazy(() =>
  z.object({
    choices: z.array(z.object({
      index: z.number().int().nonnegative().optional(),
      delta: z.object({
        content: ContentSchema,
        tool_calls: z.array(ToolCallDeltaSchema).max(64).nullish(),
      }).nullish(),
      finish_reason: z.string().nullish(),
    })).max(16).nullish(),
    usage: UsageSchema,
    error: z.union([z.string(), z.object({ message: z.string().optional() })]).optional(),
  })
);

const MAX_CALLS = 64;

function protocol(message: string): ChatFailure {
  return { kind: "protocol", status: 200, message };
}

/** The `data:` payloads of an SSE body, one per event (multi-line data joined by `\n`). */
export function sseData(text: string): string[] {
  const events: string[] = [];
  let data: string[] = [];
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === "") {
      if (data.length > 0) events.push(data.join("\n"));
      data = [];
    } else if (line.startsWith("data:")) {
      data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
    } // comments (`: ping`), `event:`, `id:`, `retry:` carry nothing for us
  }
  if (data.length > 0) events.push(data.join("\n"));
  return events;
}

interface CallDraft {
  id: string | null;
  name: string;
  args: string;
  object: boolean;
}

/**
 * Folds a streamed answer into one completion.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { parseChatStream } from "./_chat_stream.ts";
 * const d = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;
 * const c = parseChatStream(
 *   d({ choices: [{ delta: { tool_calls: [{ index: 0, id: "a", function: { name: "read_file", arguments: '{"pa' } }] } }] }) +
 *     d({ choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: 'th":"x"}' } }] }, finish_reason: "tool_calls" }] }) +
 *     d({ choices: [], usage: { prompt_tokens: 7, completion_tokens: 3 } }) + "data: [DONE]\n\n",
 * );
 * equal("toolCalls" in c && c.toolCalls[0]!.arguments, '{"path":"x"}');
 * equal("usage" in c && c.usage.inputTokens, 7);
 * ```
 */
export function parseChatStream(text: string): ChatCompletion | ChatFailure {
  let content = "";
  let finishReason = "";
  let usage: z.infer<typeof UsageSchema> = null;
  let done = false;
  let chunks = 0;
  const calls = new Map<number, CallDraft>();
  for (const data of sseData(text)) {
    if (data.trim() === "[DONE]") {
      done = true;
      break;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(data);
    } catch {
      return protocol("the endpoint streamed an event that is not JSON");
    }
    const parsed = ChunkSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return protocol(
        `the endpoint streamed a chunk that is not a chat completion chunk (${
          issue?.path.join(".") ?? ""
        }: ${issue?.message ?? "invalid"})`,
      );
    }
    const chunk = parsed.data;
    if (chunk.error !== undefined) {
      const why = typeof chunk.error === "string" ? chunk.error : chunk.error.message ?? "";
      return protocol(`the endpoint streamed an error: ${why.slice(0, 300)}`);
    }
    chunks++;
    if (chunk.usage !== null && chunk.usage !== undefined) usage = chunk.usage;
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue; // one choice asked for; others ignored
      if (choice.finish_reason) finishReason = choice.finish_reason;
      content += contentText(choice.delta?.content);
      (choice.delta?.tool_calls ?? []).forEach((d, position) => {
        const index = d.index ?? position;
        let draft = calls.get(index);
        if (draft === undefined) {
          if (calls.size >= MAX_CALLS) return;
          draft = { id: null, name: "", args: "", object: false };
          calls.set(index, draft);
        }
        if (typeof d.id === "string" && d.id !== "" && draft.id === null) draft.id = d.id;
        const name = d.function?.name;
        if (typeof name === "string" && name !== "" && draft.name === "") draft.name = name;
        const a = d.function?.arguments;
        if (typeof a === "string") draft.args += a;
        else if (a !== null && a !== undefined) {
          draft.args += JSON.stringify(a);
          draft.object = true;
        }
      });
    }
  }
  if (chunks === 0) return protocol("the endpoint's stream carried no chunk");
  if (!done && finishReason === "") {
    return protocol(
      "the endpoint's stream ended before its last chunk (no finish_reason, no [DONE])",
    );
  }
  const toolCalls: ParsedToolCall[] = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .filter(([, c]) => c.name !== "")
    .map(([, c]) => ({ id: c.id, name: c.name, arguments: c.args, argumentsWereObject: c.object }));
  return { content, toolCalls, finishReason, usage: usageOf(usage) };
}
