/**
 * The shared shape of the `codex` and `claude` backends: run the CLI with the
 * prompt on stdin, feed every stdout line to a stream parser WHILE the
 * process runs (events reach the context live), stop early when the parser
 * asks (authentication failed), and decide the status from the stream (the
 * exit code only corroborates). Before a run spends time, the preflight
 * checks that the CLI can start at all: from its npm package's own metadata
 * when that shows a complete install (no process), else
 * {@linkcode preflightAgentCli} (its `--version`).
 *
 * @module
 */
import { capabilitiesOf } from "./types.ts";
import { protocolIssue } from "./json_line.ts";
import { LineSplitter, type StreamLine } from "./line_splitter.ts";
import { probeAgentCli, stderrCause } from "./probe.ts";
import { CLI_PACKAGES, installedVersion } from "./_cli_install.ts";
import { composePrompt } from "./prompt.ts";
import { cancelledBeforeStart, failure, guardRun, unrunnable } from "./result.ts";
import {
  type AgentProcessRun,
  MAX_LINE_BYTES,
  processStatus,
  runAgentProcess,
  runClaims,
  safeEmit,
  type SubprocessConfig,
} from "./subprocess.ts";
import { maskSecrets } from "./transcript.ts";
import type { SandboxProfile } from "../sandbox/profile.ts";
import type {
  AgentBackend,
  AgentTask,
  BackendContext,
  BackendEvent,
  BackendFailure,
  BackendResult,
  BackendUsage,
} from "./types.ts";

/** The normalized outcome both stream parsers produce. */
export interface StreamOutcome {
  /** Whether the stream shows a finished, successful run. */
  readonly success: boolean;
  /** Why `success` is false (empty when it is true). */
  readonly failureReason: string;
  /** The agent's final message (bounded). */
  readonly finalMessage: string;
  /** Commands the agent ran (bounded). */
  readonly commands: readonly string[];
  /** Token and cost accounting the stream reported. */
  readonly usage: BackendUsage;
  /** Lines rejected as protocol issues. */
  readonly issues: number;
}

/** A stream parser as the CLI runner needs it. */
export interface StreamParser {
  /** Feeds one stream line; returns the backend events it yields. */
  accept(line: StreamLine): BackendEvent[];
  /** The outcome so far (final once the stream has ended). */
  outcome(): StreamOutcome;
  /** A reason to stop the CLI now (checked after every line), or null. */
  stopRequest?(): { readonly code: "config" | "execution"; readonly message: string } | null;
}

/** Stops feeding lines after this many protocol issues (the stream is garbage). */
export const MAX_PROTOCOL_ISSUES = 1000;

/**
 * Creates a streaming agent-CLI backend (`codex`, `claude`): each run builds
 * its argv for the task and a fresh stream parser, and goes through
 * {@linkcode runAgentCli} inside {@linkcode guardRun}.
 *
 * @example
 * ```ts
 * import { agentCliBackend } from "./agent_cli.ts";
 * import { CodexStreamParser } from "./codex_stream.ts";
 * const b = agentCliBackend("codex", {}, () => ["codex", "exec", "-"], () => new CodexStreamParser());
 * if (b.id !== "codex" || !b.capabilities().streaming) throw new Error();
 * ```
 */
export function agentCliBackend(
  id: string,
  config: SubprocessConfig & { readonly executable?: string },
  argvFor: (task: AgentTask) => string[],
  newParser: () => StreamParser,
): AgentBackend {
  return {
    id,
    // An npm install its own metadata shows complete starts without a `--version`.
    installedVersion: () => installedVersion(config.executable ?? id, CLI_PACKAGES[id] ?? []),
    preflight: async () =>
      await installedVersion(config.executable ?? id, CLI_PACKAGES[id] ?? []) !== null
        ? null
        : await preflightAgentCli(id, config.executable ?? id, config.sandbox),
    capabilities: capabilitiesOf("streaming", "editsWorktree", "reportsUsage", "subprocess"),
    run: (task, ctx) =>
      guardRun(id, () => runAgentCli(id, argvFor(task), task, ctx, config, newParser())),
  };
}

/**
 * Runs an agent CLI and interprets its stream.
 *
 * @example
 * ```ts ignore
 * const result = await runAgentCli("codex", argv, task, ctx, config, new CodexStreamParser());
 * ```
 */
export async function runAgentCli(
  backend: string,
  argv: readonly string[],
  task: AgentTask,
  ctx: BackendContext,
  config: SubprocessConfig,
  parser: StreamParser,
): Promise<BackendResult> {
  const mask = config.mask ?? maskSecrets;
  const cancelled = cancelledBeforeStart(backend, ctx);
  if (cancelled !== null) return cancelled;
  const stream = streamFeed(parser, task, ctx, mask);
  const splitter = new LineSplitter(MAX_LINE_BYTES);
  // The live line names the sub-step: the CLI starting, then (its first line out) working.
  safeEmit(ctx, { kind: "step", text: `starting ${backend}` });
  let spoke = false;
  const onStdout = (chunk: Uint8Array) => {
    if (!spoke) safeEmit(ctx, { kind: "step", text: `${backend} working` });
    spoke = true;
    stream.feed(splitter.push(chunk));
  };
  let run;
  try {
    run = await runAgentProcess(
      backend,
      argv,
      task,
      ctx,
      config,
      new TextEncoder().encode(composePrompt(task)),
      {},
      { onStdout, stop: stream.stop.signal },
    );
  } catch (error) {
    return unrunnable(backend, error);
  }
  stream.feed(splitter.end());
  return streamResult(backend, task, ctx, run, parser.outcome(), stream, mask);
}

type Mask = (text: string) => { text: string };

