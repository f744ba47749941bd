/**
 * One round of an ACP backend: start the agent (or continue its kept
 * session), `initialize`, `authenticate`, `session/new`, one
 * `session/prompt` turn (`_acp_session.ts`), then the round's result from
 * what the client saw.
 *
 * @module
 */
import type { ProcessResult } from "../process/types.ts";
import { endAgent, type LiveAgent, startAgent } from "./_acp_agent.ts";
import type { StartedAcp } from "./_acp_preflight.ts";
import type { AcpBackendConfig } from "./_acp_config.ts";
import { describeRpcError, rpcErrorClass } from "./_acp_errors.ts";
import { type AcpRound, openSession, promptTurn, type RoundOutcome } from "./_acp_session.ts";
import { agentName } from "./_acp_steps.ts";
import { acpUsage } from "./_acp_usage.ts";
import { cancelledBeforeStart, failure, noClaims } from "./result.ts";
import { safeEmit } from "./subprocess.ts";
import { captureTextTranscript, maskSecrets } from "./transcript.ts";
import type { AgentTask, BackendContext, BackendEvent, BackendResult } from "./types.ts";
import { boundList, boundText, MAX_SUMMARY_CHARS } from "./types.ts";

/**
 * The task's agent for this round: its kept session (`live`), else the agent started for it
 * before its baseline (`started`, it has answered initialize); either only when it is still
 * there in this worktree. Every other one is ended (all of them when `none`).
 */
async function takeAgent(
  task: AgentTask,
  sessions: Map<string, LiveAgent>,
  ready: Map<string, StartedAcp>,
  none: boolean,
): Promise<{ live: LiveAgent | null; started: StartedAcp | null }> {
  const kept = sessions.get(task.taskId);
  const waiting = ready.get(task.taskId);
  sessions.delete(task.taskId);
  ready.delete(task.taskId);
  const usable = (a: LiveAgent | undefined) =>
    !none && a !== undefined && a.worktree === task.worktree && !a.state.gone;
  const live = usable(kept) ? kept! : null;
  const started = live === null && usable(waiting?.agent) ? waiting! : null;
  if (kept !== undefined && live === null) await endAgent(kept);
  if (waiting !== undefined && started === null) await endAgent(waiting.agent);
  return { live, started };
}

/** A round's transcript lines (at most 20,000) and its emitter: each event recorded, then shown. */
interface RoundLog {
  readonly lines: string[];
  readonly record: (entry: Record<string, unknown>) => void;
  readonly emit: (event: BackendEvent) => void;
}

function roundLog(ctx: BackendContext): RoundLog {
  const lines: string[] = [];
  const record = (entry: Record<string, unknown>) => {
    if (lines.length < 20_000) lines.push(JSON.stringify(entry));
  };
  const emit = (event: BackendEvent) => {
    record({ event });
    safeEmit(ctx, event);
  };
  return { lines, record, emit };
}

/** This round's counters, transcript and signal (a kept session's client serves them now). */
function beginRound(agent: LiveAgent, log: RoundLog, signal: AbortSignal): void {
  Object.assign(agent.stats, {
    permissionRequests: 0,
    decisions: [],
    refusals: [],
    commands: [],
    agentText: "",
  });
  delete agent.stats.usage;
  agent.hooks.emit = log.emit;
  agent.hooks.record = log.record;
  agent.hooks.signal = signal;
}

/** A request that threw: the round's timeout or cancel, a message overflow, or an error. */
function roundFailed(r: AcpRound, out: RoundOutcome, error: unknown): void {
  out.keep = false;
  out.status = r.stop.aborted ? (r.ctx.signal.aborted ? "cancelled" : "timed_out") : "error";
  const rpc = describeRpcError(error);
  const overflow = r.agent.state.overflow;
  if (overflow !== null) {
    out.status = "error";
    out.why = failure("protocol", overflow);
  } else if (out.status === "error" && rpc !== null) {
    // The agent's own words, as one line, with the class of what failed.
    const cls = rpcErrorClass(rpc.code, out.phase === "session/prompt" ? "turn" : "start");
    const text = maskSecrets(rpc.text).text;
    out.why = failure(cls, `${r.id}: ${out.phase} failed: ${text} (JSON-RPC ${rpc.code})`);
  } else if (out.status === "error") {
    const message = error instanceof Error ? error.message : String(error);
    out.why = failure("protocol", `${r.id}: ${boundText(maskSecrets(message).text, 500)}`);
  }
}

/** A session the agent can continue stays live for the task's next round (ended by endTask). */
async function endRound(
  r: AcpRound,
  out: RoundOutcome,
  sessions: Map<string, LiveAgent>,
): Promise<void> {
  const { agent, task } = r;
  agent.stats.endTurn?.();
  out.keep = out.keep && out.status === "ok" && agent.state.overflow === null &&
    !agent.state.gone;
  if (out.keep) {
    sessions.set(task.taskId, { ...agent, worktree: task.worktree, sessionId: out.sessionId });
  } else {
    await endAgent(agent);
  }
}

/**
 * What the ended agent's exit adds: its stderr kept in the transcript (never shown live), a
 * spawn failure, its last stderr line on a protocol failure; a timeout or cancel is named so.
 */
