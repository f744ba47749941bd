/**
 * One Chat Completions request with bounded retries: what the native backend
 * says to an OpenAI-compatible endpoint (hosted providers, llama.cpp, vLLM,
 * Ollama). Every answer is untrusted bytes: parsed with zod, and a malformed
 * one is a protocol failure, never an exception past this file.
 *
 * @module
 */
import {
  type ChatCompletion,
  type ChatFailure,
  CompletionSchema,
  contentText,
  normalizeToolCall,
  usageOf,
} from "./_chat_schema.ts";
import { parseChatStream } from "./_chat_stream.ts";
import { parseJsonText } from "./json_line.ts";

export type {
  ChatCompletion,
  ChatFailure,
  ChatMessage,
  ChatToolCall,
  ParsedToolCall,
} from "./_chat_schema.ts";

/** Options of {@linkcode requestCompletion}. */
export interface ChatRequestOptions {
  readonly baseUrl: string;
  readonly apiKey: string | null;
  readonly body: unknown;
  readonly signal: AbortSignal;
  /** Retries after the first attempt on 429, 5xx and network errors. */
  readonly maxRetries: number;
  /** First backoff, doubled each retry (a `Retry-After` up to 10 s wins). */
  readonly backoffMs: number;
  /** Per-attempt time limit. */
  readonly attemptTimeoutMs: number;
  readonly onRetry: (attempt: number, status: number | null, message: string) => void;
  /** Injected for tests; defaults to the global `fetch`. */
  readonly fetch?: typeof fetch;
}

const RETRY_STATUSES = new Set([408, 409, 425, 429, 500, 502, 503, 504]);
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

function errorText(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string };
    const e = parsed.error;
    if (typeof e === "string") return e.slice(0, 300);
    if (e !== undefined && typeof e.message === "string") return e.message.slice(0, 300);
  } catch { /* not JSON */ }
  return body.slice(0, 300).replace(/\s+/g, " ").trim();
}

/** Parses a completion body (exported for property tests). */
export function parseCompletion(text: string): ChatCompletion | ChatFailure {
  const json = parseJsonText(text);
  if (!json.ok) {
    return {
      kind: "protocol",
      status: 200,
      message: "the endpoint answered with bytes that are not JSON",
    };
  }
  const parsed = CompletionSchema.safeParse(json.value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      kind: "protocol",
      status: 200,
      message: `the endpoint's answer is not a chat completion (${issue?.path.join(".") ?? ""}: ${
        issue?.message ?? "invalid"
      })`,
    };
  }
  const choice = parsed.data.choices[0]!;
  return {
    content: contentText(choice.message.content),
    toolCalls: (choice.message.tool_calls ?? []).map(normalizeToolCall),
    finishReason: choice.finish_reason ?? "",
    usage: usageOf(parsed.data.usage),
  };
}

/** True when `value` is a failure rather than a completion. */
export function isChatFailure(value: ChatCompletion | ChatFailure): value is ChatFailure {
  return "kind" in value;
}

/**
 * Sends one completion request, retrying transient failures with backoff.
 * Never throws: every outcome is a completion or a {@linkcode ChatFailure}.
 */
export async function requestCompletion(
  o: ChatRequestOptions,
): Promise<ChatCompletion | ChatFailure> {
  const doFetch = o.fetch ?? fetch;
  const url = `${o.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  let last: ChatFailure = { kind: "unavailable", status: null, message: "no attempt made" };
  for (let attempt = 0; attempt <= o.maxRetries; attempt++) {
    if (o.signal.aborted) return { kind: "cancelled", status: null, message: "cancelled" };
    let wait = o.backoffMs * 2 ** attempt;
    const timeout = AbortSignal.timeout(o.attemptTimeoutMs);
    try {
      const res = await doFetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(o.apiKey !== null ? { authorization: `Bearer ${o.apiKey}` } : {}),
        },
        body: JSON.stringify(o.body),
        signal: AbortSignal.any([o.signal, timeout]),
      });
      const text = await res.text();
      if (text.length > MAX_ANSWER_BYTES) {
        return { kind: "protocol", status: res.status, message: "the answer is too large" };
      }
      if (res.ok) {
        // A server that ignores `stream: true` answers JSON: read it as such.
        const sse = (res.headers.get("content-type") ?? "").includes("text/event-stream");
        return sse ? parseChatStream(text) : parseCompletion(text);
      }
      const message = `HTTP ${res.status}: ${errorText(text)}`;
      if (res.status === 401 || res.status === 403) {
        return { kind: "auth", status: res.status, message };
      }
      if (!RETRY_STATUSES.has(res.status)) return { kind: "refused", status: res.status, message };
      last = { kind: "unavailable", status: res.status, message };
      const after = Number(res.headers.get("retry-after"));
      if (Number.isFinite(after) && after > 0) wait = Math.min(after * 1000, 10_000);
    } catch (error) {
      if (o.signal.aborted) return { kind: "cancelled", status: null, message: "cancelled" };
      const why = timeout.aborted
        ? `no answer within ${Math.round(o.attemptTimeoutMs / 1000)} s`
        : error instanceof Error
        ? error.message
        : String(error);
      last = { kind: "unavailable", status: null, message: why };
    }
    if (attempt < o.maxRetries) {
      o.onRetry(attempt + 1, last.status, last.message);
      await sleep(wait, o.signal);
    }
  }
  return { ...last, message: `${last.message} (after ${o.maxRetries + 1} attempts)` };
}
