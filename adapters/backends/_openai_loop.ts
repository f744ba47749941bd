/**
 * The native backend's coding loop: each turn asks the model (tools offered,
 * streamed until the server refuses it), counts its usage, and runs the tool
 * calls it made through vouch's own tools, each judged by the kernel first.
 * The round ends on a reply without a tool call (a cut-off reply, and a first
 * reply that used no tool, are answered once more), a failure, the token
 * budget or the turn limit.
 *
 * @module
 */
import type { CompiledToolAccessRules } from "../../kernel/scope/judge_tool_access.ts";
import { NO_SANDBOX } from "../sandbox/profile.ts";
import {
  type ChatCompletion,
  type ChatFailure,
  type ChatMessage,
  isChatFailure,
  type ParsedToolCall,
  requestCompletion,
} from "./_chat_client.ts";
import type { FileService } from "./_file_service.ts";
import { fsDecision, NATIVE_TOOLS, runNativeTool } from "./_native_tools.ts";
import type { OpenAiBackendConfig } from "./_openai_config.ts";
import { failure } from "./result.ts";
import type { AgentDecision, AgentTask, BackendEvent, BackendFailure } from "./types.ts";
import { boundText, MAX_DECISIONS } from "./types.ts";

/** What one round of the loop keeps: the conversation, and what the result reports. */
export interface LoopState {
  readonly messages: ChatMessage[];
  readonly commands: string[];
  readonly risks: string[];
  readonly lines: string[];
  readonly decisions: AgentDecision[];
  usage: { input: number; output: number; cached: number; reasoning: number };
  protocolIssues: number;
  /** Tool calls made this round. */
  toolCalls: number;
  /** The one nudge after a text-only first reply was sent. */
  nudged: boolean;
  /** Ask for a streamed answer (until the server refuses it). */
  stream: boolean;
}

/** What one round of the loop works with. */
export interface Loop {
  readonly id: string;
  readonly config: OpenAiBackendConfig;
  readonly task: AgentTask;
  /** The round's deadline or the caller's cancel. */
  readonly signal: AbortSignal;
  readonly rules: CompiledToolAccessRules;
  readonly st: LoopState;
  readonly emit: (event: BackendEvent) => void;
  /** Performs the file tools inside the agent's sandbox. */
  readonly files: FileService;
}

/** How the loop ended: the model's last words, or why it failed. */
export type Ending =
  | { readonly status: "ok"; readonly summary: string; readonly failure?: undefined }
  | { readonly status: "error"; readonly summary: string; readonly failure: BackendFailure };

/** One tool call of a reply, with the id it goes by and what vouch tells the model of it. */
interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
  readonly notes: string[];
}

/** Told to the model when its text reply was cut off at the length limit. */
const CUT_OFF_NOTE = "Your reply was cut off at the length limit (finish_reason: length). " +
  "Continue where you stopped; keep replies short. Answer without a tool call only when the " +
  "work is done.";

/** Told once to a model whose first reply used no tool. */
const NUDGE = "You have not used any tool yet, and nothing in the repository has changed. " +
  "Use the tools (list_files, read_file, write_file, run_command) to do the task; answer " +
  "without a tool call only when the work is done and the tests pass.";

/** What vouch tells the model about a tool call it accepted leniently. */
function leniencyNotes(call: ParsedToolCall, synthesized: string): string[] {
  const notes: string[] = [];
  if (call.id === null) {
    notes.push(`note: your tool call had no id; vouch named it ${synthesized}`);
  }
  if (call.argumentsWereObject) {
    notes.push(
      "note: the arguments came as a JSON object, not as a JSON string; vouch accepted them " +
        "(send a JSON string next time)",
    );
  }
  return notes;
}