function exitOutcome(
  r: AcpRound,
  out: RoundOutcome,
  result: ProcessResult | null,
): void {
  const { id, task } = r;
  const stderr = result?.stderr.head.trim().split("\n").at(-1) ?? "";
  // The agent's own stderr (SDK dumps, debug lines) is kept in the transcript, never shown live.
  if (result !== null && result.stderr.totalBytes > 0) {
    r.record({
      agentStderr: result.stderr.head +
        (result.stderr.truncated ? `\n[… truncated …]\n${result.stderr.tail}` : ""),
      bytes: result.stderr.totalBytes,
    });
  }
  if (result !== null && result.spawnError !== null && out.status !== "cancelled") {
    out.status = "error";
    out.why = failure("config", `${id}: ${result.spawnError.message}`);
  } else if (out.status === "error" && out.why?.code === "protocol" && stderr !== "") {
    out.why = {
      ...out.why,
      message: `${out.why.message} (agent stderr: ${boundText(stderr, 300)})`,
    };
  }
  if (out.status === "timed_out") {
    out.why = failure("timeout", `${id} did not finish within ${task.maxSeconds}s`);
  }
  if (out.status === "cancelled") out.why = failure("cancelled", `${id} was cancelled`);
}

/** A kept session's cost is cumulative: this round's share is what it added. */
function roundUsage(agent: LiveAgent): LiveAgent["stats"]["usage"] {
  const { stats, state } = agent;
  const last = stats.usage; // set by the client during the turn
  const share = last?.costUsd !== undefined
    ? { ...last, costUsd: Math.max(0, last.costUsd - state.costUsd) }
    : last;
  if (last?.costUsd !== undefined) state.costUsd = last.costUsd;
  return share;
}

/** The round's result: its transcript, the agent's summary and usage, vouch's decisions. */
async function roundResult(
  r: AcpRound,
  out: RoundOutcome,
  result: ProcessResult | null,
  lines: readonly string[],
): Promise<BackendResult> {
  const { id, task, ctx } = r;
  const { stats } = r.agent;
  const transcript = await captureTextTranscript({
    backend: id,
    taskId: task.taskId,
    attempt: task.attempt,
    text: lines.join("\n") + "\n",
    ...(ctx.transcriptDir !== undefined ? { dir: ctx.transcriptDir } : {}),
  });
  const summary = maskSecrets(boundText(stats.agentText.trim(), MAX_SUMMARY_CHARS)).text;
  if (summary !== "") safeEmit(ctx, { kind: "message", text: boundText(summary, 2000) });
  const usage = acpUsage(out.promptUsage, roundUsage(r.agent));
  if (out.promptUsage !== null) safeEmit(ctx, { kind: "usage", usage });
  return {
    ...noClaims(id),
    usage,
    status: out.status,
    summary,
    selfClaimedDone: out.status === "ok" && out.stopReason === "end_turn",
    commandsRun: boundList(stats.commands),
    risks: boundList(stats.refusals.map((x) => `refused ${x}`)),
    transcript,
    decisions: stats.decisions,
    exitCode: result?.exitCode ?? null,
    ...(out.why !== undefined ? { failure: out.why } : {}),
  };
}

/**
 * Runs one round of `task` on the agent of `config`: the agent started for the task before
 * its baseline (`ready`), else its kept session (`sessions`, between rounds), else a new one.
 */
export async function runAcp(
  id: string,
  config: AcpBackendConfig,
  task: AgentTask,
  ctx: BackendContext,
  sessions: Map<string, LiveAgent>,
  ready: Map<string, StartedAcp> = new Map(),
): Promise<BackendResult> {
  const cancelled = cancelledBeforeStart(id, ctx);
  const { live, started } = await takeAgent(task, sessions, ready, cancelled !== null);
  if (cancelled !== null) return cancelled;
  const log = roundLog(ctx);
  const deadline = AbortSignal.timeout(Math.max(1, task.maxSeconds * 1000));
  const stop = AbortSignal.any([ctx.signal, deadline]);
  const name = agentName(config.argv);
  const step = (text: string) => log.emit({ kind: "step", text });
  step(
    live !== null
      ? `${name}: continuing its session`
      : started !== null
      ? `${name}: started`
      : `starting ${name}`,
  );
  const agent = live ?? started?.agent ?? await startAgent(id, config, task);
  beginRound(agent, log, AbortSignal.any([stop, agent.kill.signal]));
  log.emit({ kind: "started", backend: id });
  if (live !== null) log.record({ continued: { sessionId: live.sessionId } });
  const r: AcpRound = {
    id,
    config,
    task,
    ctx,
    agent,
    started,
    stop,
    name,
    step,
    record: log.record,
  };
  const out: RoundOutcome = {
    status: "ok",
    why: undefined,
    stopReason: null,
    promptUsage: null,
    keep: false,
    sessionId: live?.sessionId ?? "",
    phase: live !== null ? "session/prompt" : "initialize",
  };
  try {
    if (live === null) await openSession(r, out);
    else out.keep = true;
    await promptTurn(r, out);
  } catch (error) {
    roundFailed(r, out, error);
  } finally {
    await endRound(r, out, sessions);
  }
  const result: ProcessResult | null = out.keep ? null : await agent.exited;
  exitOutcome(r, out, result);
  return await roundResult(r, out, result, log.lines);
}
