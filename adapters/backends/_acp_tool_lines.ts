/**
 * The progress lines of an ACP agent's tool calls: each call is shown once,
 * under its latest title, with paths inside the worktree shown relative to it.
 * Agents announce a call more than once (claude-code-acp sends `tool_call` when
 * the tool block starts, with no input yet, and again with its input) and then
 * update it; only a failure vouch did not already show adds a line.
 *
 * @module
 */
import type { BackendEvent } from "./types.ts";
import { boundText } from "./types.ts";

/** Calls remembered per round before the oldest are forgotten. */
const MAX_CALLS = 10_000;

/**
 * A tool title with the worktree's absolute paths shown relative to it
 * (`Read /tmp/wt/src/a.js` → `Read src/a.js`; the worktree itself → `.`).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { treeTitle } from "./_acp_tool_lines.ts";
 * equal(treeTitle("/tmp/wt", "Read /tmp/wt/src/a.js"), "Read src/a.js");
 * equal(treeTitle("/tmp/wt", "ls /tmp/wt"), "ls .");
 * equal(treeTitle("/tmp/wt", "cat /tmp/wtx/a"), "cat /tmp/wtx/a");
 * ```
 */
export function treeTitle(worktree: string, title: string): string {
  const root = worktree.replace(/\/+$/, "");
  if (root === "") return title;
  const escaped = root.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return title
    .replace(new RegExp(`${escaped}/+`, "g"), "")
    .replace(new RegExp(`${escaped}(?=$|[\\s'"\`:,;)\\]])`, "g"), ".");
}

interface Call {
  title: string;
  shown: boolean;
  failureShown: boolean;
}

/** The fields of a `tool_call` / `tool_call_update` this needs. */
export interface ToolCallNote {
  readonly toolCallId: string;
  readonly title?: string | null;
  readonly status?: string | null;
  readonly rawInput?: unknown;
  readonly locations?: readonly unknown[] | null;
}

function hasInput(note: ToolCallNote): boolean {
  const input = note.rawInput;
  if ((note.locations?.length ?? 0) > 0) return true;
  if (input === undefined || input === null) return false;
  if (typeof input === "object") return Object.keys(input as object).length > 0;
  return true;
}

/**
 * Decides which tool events reach the progress. A call is shown once: when it
 * has its input (or locations), when it runs, ends or asks a permission, or at
 * the end of the turn ({@linkcode ToolLines.flush}).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { ToolLines } from "./_acp_tool_lines.ts";
 * const shown: unknown[] = [];
 * const lines = new ToolLines("/w", (e) => shown.push(e));
 * lines.call({ toolCallId: "1", title: "Read File", rawInput: {} });
 * lines.call({ toolCallId: "1", title: "Read /w/a.js", rawInput: { file_path: "/w/a.js" } });
 * lines.update({ toolCallId: "1", status: "completed" });
 * equal(JSON.stringify(shown), JSON.stringify([{ kind: "tool", name: "Read a.js", isError: false }]));
 * ```
 */
export class ToolLines {
  readonly #calls = new Map<string, Call>();
  readonly #worktree: string;
  readonly #emit: (event: BackendEvent) => void;

  constructor(worktree: string, emit: (event: BackendEvent) => void) {
    this.#worktree = worktree;
    this.#emit = emit;
  }

  #get(note: ToolCallNote): Call {
    let call = this.#calls.get(note.toolCallId);
    if (call === undefined) {
      if (this.#calls.size >= MAX_CALLS) this.#calls.clear();
      call = { title: "", shown: false, failureShown: false };
      this.#calls.set(note.toolCallId, call);
    }
    if (typeof note.title === "string" && note.title.trim() !== "") {
      call.title = boundText(treeTitle(this.#worktree, note.title), 200);
    }
    if (call.title === "") call.title = boundText(note.toolCallId, 200);
    return call;
  }

  #show(call: Call): void {
    if (call.shown) return;
    call.shown = true;
    this.#emit({ kind: "tool", name: call.title, isError: false });
  }

  /** A `tool_call` notification. */
  call(note: ToolCallNote): void {
    const call = this.#get(note);
    if (
      hasInput(note) || (note.status !== undefined && note.status !== null &&
        note.status !== "pending")
    ) this.#show(call);
  }

  /** A `tool_call_update` notification. */
  update(note: ToolCallNote): void {
    const call = this.#get(note);
    if (note.status === "failed") {
      if (call.failureShown) return;
      call.failureShown = true;
      call.shown = true;
      this.#emit({ kind: "tool", name: call.title, isError: true });
      return;
    }
    if (
      hasInput(note) || (note.status !== undefined && note.status !== null &&
        note.status !== "pending")
    ) this.#show(call);
  }

  /**
   * A permission request for the call: shown now. `refused`: vouch shows the
   * refusal itself, so the agent's later `failed` update adds no line.
   */
  permission(note: ToolCallNote, refused: boolean): void {
    const call = this.#get(note);
    if (refused) {
      call.shown = true;
      call.failureShown = true;
    } else this.#show(call);
  }

  /** The end of the turn: every call not yet shown is shown. */
  flush(): void {
    for (const call of this.#calls.values()) this.#show(call);
    this.#calls.clear();
  }
}