function failureOf(id: string, f: ChatFailure): BackendFailure {
  switch (f.kind) {
    case "auth":
      return failure("config", `${id}: the endpoint refused the credentials (${f.message})`);
    case "refused":
      return failure("config", `${id}: the endpoint refused the request (${f.message})`);
    case "protocol":
      return failure("protocol", `${id}: ${f.message}`);
    case "cancelled":
      return failure("cancelled", `${id} was cancelled`);
    case "unavailable":
      return failure("execution", `${id}: the endpoint did not answer (${f.message})`);
  }
}

const TOOL_EFFECTS: Record<string, string> = {
  read_file: "read",
  list_files: "list",
  write_file: "write",
  run_command: "command",
};

/** The decision behind one tool call, for the log. */
function decisionOf(
  name: string,
  rawArguments: string,
  result: { content: string; isError: boolean; command?: string },
): AgentDecision {
  const effect = TOOL_EFFECTS[name];
  if (effect === undefined || effect === "command") {
    return {
      effect: effect ?? "tool",
      kind: boundText(result.command ?? name, 200),
      paths: [],
      answer: effect === undefined ? "deny" : "allow",
      reason: effect === undefined ? "unknown_tool" : "allowed",
      by: "kernel",
    };
  }
  let path = "";
  try {
    const args = JSON.parse(rawArguments) as { path?: unknown };
    if (typeof args.path === "string") path = args.path;
  } catch { /* malformed: no path */ }
  return { ...fsDecision(effect, path, result.content, result.isError), kind: name };
}

