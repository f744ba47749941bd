/**
 * The shared shape of the `codex` and `claude` backends: run the CLI with the
 * prompt on stdin, feed every stdout line to a stream parser, and decide the
 * status from the stream (the exit code only corroborates).
 *
 * @module
 */
import { protocolIssue } from "./json_line.ts";
import type { StreamLine } from "./line_splitter.ts";
import { composePrompt } from "./prompt.ts";
import { cancelledBeforeStart, failure, guardRun, noClaims, unrunnable } from "./result.ts";
import {
  processStatus,
  reportedExitCode,
  runAgentProcess,
  safeEmit,
  type SubprocessConfig,
} from "./subprocess.ts";
import { maskSecrets } from "./transcript.ts";
import type {
  AgentBackend,
  AgentTask,
  BackendContext,
  BackendEvent,
  BackendResult,
  BackendUsage,
} from "./types.ts";
import { boundList, boundText, MAX_SUMMARY_CHARS } from "./types.ts";

/** The normalized outcome both stream parsers produce. */
export interface StreamOutcome {
  readonly success: boolean;
  readonly failureReason: string;
  readonly finalMessage: string;
  readonly commands: readonly string[];
  readonly usage: BackendUsage;
  readonly issues: number;
}

/** A stream parser as the CLI runner needs it. */
export interface StreamParser {
  accept(line: StreamLine): BackendEvent[];
  outcome(): StreamOutcome;
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
  config: SubprocessConfig,
  argvFor: (task: AgentTask) => string[],
  newParser: () => StreamParser,
): AgentBackend {
  return {
    id,
    capabilities: () => ({
      streaming: true,
      editsWorktree: true,
      reportsUsage: true,
      subprocess: true,
    }),
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
  let run;
  try {
    run = await runAgentProcess(
      backend,
      argv,
      task,
      ctx,
      config,
      new TextEncoder().encode(composePrompt(task)),
    );
  } catch (error) {
    return unrunnable(backend, error);
  }
  let issues = 0;
  let gaveUp = false;
  for (const line of run.lines) {
    if (gaveUp) break;
    for (const event of parser.accept(line)) {
      if (event.kind === "protocol") {
        issues += 1;
        if (issues > MAX_PROTOCOL_ISSUES) {
          gaveUp = true;
          safeEmit(
            ctx,
            protocolIssue(
              "too_many_issues",
              line.number,
              `more than ${MAX_PROTOCOL_ISSUES} protocol issues; rest ignored`,
            ),
          );
          break;
        }
      }
      safeEmit(ctx, maskEvent(event, mask));
    }
  }
  const outcome = parser.outcome();
  const p = run.process;
  const common = {
    ...noClaims(backend),
    summary: mask(boundText(outcome.finalMessage, MAX_SUMMARY_CHARS)).text,
    selfClaimedDone: outcome.success,
    commandsRun: boundList(outcome.commands.map((c) => mask(c).text)),
    usage: outcome.usage,
    transcript: run.transcript,
    exitCode: reportedExitCode(p),
    protocolIssues: outcome.issues,
  };
  const pre = processStatus(backend, p);
  if (pre !== null) return { ...common, selfClaimedDone: false, ...pre };
  if (run.outputOverflow) {
    return {
      ...common,
      status: "error",
      failure: failure(
        "protocol",
        `${backend} output exceeded ${task.maxOutputMb} MiB; the stream cannot be trusted`,
      ),
    };
  }
  if (gaveUp) {
    return {
      ...common,
      status: "error",
      failure: failure(
        "protocol",
        `${backend} stream had more than ${MAX_PROTOCOL_ISSUES} malformed lines`,
      ),
    };
  }
  if (!outcome.success) {
    return {
      ...common,
      status: "error",
      failure: failure(
        "execution",
        `${backend} reported failure: ${mask(outcome.failureReason).text}${
          p.exitCode !== 0 ? ` (exit ${p.exitCode})` : ""
        }`,
      ),
    };
  }
  if (p.exitCode !== 0) {
    return {
      ...common,
      status: "error",
      failure: failure(
        "protocol",
        `${backend} stream reports success but the process exited ${p.exitCode}`,
      ),
    };
  }
  return { ...common, status: "ok" };
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
