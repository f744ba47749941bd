/**
 * The backend contract: what every coding backend receives and returns.
 * Everything a backend reports is a claim; vouch re-derives the truth from the
 * worktree and its own checks.
 *
 * @module
 */
import type { UnverifiedPatch } from "../verified_patch/verified_patch.ts";
import type { BackendErrorCode } from "./errors.ts";

/** Stable persisted status strings of a backend run. */
export type BackendStatus = "ok" | "error" | "cancelled" | "timed_out";

/** What a backend can do; used by the driver for display and routing only. */
export interface BackendCapabilities {
  /** Emits events while running (not only at the end). */
  readonly streaming: boolean;
  /** Works by editing files in the task's worktree. */
  readonly editsWorktree: boolean;
  /** Reports token usage / cost. */
  readonly reportsUsage: boolean;
  /** Runs as a separate OS process (so it can be killed). */
  readonly subprocess: boolean;
}

/**
 * The `capabilities` method of a backend that can do what `can` names and
 * nothing else (each call returns a fresh object).
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { capabilitiesOf } from "./types.ts";
 * deepEqual(capabilitiesOf("streaming", "subprocess")(), {
 *   streaming: true,
 *   editsWorktree: false,
 *   reportsUsage: false,
 *   subprocess: true,
 * });
 * ```
 */
export function capabilitiesOf(
  ...can: readonly (keyof BackendCapabilities)[]
): () => BackendCapabilities {
  return () => ({
    streaming: can.includes("streaming"),
    editsWorktree: can.includes("editsWorktree"),
    reportsUsage: can.includes("reportsUsage"),
    subprocess: can.includes("subprocess"),
  });
}

/** One unit of work handed to a backend: one task, one attempt (round). */
export interface AgentTask {
  /** Stable task id (safe for file names). */
  readonly taskId: string;
  /** 1-based attempt / round number. */
  readonly attempt: number;
  /** The goal as the user wrote it. */
  readonly goal: string;
  /** Feedback from the previous round (failing checks and output tails), if any. */
  readonly feedback?: string;
  /** Full commit id the worktree was created from (lets a backend label a patch it hands over). */
  readonly base?: string;
  /** Absolute path of the disposable worktree the backend works in. */
  readonly worktree: string;
  /** Globs (relative to the worktree) the backend may change. */
  readonly allowedRoots: readonly string[];
  /** Globs (relative to the worktree) the backend must not change. */
  readonly forbiddenPaths: readonly string[];
  /** Wall-clock budget for this run, in seconds. */
  readonly maxSeconds: number;
  /** Output budget for this run, in MiB. */
  readonly maxOutputMb: number;
}

/** What {@linkcode AgentBackend.startTask} needs of the task: where, and what it may touch. */
export type BackendStart = Pick<
  AgentTask,
  "taskId" | "worktree" | "allowedRoots" | "forbiddenPaths"
>;

/** Token usage and cost, where the backend reports them. */
export interface BackendUsage {
  /** Input tokens. */
  readonly inputTokens?: number;
  /** Input tokens read from the provider's prompt cache. */
  readonly cachedInputTokens?: number;
  /** Input tokens written to the provider's prompt cache (Codex `cache_write_input_tokens`, Claude `cache_creation_input_tokens`). */
  readonly cacheWriteInputTokens?: number;
  /** Output tokens. */
  readonly outputTokens?: number;
  /** Output tokens spent on reasoning (Codex `reasoning_output_tokens`). */
  readonly reasoningOutputTokens?: number;
  /** Cost in US dollars. */
  readonly costUsd?: number;
}