/** One request for the model's next reply, the conversation so far and the tools offered. */
function askModel(loop: Loop): Promise<ChatCompletion | ChatFailure> {
  const { config, st, emit } = loop;
  return requestCompletion({
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    body: {
      model: config.model,
      messages: st.messages,
      tools: NATIVE_TOOLS,
      tool_choice: "auto",
      ...(st.stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    },
    signal: loop.signal,
    maxRetries: config.maxRetries ?? 3,
    backoffMs: config.backoffMs ?? 500,
    attemptTimeoutMs: config.requestTimeoutMs ?? 300_000,
    onRetry: (attempt, httpStatus, message) =>
      emit({
        kind: "retry",
        attempt,
        maxAttempts: config.maxRetries ?? 3,
        httpStatus,
        message: boundText(message, 500),
      }),
    ...(config.fetch !== undefined ? { fetch: config.fetch } : {}),
  });
}

/** Adds the reply's tokens to the round's and shows the totals and the reply's text. */
function countReply(loop: Loop, reply: ChatCompletion): void {
  const { st, emit } = loop;
  st.usage.input += reply.usage.inputTokens;
  st.usage.output += reply.usage.outputTokens;
  st.usage.cached += reply.usage.cachedInputTokens;
  st.usage.reasoning += reply.usage.reasoningOutputTokens;
  emit({
    kind: "usage",
    usage: { inputTokens: st.usage.input, outputTokens: st.usage.output },
  });
  if (reply.content !== "") emit({ kind: "message", text: boundText(reply.content, 2000) });
}

/** Adds the reply to the conversation; its tool calls, each with an id (vouch's if none). */
function keepReply(st: LoopState, reply: ChatCompletion, turn: number): ToolCall[] {
  const calls = reply.toolCalls.map((c, i) => ({
    id: c.id ?? `call_vouch_${turn}_${i + 1}`,
    name: c.name,
    arguments: c.arguments,
    notes: leniencyNotes(c, `call_vouch_${turn}_${i + 1}`),
  }));
  st.messages.push({
    role: "assistant",
    content: reply.content === "" ? null : reply.content,
    ...(calls.length > 0
      ? {
        tool_calls: calls.map((c) => ({
          id: c.id,
          type: "function" as const,
          function: { name: c.name, arguments: c.arguments },
        })),
      }
      : {}),
  });
  return calls;
}

/**
 * A reply without a tool call ends the round, unless it was cut off at the length limit (not
 * a claim of being done) or is a first reply that used no tool (nudged once): null, go on.
 */
function textReply(st: LoopState, reply: ChatCompletion): Ending | null {
  if (reply.finishReason === "length") {
    st.messages.push({ role: "user", content: CUT_OFF_NOTE });
    return null;
  }
  if (st.toolCalls === 0 && !st.nudged) {
    st.nudged = true;
    st.messages.push({ role: "user", content: NUDGE });
    return null;
  }
  return { status: "ok", summary: reply.content };
}

/** Runs one tool call (judged by the kernel first), shows and keeps it, and answers the model. */
async function runCall(loop: Loop, call: ToolCall, finishReason: string): Promise<void> {
  const { config, st, emit } = loop;
  st.toolCalls++;
  if (call.notes.length > 0) st.protocolIssues++;
  const result = await runNativeTool(call.name, call.arguments, {
    worktree: loop.task.worktree,
    rules: loop.rules,
    sandbox: config.sandbox ?? NO_SANDBOX,
    signal: loop.signal,
    emit,
    commandTimeoutMs: config.commandTimeoutMs ?? 120_000,
    files: loop.files,
  });
  emit({
    kind: "tool",
    name: boundText(call.name, 100),
    isError: result.isError,
    ...(result.refused
      ? { refused: boundText(result.content.replace(/^refused \([a-z_]+\): /, ""), 300) }
      : {}),
  });
  if (st.decisions.length < MAX_DECISIONS) {
    st.decisions.push(decisionOf(call.name, call.arguments, result));
  }
  if (result.command !== undefined) st.commands.push(result.command);
  if (result.refused) st.risks.push(`refused ${call.name}: ${result.content}`);
  else if (result.isError && result.command === undefined) st.protocolIssues++;
  const cut = result.badJson === true && finishReason === "length"
    ? [
      "note: your reply hit the length limit, so these arguments were cut off; " +
      "call the tool again with shorter arguments (e.g. a smaller file)",
    ]
    : [];
  const content = [...call.notes, ...cut, result.content].join("\n");
  st.messages.push({ role: "tool", tool_call_id: call.id, content });
}

/** The round's ending when it has spent its token budget, else null. */
function overBudget(loop: Loop): Ending | null {
  const { config, st } = loop;
  const spent = st.usage.input + st.usage.output;
  if (config.maxTokens === undefined || spent < config.maxTokens) return null;
  return {
    status: "error",
    summary: "",
    failure: failure(
      "limit_exceeded",
      `${loop.id} spent ${spent} tokens (budget ${config.maxTokens})`,
    ),
  };
}

/** The loop of one round, turn by turn, until it ends. */
export async function converse(loop: Loop): Promise<Ending> {
  const { id, config, st, emit } = loop;
  const maxTurns = config.maxTurns ?? 30;
  for (let turn = 1; turn <= maxTurns; turn++) {
    const reply = await askModel(loop);
    if (isChatFailure(reply) && st.stream && reply.kind === "refused" && reply.status === 400) {
      // A server that refuses streaming is asked again without it (once per round).
      st.stream = false;
      emit({ kind: "message", text: "the endpoint refused streaming; asking without it" });
      turn--;
      continue;
    }
    if (isChatFailure(reply)) {
      if (reply.kind === "protocol") st.protocolIssues++;
      emit({ kind: "error", message: boundText(reply.message, 500), fatal: true });
      return { status: "error", summary: "", failure: failureOf(id, reply) };
    }
    countReply(loop, reply);
    const calls = keepReply(st, reply, turn);
    if (calls.length === 0) {
      const ended = textReply(st, reply);
      if (ended !== null) return ended;
      continue;
    }
    for (const call of calls) {
      if (loop.signal.aborted) return { status: "ok", summary: "" };
      await runCall(loop, call, reply.finishReason);
    }
    const over = overBudget(loop);
    if (over !== null) return over;
  }
  return {
    status: "error",
    summary: "",
    failure: failure(
      "limit_exceeded",
      `${id}: the model was still calling tools after ${maxTurns} turns`,
    ),
  };
}
