/**
 * Parser for Claude Code's `claude -p --output-format stream-json --verbose`
 * stream. Lines are validated with zod; unknown fields and unknown message
 * types are tolerated (recorded), malformed and truncated lines become typed
 * protocol issues. Success is decided from the final `result` message:
 * `subtype == "success" && !is_error && num_turns > 0`, and there must be
 * exactly one `result`. `system/api_retry` messages become `retry` events;
 * an authentication failure (a retry with HTTP 401/403, or an assistant
 * `error: authentication_failed`) asks the runner to stop the CLI at once
 * instead of waiting out its retries. The `system/init` tool list is checked
 * against the allow list: a tool vouch did not allow stops the run.
 *
 * @module
 */
import { z } from "zod";
import type { BackendEvent, BackendUsage } from "./types.ts";
import { boundList, boundText, MAX_ENTRY_CHARS, MAX_SUMMARY_CHARS } from "./types.ts";
import { JsonLineReader } from "./json_line.ts";
import { claudeToolPolicy, DEFAULT_CLAUDE_ALLOWED_TOOLS } from "./claude_tools.ts";
import type { StreamLine } from "./line_splitter.ts";
import type { StreamOutcome } from "./agent_cli.ts";

const ContentBlock = z.lazy(() => z.object({ type: z.string() }).loose());
const TextBlock = z.lazy(() => z.object({ type: z.literal("text"), text: z.string() }));
const ToolUseBlock = z.lazy(() =>
  z.object({
    type: z.literal("tool_use"),
    id: z.string().optional(),
    name: z.string(),
    input: z.record(z.string(), z.unknown()).optional(),
  })
);
const ToolResultBlock = z.lazy(() =>
  z.object({
    type: z.literal("tool_result"),
    tool_use_id: z.string().optional(),
    is_error: z.boolean().nullable().optional(),
  })
);

const ClaudeUsage = z.lazy(() =>
  z.object({
    input_tokens: z.number().nonnegative().optional(),
    output_tokens: z.number().nonnegative().optional(),
    cache_read_input_tokens: z.number().nonnegative().optional(),
    cache_creation_input_tokens: z.number().nonnegative().optional(),
  })
);

const ClaudeLine = z.lazy(() =>
  z.discriminatedUnion("type", [
    z.object({
      type: z.literal("system"),
      subtype: z.string(),
      session_id: z.string().optional(),
      model: z.string().optional(),
      permissionMode: z.string().optional(),
      permission_mode: z.string().optional(),
      tools: z.array(z.string()).optional(),
      attempt: z.number().optional(),
      max_retries: z.number().optional(),
      error_status: z.number().nullable().optional(),
      error: z.string().nullable().optional(),
    }),
    z.object({
      type: z.literal("assistant"),
      message: z.object({ content: z.array(ContentBlock) }),
      error: z.string().optional(),
    }),
    z.object({
      type: z.literal("user"),
      message: z.object({ content: z.union([z.string(), z.array(ContentBlock)]) }),
    }),
    z.object({
      type: z.literal("result"),
      subtype: z.string(),
      is_error: z.boolean(),
      num_turns: z.number().int().nonnegative(),
      session_id: z.string().optional(),
      total_cost_usd: z.number().nonnegative().optional(),
      usage: ClaudeUsage.optional(),
      result: z.string().optional(),
      errors: z.array(z.unknown()).optional(),
    }),
    z.object({ type: z.literal("stream_event") }),
    z.object({ type: z.literal("rate_limit_event") }),
  ])
);

/** Message types whose lines must match their schema (others are `unknown_type`). */
const CLAUDE_MESSAGE_TYPES = ["system", "assistant", "user", "result"];

/**
 * What the Claude Code stream said, normalized. `success`:
 * `subtype == "success" && !is_error && num_turns > 0`, exactly one result;
 * `finalMessage`: the result's text, or the last assistant text.
 */
export interface ClaudeOutcome extends StreamOutcome {
  /** The session id from `system/init`, or null before init. */
  readonly sessionId: string | null;
  /** The model `system/init` names, or null. */
  readonly model: string | null;
  /** The permission mode `system/init` names, or null. */
  readonly permissionMode: string | null;
  /** The `result` subtype, or null when no result message arrived. */
  readonly resultSubtype: string | null;
  /** The result's `num_turns`, or null when no result arrived. */
  readonly numTurns: number | null;
  /** Files the agent says it edited or wrote (bounded; hints only). */
  readonly filesChanged: readonly string[];
  /** Error messages from the stream (bounded). */
  readonly errors: readonly string[];
  /** The tools `system/init` says the CLI offers (null before init). */
  readonly tools: readonly string[] | null;
  /** Allowed tools the CLI does not offer (stale names or a different CLI version). */
  readonly missingTools: readonly string[];
  /** Provider retries the CLI reported (`system/api_retry`). */
  readonly retries: number;
}

/** Why the runner should stop the CLI now, with a failure code for the result. */
export interface StopRequest {
  /** `config`: vouch or the CLI is set up wrong; `execution`: the run itself failed. */
  readonly code: "config" | "execution";
  /** What happened, for the failure report. */
  readonly message: string;
}

