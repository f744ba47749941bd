/**
 * The shapes of the Chat Completions API the native backend reads and sends:
 * messages, tool calls (read leniently), content as a string or as parts,
 * usage, and the parsed completion (shared by the JSON and the SSE parsers).
 *
 * @module
 */
import { z } from "zod";

/** A message of the conversation, as the API takes it. */
export type ChatMessage =
  | { readonly role: "system" | "user"; readonly content: string }
  | {
    readonly role: "assistant";
    readonly content: string | null;
    readonly tool_calls?: readonly ChatToolCall[];
  }
  | { readonly role: "tool"; readonly tool_call_id: string; readonly content: string };

/** A tool call the model made (arguments are a JSON string, unparsed). */
export interface ChatToolCall {
  readonly id: string;
  readonly type: "function";
  readonly function: { readonly name: string; readonly arguments: string };
}

/** A tool call the model sent, read leniently: `id` may be absent, `arguments` an object. */
export interface ParsedToolCall {
  /** The model's id, or null when it sent none (the loop names the call). */
  readonly id: string | null;
  readonly name: string;
  /** The arguments as a JSON string (an object the model sent is serialized). */
  readonly arguments: string;
  /** True when the model sent the arguments as a JSON value instead of a JSON string. */
  readonly argumentsWereObject: boolean;
}

export const ToolCallSchema = z.lazy(() =>
  z.object({
    id: z.string().max(256).nullish(),
    type: z.string().max(64).nullish(),
    function: z.object({
      name: z.string().max(256),
      arguments: z.union([z.string().max(4_000_000), z.record(z.string(), z.unknown())]).nullish(),
    }),
  })
);

/** Content as a string or as parts (`[{type:"text", text}]`), as servers send it. */
export const ContentSchema = z.lazy(() =>
  z.union([
    z.string(),
    z.array(z.object({ type: z.string().max(64).optional(), text: z.string().optional() }))
      .max(10_000),
  ]).nullish()
);

/** The text of a message's content (parts joined; non-text parts skipped). */
export function contentText(content: z.infer<typeof ContentSchema>): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  return content.map((p) => (p.type === undefined || p.type === "text") ? p.text ?? "" : "")
    .join("");
}

/** A tool call of the schema, normalized. */
export function normalizeToolCall(c: z.infer<typeof ToolCallSchema>): ParsedToolCall {
  const a = c.function.arguments;
  const asObject = a !== null && a !== undefined && typeof a !== "string";
  return {
    id: typeof c.id === "string" && c.id !== "" ? c.id : null,
    name: c.function.name,
    arguments: asObject ? JSON.stringify(a) : a ?? "",
    argumentsWereObject: asObject,
  };
}

export const UsageSchema = z.lazy(() =>
  z.object({
    prompt_tokens: z.number().int().nonnegative().optional(),
    completion_tokens: z.number().int().nonnegative().optional(),
    prompt_tokens_details: z.object({ cached_tokens: z.number().int().nonnegative().optional() })
      .nullish(),
    completion_tokens_details: z.object({
      reasoning_tokens: z.number().int().nonnegative().optional(),
    }).nullish(),
  }).nullish()
);

export const CompletionSchema = z.lazy(() =>
  z.object({
    choices: z.array(z.object({
      message: z.object({
        content: ContentSchema,
        tool_calls: z.array(ToolCallSchema).max(64).nullish(),
      }),
      finish_reason: z.string().nullish(),
    })).min(1),
    usage: UsageSchema,
  })
);

/** A parsed completion. */
export interface ChatCompletion {
  readonly content: string;
  readonly toolCalls: readonly ParsedToolCall[];
  readonly finishReason: string;
  readonly usage: {
    readonly inputTokens: number;
    readonly outputTokens: number;
    readonly cachedInputTokens: number;
    readonly reasoningOutputTokens: number;
  };
}

/** Why a request failed for good. */
export interface ChatFailure {
  /** `auth`: 401/403; `refused`: another 4xx; `unavailable`: retries spent; `protocol`: bad answer. */
  readonly kind: "auth" | "refused" | "unavailable" | "protocol" | "cancelled";
  readonly status: number | null;
  readonly message: string;
}

/** The usage of a completion, in vouch's names. */
export function usageOf(u: z.infer<typeof UsageSchema>): ChatCompletion["usage"] {
  return {
    inputTokens: u?.prompt_tokens ?? 0,
    outputTokens: u?.completion_tokens ?? 0,
    cachedInputTokens: u?.prompt_tokens_details?.cached_tokens ?? 0,
    reasoningOutputTokens: u?.completion_tokens_details?.reasoning_tokens ?? 0,
  };
}
