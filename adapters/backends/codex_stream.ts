/**
 * Parser for the Codex CLI `codex exec --json` JSONL stream. Each line is
 * validated with zod; unknown fields are tolerated, unknown event and item
 * types are recorded as protocol notes, and malformed or truncated lines
 * become typed protocol issues. The run's success is decided here, from the
 * stream: exactly one `turn.completed` and no `turn.failed` or fatal `error`.
 * A top-level "Reconnecting... N/M" `error` is a transient notice (a `retry`
 * event), never fatal; `file_change` items that ended `failed` are reported
 * as failed, not as changes.
 *
 * @module
 */
import { z } from "zod";
import type { BackendEvent, BackendUsage } from "./types.ts";
import { boundList, boundText, MAX_ENTRY_CHARS, MAX_SUMMARY_CHARS } from "./types.ts";
import { describeZodIssues, JsonLineReader, protocolIssue } from "./json_line.ts";
import type { StreamLine } from "./line_splitter.ts";
import type { StreamOutcome } from "./agent_cli.ts";

const Usage = z.lazy(() =>
  z.object({
    input_tokens: z.number().int().nonnegative().optional(),
    cached_input_tokens: z.number().int().nonnegative().optional(),
    cache_write_input_tokens: z.number().int().nonnegative().optional(),
    output_tokens: z.number().int().nonnegative().optional(),
    reasoning_output_tokens: z.number().int().nonnegative().optional(),
  })
);

/** Usage fields of `turn.completed`, mapped to {@linkcode BackendUsage} names. */
const USAGE_FIELDS = [
  ["input_tokens", "inputTokens"],
  ["cached_input_tokens", "cachedInputTokens"],
  ["cache_write_input_tokens", "cacheWriteInputTokens"],
  ["output_tokens", "outputTokens"],
  ["reasoning_output_tokens", "reasoningOutputTokens"],
] as const;

/**
 * A top-level `error` that is a transient notice, not a failure: Codex
 * reconnecting a dropped stream ("Reconnecting... 1/5 (stream disconnected ...)").
 */
const RECONNECTING = /^Reconnecting\.{3}\s*(\d+)\/(\d+)/;

const Item = z.lazy(() => z.object({ id: z.string().optional(), type: z.string() }));
const AgentMessageItem = z.lazy(() =>
  z.object({ type: z.literal("agent_message"), text: z.string() })
);
const CommandItem = z.lazy(() =>
  z.object({
    type: z.literal("command_execution"),
    command: z.string(),
    exit_code: z.number().int().nullable().optional(),
    status: z.string().optional(),
  })
);
const FileChangeItem = z.lazy(() =>
  z.object({
    type: z.literal("file_change"),
    changes: z.array(z.object({ path: z.string(), kind: z.string() })),
    status: z.string().optional(),
  })
);
const McpItem = z.lazy(() =>
  z.object({
    type: z.literal("mcp_tool_call"),
    server: z.string().optional(),
    tool: z.string(),
    status: z.string().optional(),
    error: z.object({ message: z.string() }).nullable().optional(),
  })
);
const ErrorItem = z.lazy(() => z.object({ type: z.literal("error"), message: z.string() }));

const CodexLine = z.lazy(() =>
  z.discriminatedUnion("type", [
    z.object({ type: z.literal("thread.started"), thread_id: z.string() }),
    z.object({ type: z.literal("turn.started") }),
    z.object({ type: z.literal("turn.completed"), usage: Usage.optional() }),
    z.object({
      type: z.literal("turn.failed"),
      error: z.object({ message: z.string() }).optional(),
    }),
    z.object({
      type: z.enum(["item.started", "item.updated", "item.completed"]),
      item: Item.unwrap().loose(),
    }),
    z.object({ type: z.literal("error"), message: z.string() }),
    z.object({ type: z.literal("item.plan.delta") }),
    z.object({ type: z.literal("request_user_input") }),
  ])
);

/** Event types whose lines must match their schema (others are `unknown_type`). */
const CODEX_EVENT_TYPES = [
  "thread.started",
  "turn.started",
  "turn.completed",
  "turn.failed",
  "item.started",
  "item.updated",
  "item.completed",
  "error",
];