/** A normalized event from a running backend (all text bounded). */
export type BackendEvent =
  | { readonly kind: "started"; readonly backend: string; readonly sessionId?: string }
  | { readonly kind: "message"; readonly text: string }
  | {
    readonly kind: "command";
    readonly command: string;
    readonly exitCode: number | null;
    readonly status: string;
  }
  | {
    readonly kind: "file_change";
    readonly path: string;
    /** What the agent says it did (`add`, `update`, `delete`; Claude: the tool name). */
    readonly change: string;
    /** `completed`, `failed` or `requested` (Claude: a tool call whose result is not known yet). */
    readonly status: string;
  }
  | {
    readonly kind: "tool";
    readonly name: string;
    readonly isError: boolean;
    /** Why vouch refused the call (the policy's words), shown on the live line. */
    readonly refused?: string;
  }
  | { readonly kind: "usage"; readonly usage: BackendUsage }
  | { readonly kind: "error"; readonly message: string; readonly fatal: boolean }
  | {
    /** The CLI retries a provider request (Claude `system/api_retry`, Codex "Reconnecting..."). */
    readonly kind: "retry";
    readonly attempt: number;
    readonly maxAttempts: number | null;
    /** HTTP status of the failed request, when known. */
    readonly httpStatus: number | null;
    readonly message: string;
  }
  | {
    readonly kind: "protocol";
    readonly code: ProtocolIssueCode;
    readonly line: number;
    readonly detail: string;
  }
  | { readonly kind: "stderr"; readonly text: string }
  /** What the backend waits for now (`starting claude-code-acp (initialize)`): the live line's sub-step. */
  | { readonly kind: "step"; readonly text: string };

/** Why a stream line was not accepted as a protocol message. */
export type ProtocolIssueCode =
  | "not_json"
  | "schema"
  | "line_too_long"
  | "truncated"
  | "unknown_type"
  | "too_many_issues";

/** Where the bounded, masked transcript of a run was written. */
export interface TranscriptRef {
  /** Absolute path of the transcript file, or null when it was kept only in memory. */
  readonly path: string | null;
  /** `sha256:<hex>` of the transcript bytes as stored (after masking). */
  readonly digest: string;
  /** Stored size in bytes. */
  readonly bytes: number;
  /** Whether the transcript was cut to stay within its bound. */
  readonly truncated: boolean;
  /** How many secret-looking values were masked. */
  readonly masked: number;
}

/** The error part of a {@linkcode BackendResult} that did not end `ok`. */
export interface BackendFailure {
  /** What went wrong, as a stable code. */
  readonly code: BackendErrorCode;
  /** What went wrong, for humans. */
  readonly message: string;
  /** Whether retrying the same task may succeed. */
  readonly retryable: boolean;
}

/** One request an agent made of vouch, and the answer. */
export interface AgentDecision {
  /** `permission`, `read`, `write`, `list`, `terminal` or `command`. */
  readonly effect: string;
  /** The agent's tool kind or tool name. */
  readonly kind: string;
  /** Worktree-relative paths the request names. */
  readonly paths: readonly string[];
  /** What vouch answered. */
  readonly answer: "allow" | "deny";
  /** Stable reason (`allowed`, a refusal code, `needs_approval`, …). */
  readonly reason: string;
  /** `kernel`, `human`, or `kernel (no human to ask)`. */
  readonly by: string;
}

/** Most decisions one round records. */
export const MAX_DECISIONS = 1000;

/**
 * What a backend run returns. Every field except `status`, `backend`,
 * `transcript` and `decisions` (vouch's own answers) is the backend's claim.
 */
export interface BackendResult {
  /** The backend id. */
  readonly backend: string;
  /** How the run ended, decided by the adapter from the protocol, not the exit code alone. */
  readonly status: BackendStatus;
  /** The backend's final message, bounded. */
  readonly summary: string;
  /**
   * A patch the backend handed over as text (only the `fn` backend may do this;
   * worktree-editing backends leave it unset and vouch extracts the real diff).
   * Unverified bytes, never trusted.
   */
  readonly patchText?: Uint8Array;
  /**
   * The same handed-over patch as an {@linkcode UnverifiedPatch}, when the
   * task named its base. Unverified bytes, never trusted.
   */
  readonly patch?: UnverifiedPatch;
  /** Whether the backend claims the goal is done. A claim, nothing more. */
  readonly selfClaimedDone: boolean;
  /** Commands the backend says it ran (bounded list). */
  readonly commandsRun: readonly string[];
  /** Risks the backend reports (bounded list). */
  readonly risks: readonly string[];
  /** Usage as reported. */
  readonly usage: BackendUsage;
  /** The captured transcript, or null when none was captured. */
  readonly transcript: TranscriptRef | null;
  /** Process exit code (subprocess backends), null when killed or not a process. */
  readonly exitCode: number | null;
  /** Number of stream lines rejected as protocol issues. */
  readonly protocolIssues: number;
  /** Present when `status` is not `ok`. */
  readonly failure?: BackendFailure;
  /**
   * What the agent asked vouch to do for it and what vouch answered (ACP and
   * native backends: permissions, file access, terminals, commands), in order.
   * The driver records them in the event log (`backend.decisions`).
   */
  readonly decisions?: readonly AgentDecision[];
}

