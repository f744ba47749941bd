/**
 * The native backend: vouch's own small coding loop over an OpenAI-compatible
 * Chat Completions endpoint (hosted providers, llama.cpp, vLLM, Ollama), so a
 * user can point vouch at any model without installing an agent CLI.
 *
 * The model only ever asks; vouch acts. Each tool call is judged by the
 * kernel before it happens (`judgeToolAccess`), commands run in the agent's
 * sandbox, turns and tokens are bounded, transient HTTP failures are retried
 * with backoff and an authentication failure stops at once. What the model
 * says it did is a claim like any other: the real diff is re-derived and
 * verified by the driver.
 *
 * @module
 */
import {
  type CompiledToolAccessRules,
  compileToolAccessRules,
} from "../../kernel/scope/judge_tool_access.ts";
import { defaultPolicy } from "../../kernel/lifecycle/policy.ts";
import type { PolicySnapshot } from "../../kernel/lifecycle/policy_types.ts";
import { NO_SANDBOX, type SandboxProfile } from "../sandbox/profile.ts";
import {
  type ChatCompletion,
  type ChatFailure,
  type ChatMessage,
  isChatFailure,
  type ParsedToolCall,
  requestCompletion,
} from "./_chat_client.ts";
import { type FileService, fileService } from "./_file_service.ts";
import { fsDecision, NATIVE_TOOLS, runNativeTool } from "./_native_tools.ts";
import { composePrompt } from "./prompt.ts";
import { cancelledBeforeStart, failure, guardRun, noClaims } from "./result.ts";
import { safeEmit } from "./subprocess.ts";
import { captureTextTranscript, maskSecrets } from "./transcript.ts";
import type {
  AgentBackend,
  AgentDecision,
  AgentTask,
  BackendContext,
  BackendEvent,
  BackendFailure,
  BackendResult,
} from "./types.ts";
import { boundList, boundText, MAX_DECISIONS, MAX_SUMMARY_CHARS } from "./types.ts";

/** Settings of {@linkcode openaiBackend}. */
export interface OpenAiBackendConfig {
  /** The model name sent with every request. */
  readonly model: string;
  /** The API root, e.g. `http://127.0.0.1:8080/v1` (requests go to `<baseUrl>/chat/completions`). */
  readonly baseUrl: string;
  /** The bearer credential (read by the caller from a named variable), or null for none. */
  readonly apiKey: string | null;
  /** Where `run_command` runs (the agent sandbox). @default no sandbox */
  readonly sandbox?: SandboxProfile;
  /** Policy that judges file access. @default defaultPolicy() */
  readonly policy?: PolicySnapshot;
  /** Model turns per round before the loop stops. @default 30 */
  readonly maxTurns?: number;
  /** Retries of one request on 429/5xx/network errors. @default 3 */
  readonly maxRetries?: number;
  /** First retry backoff, ms (doubled each retry). @default 500 */
  readonly backoffMs?: number;
  /** Tokens (input + output) one round may spend; past it the round stops. @default unlimited */
  readonly maxTokens?: number;
  /** Time limit of one request, ms. @default 300000 */
  readonly requestTimeoutMs?: number;
  /** Time limit of one `run_command`, ms. @default 120000 */
  readonly commandTimeoutMs?: number;
  /**
   * Ask for streamed answers (`stream: true` with `stream_options.include_usage`), as real
   * clients do; a server answering JSON anyway is read as JSON, one answering 400 is asked again
   * without streaming. @default true
   */
  readonly stream?: boolean;
  /** How the model is reached (`model_net.ts` under `--deny-net`, or a test double); default `fetch`. */
  readonly fetch?: typeof fetch;
}

const SYSTEM_PROMPT = [
  "You are a coding agent working in a git repository through tools.",
  "Use list_files and read_file to look, write_file to change files, run_command to run tests.",
  "Paths are relative to the repository root. Make the smallest change that reaches the goal;",
  "never edit tests that define done. When you are finished, answer without calling a tool,",
  "with one paragraph saying what you changed.",
].join(" ");

/**
 * A backend that drives an OpenAI-compatible model with vouch's own tools.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { openaiBackend } from "./openai_backend.ts";
 * const b = openaiBackend({ model: "m", baseUrl: "http://127.0.0.1:9/v1", apiKey: null });
 * equal(b.id, "openai");
 * equal(b.capabilities().subprocess, false);
 * ```
 */
export function openaiBackend(config: OpenAiBackendConfig): AgentBackend {
  const id = "openai";
  return {
    id,
    capabilities: () => ({
      streaming: true,
      editsWorktree: true,
      reportsUsage: true,
      subprocess: false,
    }),
    run: (task, ctx) => guardRun(id, () => runLoop(id, config, task, ctx)),
  };
}