const KNOWN_ITEM_TYPES = new Set([
  "agent_message",
  "reasoning",
  "command_execution",
  "file_change",
  "mcp_tool_call",
  "web_search",
  "todo_list",
  "plan",
  "collab_tool_call",
  "error",
]);

/**
 * What the Codex stream said, normalized. `success` is decided from the
 * stream: exactly one turn.completed, no turn.failed, no fatal error;
 * `finalMessage` is the last agent message.
 */
export interface CodexOutcome extends StreamOutcome {
  /** The thread id from `thread.started`, or null. */
  readonly threadId: string | null;
  /** Number of `turn.completed` events. */
  readonly turnsCompleted: number;
  /** Number of `turn.failed` events. */
  readonly turnsFailed: number;
  /** Fatal stream errors and turn failure messages (bounded). */
  readonly errors: readonly string[];
  /** Paths the agent says it changed (bounded; hints only). */
  readonly filesChanged: readonly string[];
  /** Paths of `file_change` items that ended `failed` (bounded). */
  readonly failedFileChanges: readonly string[];
  /** Transient reconnects the CLI reported (top-level "Reconnecting..." errors). */
  readonly reconnects: number;
}

/**
 * Incremental parser of a `codex exec --json` stream.
 *
 * @example
 * ```ts
 * import { CodexStreamParser } from "./codex_stream.ts";
 * const p = new CodexStreamParser();
 * const lines = [
 *   '{"type":"thread.started","thread_id":"t1"}',
 *   '{"type":"turn.started"}',
 *   '{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"done"}}',
 *   '{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":5}}',
 * ];
 * lines.forEach((text, i) => p.accept({ number: i + 1, text, tooLong: false, unterminated: false }));
 * if (!p.outcome().success || p.outcome().finalMessage !== "done") throw new Error();
 * ```
 */
export class CodexStreamParser {
  #threadId: string | null = null;
  #completed = 0;
  #failed = 0;
  #errors: string[] = [];
  #final = "";
  #commands: string[] = [];
  #files: string[] = [];
  #failedFiles: string[] = [];
  #reconnects = 0;
  #usage: { -readonly [K in keyof BackendUsage]: BackendUsage[K] } = {};
  readonly #lines = new JsonLineReader(CodexLine, CODEX_EVENT_TYPES, "event");