const EDIT_TOOLS = new Set(["Edit", "Write", "NotebookEdit"]);

/**
 * Incremental parser of a Claude Code stream-json stream.
 *
 * @example
 * ```ts
 * import { ClaudeStreamParser } from "./claude_stream.ts";
 * const p = new ClaudeStreamParser();
 * const lines = [
 *   '{"type":"system","subtype":"init","session_id":"s1","model":"m","tools":[]}',
 *   '{"type":"result","subtype":"success","is_error":false,"num_turns":2,"result":"fixed"}',
 * ];
 * lines.forEach((text, i) => p.accept({ number: i + 1, text, tooLong: false, unterminated: false }));
 * if (!p.outcome().success) throw new Error(p.outcome().failureReason);
 * ```
 */
export class ClaudeStreamParser {
  readonly #allowList: readonly string[];
  #stop: StopRequest | null = null;
  #tools: string[] | null = null;
  #missingTools: string[] = [];
  #retries = 0;
  #sessionId: string | null = null;
  #model: string | null = null;
  #permissionMode: string | null = null;
  #results: {
    subtype: string;
    isError: boolean;
    numTurns: number;
    text: string | undefined;
  }[] = [];
  #lastAssistantText = "";
  #commands: string[] = [];
  #files: string[] = [];
  #errors: string[] = [];
  #usage: { -readonly [K in keyof BackendUsage]: BackendUsage[K] } = {};
  readonly #lines = new JsonLineReader(ClaudeLine, CLAUDE_MESSAGE_TYPES, "message");

  /**
   * A parser for one run.
   *
   * @param allowList the tools vouch allowed (checked against `system/init`).
   */
  constructor(allowList: readonly string[] = DEFAULT_CLAUDE_ALLOWED_TOOLS) {
    this.#allowList = allowList;
  }

  /** A reason to stop the CLI now (authentication failed, a tool vouch did not allow), or null. */
  stopRequest(): StopRequest | null {
    return this.#stop;
  }

  /** Accepts one line; returns the normalized events it produced. */
  accept(line: StreamLine): BackendEvent[] {
    const parsed = this.#lines.read(line);
    if (!parsed.ok) return parsed.events;
    const msg = parsed.value;
    switch (msg.type) {
      case "system":
        if (msg.subtype === "api_retry") return this.#retry(msg);
        if (msg.subtype !== "init") return [];
        return this.#init(msg);
      case "assistant":
        return this.#assistant(msg.message.content, msg.error);
      case "user":
        return this.#user(msg.message.content);
      case "result": {
        this.#results.push({
          subtype: msg.subtype,
          isError: msg.is_error,
          numTurns: msg.num_turns,
          text: msg.result,
        });
        if (msg.total_cost_usd !== undefined) this.#usage.costUsd = msg.total_cost_usd;
        if (msg.usage) {
          if (msg.usage.input_tokens !== undefined) {
            this.#usage.inputTokens = msg.usage.input_tokens;
          }
          if (msg.usage.output_tokens !== undefined) {
            this.#usage.outputTokens = msg.usage.output_tokens;
          }
          if (msg.usage.cache_read_input_tokens !== undefined) {
            this.#usage.cachedInputTokens = msg.usage.cache_read_input_tokens;
          }
          if (msg.usage.cache_creation_input_tokens !== undefined) {
            this.#usage.cacheWriteInputTokens = msg.usage.cache_creation_input_tokens;
          }
        }
        if (msg.is_error || msg.subtype !== "success") {
          const detail = `${msg.subtype}${msg.is_error ? " (is_error)" : ""}${
            msg.result ? `: ${msg.result}` : ""
          }`;
          this.#pushError(`result ${detail}`);
        }
        return [{ kind: "usage", usage: { ...this.#usage } }];
      }
      default:
        return [];
    }
  }

  #init(
    msg: {
      session_id?: string | undefined;
      model?: string | undefined;
      permissionMode?: string | undefined;
      permission_mode?: string | undefined;
      tools?: string[] | undefined;
    },
  ): BackendEvent[] {
    this.#sessionId = msg.session_id ?? null;
    this.#model = msg.model ?? null;
    this.#permissionMode = msg.permissionMode ?? msg.permission_mode ?? null;
    const out: BackendEvent[] = [{
      kind: "started",
      backend: "claude",
      ...(msg.session_id ? { sessionId: msg.session_id } : {}),
    }];
    if (msg.tools !== undefined) {
      this.#tools = msg.tools.slice(0, 500).map((t) => boundText(t, 200));
      const policy = claudeToolPolicy(this.#tools, this.#allowList);
      this.#missingTools = [...policy.missing];
      if (policy.unexpected.length > 0) {
        const message = `claude offers tools vouch did not allow: ${
          policy.unexpected.slice(0, 20).join(", ")
        }`;
        this.#pushError(message);
        this.#stop ??= { code: "config", message };
        out.push({ kind: "error", message, fatal: true });
      }
    }
    return out;
  }

  #retry(
    msg: {
      attempt?: number | undefined;
      max_retries?: number | undefined;
      error_status?: number | null | undefined;
      error?: string | null | undefined;
    },
  ): BackendEvent[] {
    this.#retries += 1;
    const status = msg.error_status ?? null;
    const what = msg.error ?? "unknown";
    const message = boundText(
      `provider request failed${status !== null ? ` (HTTP ${status})` : ""}: ${what}`,
      MAX_ENTRY_CHARS,
    );
    const out: BackendEvent[] = [{
      kind: "retry",
      attempt: msg.attempt ?? this.#retries,
      maxAttempts: msg.max_retries ?? null,
      httpStatus: status,
      message,
    }];
    if (status === 401 || status === 403 || what === "authentication_failed") {
      this.#authFailed(
        `claude: authentication failed${status !== null ? ` (HTTP ${status})` : ""}: ${what}`,
      );
      out.push({ kind: "error", message: this.#stop?.message ?? message, fatal: true });
    }
    return out;
  }

  #authFailed(message: string): void {
    this.#pushError(message);
    this.#stop ??= { code: "config", message: boundText(message, MAX_ENTRY_CHARS) };
  }

  #assistant(
    content: ({ type: string } & Record<string, unknown>)[],
    error: string | undefined,
  ): BackendEvent[] {
    const out: BackendEvent[] = [];
    if (error === "authentication_failed") this.#authFailed("claude: authentication failed");
    if (error !== undefined) {
      this.#pushError(`assistant error: ${error}`);
      out.push({ kind: "error", message: boundText(error, 200), fatal: false });
    }
    for (const block of content.slice(0, 200)) {
      if (block.type === "text") {
        const r = TextBlock.safeParse(block);
        if (!r.success) continue;
        this.#lastAssistantText = boundText(r.data.text, MAX_SUMMARY_CHARS);
        out.push({ kind: "message", text: boundText(r.data.text, MAX_ENTRY_CHARS) });
      } else if (block.type === "tool_use") {
        const r = ToolUseBlock.safeParse(block);
        if (!r.success) continue;
        const input = r.data.input ?? {};
        if (r.data.name === "Bash" && typeof input["command"] === "string") {
          if (this.#commands.length < 200) this.#commands.push(input["command"]);
          out.push({
            kind: "command",
            command: boundText(input["command"], MAX_ENTRY_CHARS),
            exitCode: null,
            status: "requested",
          });
        } else if (EDIT_TOOLS.has(r.data.name)) {
          const path = typeof input["file_path"] === "string"
            ? input["file_path"]
            : typeof input["notebook_path"] === "string"
            ? input["notebook_path"]
            : "";
          if (path !== "" && this.#files.length < 200) this.#files.push(path);
          out.push({
            kind: "file_change",
            path: boundText(path, MAX_ENTRY_CHARS),
            change: r.data.name,
            status: "requested",
          });
        } else {
          out.push({ kind: "tool", name: boundText(r.data.name, 200), isError: false });
        }
      }
    }
    return out;
  }

  #user(content: string | ({ type: string } & Record<string, unknown>)[]): BackendEvent[] {
    if (typeof content === "string") return [];
    const out: BackendEvent[] = [];
    for (const block of content.slice(0, 200)) {
      if (block.type !== "tool_result") continue;
      const r = ToolResultBlock.safeParse(block);
      if (!r.success) continue;
      out.push({ kind: "tool", name: "tool_result", isError: r.data.is_error === true });
    }
    return out;
  }

  #pushError(message: string): void {
    if (this.#errors.length < 50) this.#errors.push(boundText(message, MAX_ENTRY_CHARS));
  }

  /** The outcome so far (call after the stream ended). */
  outcome(): ClaudeOutcome {
    const last = this.#results.at(-1);
    let failureReason = "";
    if (last === undefined) failureReason = "stream ended without a result message";
    else if (this.#results.length > 1) {
      failureReason = `expected exactly one result, saw ${this.#results.length}`;
    } else if (last.subtype !== "success") failureReason = `result subtype ${last.subtype}`;
    else if (last.isError) failureReason = `result is_error: ${last.text ?? ""}`;
    else if (last.numTurns <= 0) failureReason = "result reports num_turns 0 (nothing ran)";
    return {
      success: failureReason === "",
      failureReason: boundText(failureReason, MAX_ENTRY_CHARS),
      sessionId: this.#sessionId,
      model: this.#model,
      permissionMode: this.#permissionMode,
      resultSubtype: last?.subtype ?? null,
      numTurns: last?.numTurns ?? null,
      finalMessage: boundText(last?.text ?? this.#lastAssistantText, MAX_SUMMARY_CHARS),
      commands: boundList(this.#commands),
      filesChanged: boundList(this.#files),
      errors: [...this.#errors],
      usage: { ...this.#usage },
      issues: this.#lines.issues,
      tools: this.#tools === null ? null : [...this.#tools],
      missingTools: [...this.#missingTools],
      retries: this.#retries,
    };
  }
}