interface LoopState {
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

async function runLoop(
  id: string,
  config: OpenAiBackendConfig,
  task: AgentTask,
  ctx: BackendContext,
): Promise<BackendResult> {
  const cancelled = cancelledBeforeStart(id, ctx);
  if (cancelled !== null) return cancelled;
  const deadline = AbortSignal.timeout(Math.max(1, task.maxSeconds * 1000));
  const signal = AbortSignal.any([ctx.signal, deadline]);
  const rules = compileToolAccessRules({
    allow: task.allowedRoots.filter((g) => g !== "**"),
    protect: task.forbiddenPaths,
    policy: config.policy ?? defaultPolicy(),
  });
  const st: LoopState = {
    messages: [
      { role: "system", content: SYSTEM_PROMPT },
      { role: "user", content: composePrompt(task) },
    ],
    commands: [],
    risks: [],
    lines: [],
    decisions: [],
    usage: { input: 0, output: 0, cached: 0, reasoning: 0 },
    protocolIssues: 0,
    toolCalls: 0,
    nudged: false,
    stream: config.stream ?? true,
  };
  const emit = (event: BackendEvent) => {
    st.lines.push(JSON.stringify(event));
    safeEmit(ctx, event);
  };
  emit({ kind: "started", backend: id });
  // File tools are performed inside the agent's sandbox, never by vouch's own process.
  const files = fileService({ worktree: task.worktree, sandbox: config.sandbox ?? NO_SANDBOX });
  let ended: Ending;
  try {
    ended = await converse(id, config, task, signal, rules, st, emit, files);
  } finally {
    await files.close();
  }
  const status = ctx.signal.aborted ? "cancelled" : deadline.aborted ? "timed_out" : ended.status;
  const transcript = await captureTextTranscript({
    backend: id,
    taskId: task.taskId,
    attempt: task.attempt,
    text: st.lines.join("\n") + "\n",
    ...(ctx.transcriptDir !== undefined ? { dir: ctx.transcriptDir } : {}),
  });
  const usage = {
    inputTokens: st.usage.input,
    cachedInputTokens: st.usage.cached,
    outputTokens: st.usage.output,
    reasoningOutputTokens: st.usage.reasoning,
  };
  const base = {
    ...noClaims(id),
    commandsRun: boundList(st.commands),
    risks: boundList(st.risks),
    usage,
    transcript,
    decisions: st.decisions,
    protocolIssues: st.protocolIssues,
  };
  if (status === "cancelled") {
    return { ...base, status, failure: failure("cancelled", `${id} was cancelled`) };
  }
  if (status === "timed_out") {
    return {
      ...base,
      status,
      failure: failure("timeout", `${id} did not finish within ${task.maxSeconds}s`),
    };
  }
  if (ended.failure !== undefined) return { ...base, status: "error", failure: ended.failure };
  return {
    ...base,
    status: "ok",
    summary: maskSecrets(boundText(ended.summary, MAX_SUMMARY_CHARS)).text,
    selfClaimedDone: true,
  };
}

type Ending =
  | { readonly status: "ok"; readonly summary: string; readonly failure?: undefined }
  | { readonly status: "error"; readonly summary: string; readonly failure: BackendFailure };

async function converse(
  id: string,
  config: OpenAiBackendConfig,
  task: AgentTask,
  signal: AbortSignal,
  rules: CompiledToolAccessRules,
  st: LoopState,
  emit: (event: BackendEvent) => void,
  files: FileService,
): Promise<Ending> {
  const maxTurns = config.maxTurns ?? 30;
  for (let turn = 1; turn <= maxTurns; turn++) {
    const reply: ChatCompletion | ChatFailure = await requestCompletion({
      baseUrl: config.baseUrl,
      apiKey: config.apiKey,
      body: {
        model: config.model,
        messages: st.messages,
        tools: NATIVE_TOOLS,
        tool_choice: "auto",
        ...(st.stream ? { stream: true, stream_options: { include_usage: true } } : {}),
      },
      signal,
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
    st.usage.input += reply.usage.inputTokens;
    st.usage.output += reply.usage.outputTokens;
    st.usage.cached += reply.usage.cachedInputTokens;
    st.usage.reasoning += reply.usage.reasoningOutputTokens;
    emit({
      kind: "usage",
      usage: { inputTokens: st.usage.input, outputTokens: st.usage.output },
    });
    if (reply.content !== "") emit({ kind: "message", text: boundText(reply.content, 2000) });
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
    if (calls.length === 0) {
      // A reply cut off at the length limit is not a claim of being done.
      if (reply.finishReason === "length") {
        st.messages.push({ role: "user", content: CUT_OFF_NOTE });
        continue;
      }
      // A first reply that used no tool is nudged once before the round ends.
      if (st.toolCalls === 0 && !st.nudged) {
        st.nudged = true;
        st.messages.push({ role: "user", content: NUDGE });
        continue;
      }
      return { status: "ok", summary: reply.content };
    }
    for (const call of calls) {
      if (signal.aborted) return { status: "ok", summary: "" };
      st.toolCalls++;
      if (call.notes.length > 0) st.protocolIssues++;
      const result = await runNativeTool(call.name, call.arguments, {
        worktree: task.worktree,
        rules,
        sandbox: config.sandbox ?? NO_SANDBOX,
        signal,
        emit,
        commandTimeoutMs: config.commandTimeoutMs ?? 120_000,
        files,
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
      const cut = result.badJson === true && reply.finishReason === "length"
        ? [
          "note: your reply hit the length limit, so these arguments were cut off; " +
          "call the tool again with shorter arguments (e.g. a smaller file)",
        ]
        : [];
      const content = [...call.notes, ...cut, result.content].join("\n");
      st.messages.push({ role: "tool", tool_call_id: call.id, content });
    }
    const spent = st.usage.input + st.usage.output;
    if (config.maxTokens !== undefined && spent >= config.maxTokens) {
      return {
        status: "error",
        summary: "",
        failure: failure(
          "limit_exceeded",
          `${id} spent ${spent} tokens (budget ${config.maxTokens})`,
        ),
      };
    }
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