  /** Accepts one line; returns the normalized events it produced. */
  accept(line: StreamLine): BackendEvent[] {
    const parsed = this.#lines.read(line);
    if (!parsed.ok) return parsed.events;
    const ev = parsed.value;
    switch (ev.type) {
      case "thread.started":
        this.#threadId = ev.thread_id;
        return [{ kind: "started", backend: "codex", sessionId: ev.thread_id }];
      case "turn.started":
        return [];
      case "turn.completed": {
        this.#completed += 1;
        if (ev.usage === undefined) return [];
        this.#addUsage(ev.usage);
        return [{ kind: "usage", usage: this.#usageView() }];
      }
      case "turn.failed": {
        this.#failed += 1;
        const message = ev.error?.message ?? "turn failed";
        this.#pushError(`turn.failed: ${message}`);
        return [{ kind: "error", message: boundText(message, MAX_ENTRY_CHARS), fatal: true }];
      }
      case "error": {
        const reconnect = RECONNECTING.exec(ev.message);
        if (reconnect !== null) {
          // A transient notice: the turn can still complete (decided by turn.completed).
          this.#reconnects += 1;
          return [{
            kind: "retry",
            attempt: Number(reconnect[1]),
            maxAttempts: Number(reconnect[2]),
            httpStatus: null,
            message: boundText(ev.message, MAX_ENTRY_CHARS),
          }];
        }
        this.#pushError(`error: ${ev.message}`);
        return [{ kind: "error", message: boundText(ev.message, MAX_ENTRY_CHARS), fatal: true }];
      }
      case "item.started":
        return this.#started(ev.item);
      case "item.updated":
        return [];
      case "item.completed":
        return this.#item(ev.item, line.number);
      default:
        return [];
    }
  }

  /** A command shown as it starts (live progress); it is counted when it completes. */
  #started(item: { type: string } & Record<string, unknown>): BackendEvent[] {
    if (item.type !== "command_execution") return [];
    const r = CommandItem.safeParse(item);
    if (!r.success) return [];
    return [{
      kind: "command",
      command: boundText(r.data.command, MAX_ENTRY_CHARS),
      exitCode: null,
      status: "in_progress",
    }];
  }

  #item(item: { type: string } & Record<string, unknown>, lineNo: number): BackendEvent[] {
    if (!KNOWN_ITEM_TYPES.has(item.type)) {
      return this.#lines.count(
        protocolIssue("unknown_type", lineNo, `unknown item type ${item.type.slice(0, 80)}`),
      );
    }
    const schemaIssue = (error: { issues: { path: PropertyKey[]; message: string }[] }) => {
      return this.#lines.count(
        protocolIssue("schema", lineNo, `${item.type}: ${describeZodIssues(error.issues)}`),
      );
    };
    switch (item.type) {
      case "agent_message": {
        const r = AgentMessageItem.safeParse(item);
        if (!r.success) return schemaIssue(r.error);
        this.#final = boundText(r.data.text, MAX_SUMMARY_CHARS);
        return [{ kind: "message", text: boundText(r.data.text, MAX_ENTRY_CHARS) }];
      }
      case "command_execution": {
        const r = CommandItem.safeParse(item);
        if (!r.success) return schemaIssue(r.error);
        if (this.#commands.length < 200) this.#commands.push(r.data.command);
        return [{
          kind: "command",
          command: boundText(r.data.command, MAX_ENTRY_CHARS),
          exitCode: r.data.exit_code ?? null,
          status: r.data.status ?? "completed",
        }];
      }
      case "file_change": {
        const r = FileChangeItem.safeParse(item);
        if (!r.success) return schemaIssue(r.error);
        const out: BackendEvent[] = [];
        const status = r.data.status === "failed" ? "failed" : "completed";
        for (const c of r.data.changes.slice(0, 200)) {
          const list = status === "failed" ? this.#failedFiles : this.#files;
          if (list.length < 200) list.push(c.path);
          out.push({
            kind: "file_change",
            path: boundText(c.path, MAX_ENTRY_CHARS),
            change: boundText(c.kind, 40),
            status,
          });
        }
        return out;
      }
      case "mcp_tool_call": {
        const r = McpItem.safeParse(item);
        if (!r.success) return schemaIssue(r.error);
        return [{
          kind: "tool",
          name: boundText(`${r.data.server ?? "mcp"}.${r.data.tool}`, 200),
          isError: r.data.status === "failed" || (r.data.error ?? null) !== null,
        }];
      }
      case "error": {
        const r = ErrorItem.safeParse(item);
        if (!r.success) return schemaIssue(r.error);
        // Item-level errors are non-fatal (config warnings, reroute notices).
        return [{
          kind: "error",
          message: boundText(r.data.message, MAX_ENTRY_CHARS),
          fatal: false,
        }];
      }
      default:
        return [];
    }
  }

  #addUsage(u: z.infer<typeof Usage>): void {
    for (const [wire, name] of USAGE_FIELDS) {
      const n = u[wire];
      if (n !== undefined) this.#usage[name] = (this.#usage[name] ?? 0) + n;
    }
  }

  #usageView(): BackendUsage {
    return { ...this.#usage };
  }

  #pushError(message: string): void {
    if (this.#errors.length < 50) this.#errors.push(boundText(message, MAX_ENTRY_CHARS));
  }

  /** The outcome so far (call after the stream ended). */
  outcome(): CodexOutcome {
    let failureReason = "";
    if (this.#failed > 0) failureReason = `turn failed: ${this.#errors[0] ?? ""}`;
    else if (this.#errors.length > 0) failureReason = `fatal stream error: ${this.#errors[0]}`;
    else if (this.#completed === 0) failureReason = "stream ended without turn.completed";
    else if (this.#completed > 1) {
      failureReason = `expected exactly one turn.completed, saw ${this.#completed}`;
    }
    return {
      success: failureReason === "",
      failureReason: boundText(failureReason, MAX_ENTRY_CHARS),
      threadId: this.#threadId,
      turnsCompleted: this.#completed,
      turnsFailed: this.#failed,
      errors: [...this.#errors],
      finalMessage: this.#final,
      commands: boundList(this.#commands),
      filesChanged: boundList(this.#files),
      failedFileChanges: boundList(this.#failedFiles),
      reconnects: this.#reconnects,
      usage: this.#usageView(),
      issues: this.#lines.issues,
    };
  }
}
