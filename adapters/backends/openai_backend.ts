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
import { compileToolAccessRules } from "../../kernel/scope/judge_tool_access.ts";
import { defaultPolicy } from "../../kernel/lifecycle/policy.ts";
import { NO_SANDBOX } from "../sandbox/profile.ts";
import { fileService } from "./_file_service.ts";
import type { OpenAiBackendConfig } from "./_openai_config.ts";
import { converse, type Ending, type LoopState } from "./_openai_loop.ts";
import { composePrompt } from "./prompt.ts";
import { cancelledBeforeStart, failure, guardRun, noClaims } from "./result.ts";
import { safeEmit } from "./subprocess.ts";
import { captureTextTranscript, maskSecrets } from "./transcript.ts";
import type {
  AgentBackend,
  AgentTask,
  BackendContext,
  BackendEvent,
  BackendResult,
} from "./types.ts";
import { boundList, boundText, capabilitiesOf, MAX_SUMMARY_CHARS } from "./types.ts";
import { runsCommands } from "./_program_backends.ts";

export type { OpenAiBackendConfig } from "./_openai_config.ts";

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
  // The model's shell commands are programs: the driver runs them only in the agent sandbox.
  return runsCommands({
    id,
    capabilities: capabilitiesOf("streaming", "editsWorktree", "reportsUsage"),
    run: (task, ctx) => guardRun(id, () => runLoop(id, config, task, ctx)),
  });
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
    ended = await converse({ id, config, task, signal, rules, st, emit, files });
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