/** What the driver hands to `run` besides the task. */
export interface BackendContext {
  /** Aborted on cancellation (Ctrl-C, budget); `run` must return `cancelled` promptly. */
  readonly signal: AbortSignal;
  /** Receives normalized events while the backend runs. Must not throw. */
  emit(event: BackendEvent): void;
  /** Where to write the transcript file (a directory); omitted = keep none on disk. */
  readonly transcriptDir?: string;
}

/**
 * A coding backend: Codex CLI, Claude Code, an external command or an in-process function.
 *
 * @example
 * ```ts
 * import type { AgentBackend } from "./types.ts";
 * const idle: AgentBackend = {
 *   id: "idle",
 *   capabilities: () => ({ streaming: false, editsWorktree: true, reportsUsage: false, subprocess: false }),
 *   run: () => Promise.resolve({
 *     backend: "idle", status: "ok", summary: "", selfClaimedDone: false, commandsRun: [],
 *     risks: [], usage: {}, transcript: null, exitCode: null, protocolIssues: 0,
 *   }),
 * };
 * if (idle.id !== "idle") throw new Error();
 * ```
 */
export interface AgentBackend {
  /** Stable registry key, e.g. `codex`, `claude`, `command`, `fn`. */
  readonly id: string;
  /** Static description of what this backend can do. */
  capabilities(): BackendCapabilities;
  /** Runs one attempt. Resolves (never rejects) with a result whose status says how it ended. */
  run(task: AgentTask, ctx: BackendContext): Promise<BackendResult>;
  /**
   * Checks that the backend can start at all (e.g. the CLI is installed), before a
   * run spends any time; resolves to the failure, or null. Never rejects.
   */
  preflight?(): Promise<BackendFailure | null>;
  /**
   * The version its program's own install metadata names when that install is
   * complete and the program can start (an npm-installed `claude`, `codex`):
   * then `preflight` needs no process. Null when that cannot be told without
   * starting it. Never rejects.
   */
  installedVersion?(): Promise<string | null>;
  /**
   * Starts the agent for `task` in its worktree and checks it speaks its
   * protocol (the kernel's `start_backend`, before the baseline); the started
   * process serves the task's first round. Resolves to why it cannot start,
   * or null. A started agent is ended by `endTask`. Never rejects. `step`
   * names each sub-step as it begins (`starting claude-code-acp
   * (initialize)`), for the live progress line.
   */
  startTask?(
    task: BackendStart,
    signal: AbortSignal,
    step?: (text: string) => void,
  ): Promise<BackendFailure | null>;
  /**
   * Ends what the backend keeps between the rounds of `taskId` (a live ACP
   * session); called once the task needs no further round. Never rejects.
   */
  endTask?(taskId: string): Promise<void>;
}

/** Maximum characters kept in {@linkcode BackendResult.summary}. */
export const MAX_SUMMARY_CHARS = 4096;
/** Maximum entries kept in list fields of {@linkcode BackendResult}. */
export const MAX_LIST_ENTRIES = 200;
/** Maximum characters per list entry / event text. */
export const MAX_ENTRY_CHARS = 2000;

/**
 * Cuts text to at most `max` characters (UTF-16 code units, never splitting a
 * surrogate pair), marking the cut.
 *
 * @example
 * ```ts
 * import { boundText } from "./types.ts";
 * if (boundText("abcdef", 4) !== "abc…") throw new Error();
 * ```
 */
export function boundText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  const code = text.charCodeAt(end - 1);
  if (end > 0 && code >= 0xd800 && code <= 0xdbff) end -= 1;
  return text.slice(0, end) + "…";
}

/**
 * Bounds a list of strings: at most {@linkcode MAX_LIST_ENTRIES} entries of at
 * most {@linkcode MAX_ENTRY_CHARS} characters each.
 *
 * @example
 * ```ts
 * import { boundList } from "./types.ts";
 * if (boundList(["a", "b"]).length !== 2) throw new Error();
 * ```
 */
export function boundList(items: readonly string[]): string[] {
  return items.slice(0, MAX_LIST_ENTRIES).map((s) => boundText(s, MAX_ENTRY_CHARS));
}