/** Where feeding the stream to its parser got to. */
interface StreamFeed {
  /** Feeds stdout lines to the parser; its events (masked, paths relative) reach the context. */
  feed(lines: readonly StreamLine[]): void;
  /** Aborted when the parser asks to stop the CLI. */
  readonly stop: AbortController;
  /** More than {@linkcode MAX_PROTOCOL_ISSUES} protocol issues: the rest was ignored. */
  readonly gaveUp: boolean;
  /** Why the parser stopped the CLI, or null. */
  readonly stopped: BackendFailure | null;
}

/** Feeds the CLI's stream to its parser as it arrives, and stops the CLI when the parser asks. */
function streamFeed(
  parser: StreamParser,
  task: AgentTask,
  ctx: BackendContext,
  mask: Mask,
): StreamFeed {
  let issues = 0;
  const state = { gaveUp: false, stopped: null as BackendFailure | null };
  const stop = new AbortController();
  const feed = (lines: readonly StreamLine[]) => {
    for (const line of lines) {
      if (state.gaveUp) return;
      for (const event of parser.accept(line)) {
        if (event.kind === "protocol") {
          issues += 1;
          if (issues > MAX_PROTOCOL_ISSUES) {
            state.gaveUp = true;
            safeEmit(
              ctx,
              protocolIssue(
                "too_many_issues",
                line.number,
                `more than ${MAX_PROTOCOL_ISSUES} protocol issues; rest ignored`,
              ),
            );
            return;
          }
        }
        safeEmit(ctx, maskEvent(relativeToWorktree(event, task.worktree), mask));
      }
      const request = state.stopped === null ? parser.stopRequest?.() ?? null : null;
      if (request !== null) {
        state.stopped = failure(request.code, mask(request.message).text);
        stop.abort();
      }
    }
  };
  return {
    feed,
    stop,
    get gaveUp() {
      return state.gaveUp;
    },
    get stopped() {
      return state.stopped;
    },
  };
}

/**
 * The run's result, decided from the stream (the exit code corroborates):
 * stopped on the stream's word, the process's own failure, output overflow,
 * a garbage stream, a reported failure, success with a failing exit, or ok.
 */
function streamResult(
  backend: string,
  task: AgentTask,
  ctx: BackendContext,
  run: AgentProcessRun,
  outcome: StreamOutcome,
  stream: StreamFeed,
  mask: Mask,
): BackendResult {
  const p = run.process;
  const said = { summary: outcome.finalMessage, commands: outcome.commands, risks: [] };
  const common = {
    ...runClaims(backend, run, mask, said),
    selfClaimedDone: outcome.success,
    usage: outcome.usage,
    protocolIssues: outcome.issues,
  };
  const error = (code: BackendFailure["code"], message: string): BackendResult => ({
    ...common,
    status: "error",
    failure: failure(code, message),
  });
  if (stream.stopped !== null && !ctx.signal.aborted) {
    // Stopped by vouch on the stream's word (e.g. a bad key): the cause, not "cancelled".
    const stopped = stream.stopped;
    return { ...common, selfClaimedDone: false, exitCode: null, status: "error", failure: stopped };
  }
  const pre = processStatus(backend, p);
  if (pre !== null) return { ...common, selfClaimedDone: false, ...pre };
  if (run.outputOverflow) {
    return error(
      "protocol",
      `${backend} output exceeded ${task.maxOutputMb} MiB; the stream cannot be trusted`,
    );
  }
  if (stream.gaveUp) {
    return error(
      "protocol",
      `${backend} stream had more than ${MAX_PROTOCOL_ISSUES} malformed lines`,
    );
  }
  if (!outcome.success) {
    return error(
      "execution",
      `${backend} reported failure: ${mask(outcome.failureReason).text}${
        p.exitCode !== 0 ? ` (exit ${p.exitCode})` : ""
      }${run.lines.length === 0 ? stderrCause(p.stderr.head + p.stderr.tail, mask) : ""}`,
    );
  }
  if (p.exitCode !== 0) {
    return error(
      "protocol",
      `${backend} stream reports success but the process exited ${p.exitCode}`,
    );
  }
  return { ...common, status: "ok" };
}

/** Paths inside the worktree are shown relative to it (what the user recognises). */
function relativeToWorktree(event: BackendEvent, worktree: string): BackendEvent {
  if (event.kind !== "file_change" || !event.path.startsWith(`${worktree}/`)) return event;
  return { ...event, path: event.path.slice(worktree.length + 1) };
}

function maskEvent(event: BackendEvent, mask: (t: string) => { text: string }): BackendEvent {
  switch (event.kind) {
    case "message":
    case "stderr":
      return { ...event, text: mask(event.text).text };
    case "command":
      return { ...event, command: mask(event.command).text };
    case "error":
      return { ...event, message: mask(event.message).text };
    case "protocol":
      return { ...event, detail: mask(event.detail).text };
    default:
      return event;
  }
}

/**
 * Checks that an agent CLI can start (found, executable, `--version` works)
 * before a run spends any time on it, inside `sandbox` when given (the
 * agent's). Returns the failure, or null.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { preflightAgentCli } from "./agent_cli.ts";
 * const f = await preflightAgentCli("claude", "/nonexistent/claude");
 * equal(f?.code, "config");
 * equal(f?.message, "claude: /nonexistent/claude: no such file");
 * ```
 */
export async function preflightAgentCli(
  backend: string,
  executable: string,
  sandbox?: SandboxProfile,
): Promise<BackendFailure | null> {
  const probe = await probeAgentCli(backend, executable, sandbox);
  if (probe.available) return null;
  const reason = (probe.reason ?? "cannot start").replace(/^Cannot run: /, "");
  return failure(
    "config",
    reason.startsWith(`${executable}:`) && executable === backend
      ? reason
      : `${backend}: ${reason}`,
  );
}
