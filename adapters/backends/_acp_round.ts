/**
 * One round of an ACP backend: start the agent (or continue its kept
 * session), `initialize`, `authenticate`, `session/new`, one
 * `session/prompt` turn, then the round's result from what the client saw.
 *
 * @module
 */
import type { ProcessResult } from "../process/types.ts";
import type { AcpClientStats } from "./_acp_client_env.ts";
import { endAgent, type LiveAgent, startAgent } from "./_acp_agent.ts";
import type { StartedAcp } from "./_acp_preflight.ts";
import type { AcpBackendConfig } from "./_acp_config.ts";
import { describeRpcError, rpcErrorClass } from "./_acp_errors.ts";
import { agentName } from "./_acp_steps.ts";
import { acpUsage, type PromptUsage, promptUsageOf } from "./_acp_usage.ts";
import { authMethodFor } from "./acp_presets.ts";
import { composePrompt } from "./prompt.ts";
import { cancelledBeforeStart, failure } from "./result.ts";
import { passedEnvValues, safeEmit } from "./subprocess.ts";
import { captureTextTranscript, maskSecrets } from "./transcript.ts";
import type {
  AgentTask,
  BackendContext,
  BackendEvent,
  BackendFailure,
  BackendResult,
  BackendStatus,
} from "./types.ts";
import { boundList, boundText, MAX_SUMMARY_CHARS } from "./types.ts";
import { noClaims } from "./result.ts";

/** A promise that rejects when `signal` aborts. */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(new Error("aborted"));
    signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
  });
}

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
  const lines: string[] = [];
  const record = (entry: Record<string, unknown>) => {
    if (lines.length < 20_000) lines.push(JSON.stringify(entry));
  };
  const emit = (event: BackendEvent) => {
    record({ event });
    safeEmit(ctx, event);
  };
  const deadline = AbortSignal.timeout(Math.max(1, task.maxSeconds * 1000));
  const stop = AbortSignal.any([ctx.signal, deadline]);
  const env = { ...(config.env ?? {}), ...passedEnvValues(config.passEnv ?? []) };
  const name = agentName(config.argv);
  const step = (text: string) => emit({ kind: "step", text });
  step(
    live !== null
      ? `${name}: continuing its session`
      : started !== null
      ? `${name}: started`
      : `starting ${name}`,
  );
  const agent = live ?? started?.agent ?? await startAgent(id, config, task);
  const { conn, exited, kill, agentGone, stats, state } = agent;
  // This round's counters, transcript and signal (a kept session's client serves them now).
  Object.assign(stats, {
    permissionRequests: 0,
    decisions: [],
    refusals: [],
    commands: [],
    agentText: "",
  });
  delete stats.usage;
  agent.hooks.emit = emit;
  agent.hooks.record = record;
  agent.hooks.signal = AbortSignal.any([stop, kill.signal]);
  emit({ kind: "started", backend: id });
  if (live !== null) record({ continued: { sessionId: live.sessionId } });

  let status: BackendStatus = "ok";
  let why: BackendFailure | undefined;
  let stopReason: string | null = null;
  let promptUsage: PromptUsage | null = null;
  let keep = false;
  let sessionId = live?.sessionId ?? "";
  // Which request failed: `initialize` or `session/new` (the agent could not start) or the turn.
  let phase: "initialize" | "authenticate" | "session/new" | "session/prompt" = live !== null
    ? "session/prompt"
    : "initialize";
  try {
    if (live === null) {
      const starting = AbortSignal.any([
        stop,
        AbortSignal.timeout(config.startTimeoutMs ?? 60_000),
      ]);
      if (started === null) step(`starting ${name} (initialize)`);
      const init = started?.init ?? await Promise.race([
        conn.initialize({
          protocolVersion: agent.protocolVersion,
          clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
        }),
        agentGone,
        aborted(starting),
      ]);
      record({ initialized: { protocolVersion: init.protocolVersion } });
      keep = init.agentCapabilities?.loadSession === true;
      const method = authMethodFor(config.auth ?? [], init.authMethods ?? [], env);
      if (method !== null) {
        phase = "authenticate";
        step(`starting ${name} (authenticate)`);
        record({ authenticate: method });
        await Promise.race([conn.authenticate({ methodId: method }), agentGone, aborted(starting)]);
      }
      phase = "session/new";
      step(`starting ${name} (session/new)`);
      const session = await Promise.race([
        conn.newSession({ cwd: task.worktree, mcpServers: [...(config.mcpServers ?? [])] }),
        agentGone,
        aborted(starting),
      ]);
      sessionId = session.sessionId;
      state.sessionId = sessionId;
    } else {
      keep = true;
    }
    phase = "session/prompt";
    step(`${name} working`);
    const prompt = conn.prompt({
      sessionId,
      prompt: [{ type: "text", text: composePrompt(task) }],
    });
    prompt.catch(() => {});
    const turn = await Promise.race([
      prompt.then((r) => ({ r })),
      agentGone,
      aborted(stop).catch(() => null),
    ]);
    if (turn === null) {
      keep = false;
      // Timeout or Ctrl-C: ask the agent to stop its turn, then end it.
      await conn.cancel({ sessionId }).catch(() => {});
      await Promise.race([
        prompt.catch(() => {}),
        new Promise((r) => setTimeout(r, config.cancelGraceMs ?? 3000)),
      ]);
      status = ctx.signal.aborted ? "cancelled" : "timed_out";
    } else {
      stopReason = turn.r.stopReason;
      promptUsage = promptUsageOf(turn.r);
      record({ stopReason, ...(promptUsage !== null ? { usage: promptUsage } : {}) });
      switch (turn.r.stopReason) {
        case "end_turn":
          break;
        case "cancelled":
          // vouch did not ask for it: the agent abandoned its turn (codex-acp does when a
          // permission is refused). A refusal makes it a round to judge, with the reason.
          if (stats.refusals.length > 0) {
            stopReason = "abandoned_after_refusal";
            stats.agentText += `${stats.agentText === "" ? "" : "\n"}(the agent stopped its ` +
              `turn after vouch refused: ${stats.refusals.at(-1)})`;
          } else {
            status = "cancelled";
          }
          break;
        case "refusal":
          status = "error";
          why = failure("execution", `${id}: the agent refused the task`);
          break;
        default:
          status = "error";
          why = failure("limit_exceeded", `${id}: the agent stopped: ${turn.r.stopReason}`);
      }
    }
  } catch (error) {
    keep = false;
    status = stop.aborted ? (ctx.signal.aborted ? "cancelled" : "timed_out") : "error";
    const rpc = describeRpcError(error);
    const overflow = state.overflow;
    if (overflow !== null) {
      status = "error";
      why = failure("protocol", overflow);
    } else if (status === "error" && rpc !== null) {
      // The agent's own words, as one line, with the class of what failed.
      const cls = rpcErrorClass(rpc.code, phase === "session/prompt" ? "turn" : "start");
      const text = maskSecrets(rpc.text).text;
      why = failure(cls, `${id}: ${phase} failed: ${text} (JSON-RPC ${rpc.code})`);
    } else if (status === "error") {
      const message = error instanceof Error ? error.message : String(error);
      why = failure("protocol", `${id}: ${boundText(maskSecrets(message).text, 500)}`);
    }
  } finally {
    stats.endTurn?.();
    // A session the agent can continue stays live for the task's next round (ended by endTask).
    keep = keep && status === "ok" && state.overflow === null && !state.gone;
    if (keep) {
      sessions.set(task.taskId, { ...agent, worktree: task.worktree, sessionId });
    } else {
      await endAgent(agent);
    }
  }
  const result: ProcessResult | null = keep ? null : await exited;
  const stderr = result?.stderr.head.trim().split("\n").at(-1) ?? "";
  // The agent's own stderr (SDK dumps, debug lines) is kept in the transcript, never shown live.
  if (result !== null && result.stderr.totalBytes > 0) {
    record({
      agentStderr: result.stderr.head +
        (result.stderr.truncated ? `\n[… truncated …]\n${result.stderr.tail}` : ""),
      bytes: result.stderr.totalBytes,
    });
  }
  if (result !== null && result.spawnError !== null && status !== "cancelled") {
    status = "error";
    why = failure("config", `${id}: ${result.spawnError.message}`);
  } else if (status === "error" && why?.code === "protocol" && stderr !== "") {
    why = { ...why, message: `${why.message} (agent stderr: ${boundText(stderr, 300)})` };
  }
  if (status === "timed_out") {
    why = failure("timeout", `${id} did not finish within ${task.maxSeconds}s`);
  }
  if (status === "cancelled") why = failure("cancelled", `${id} was cancelled`);
  const transcript = await captureTextTranscript({
    backend: id,
    taskId: task.taskId,
    attempt: task.attempt,
    text: lines.join("\n") + "\n",
    ...(ctx.transcriptDir !== undefined ? { dir: ctx.transcriptDir } : {}),
  });
  const summary = maskSecrets(boundText(stats.agentText.trim(), MAX_SUMMARY_CHARS)).text;
  if (summary !== "") safeEmit(ctx, { kind: "message", text: boundText(summary, 2000) });
  // A kept session's cost is cumulative: this round's share is what it added.
  const last = stats.usage as AcpClientStats["usage"]; // set by the client during the turn
  const roundUsage = last?.costUsd !== undefined
    ? { ...last, costUsd: Math.max(0, last.costUsd - state.costUsd) }
    : last;
  if (last?.costUsd !== undefined) state.costUsd = last.costUsd;
  const usage = acpUsage(promptUsage, roundUsage);
  if (promptUsage !== null) safeEmit(ctx, { kind: "usage", usage });
  return {
    ...noClaims(id),
    usage,
    status,
    summary,
    selfClaimedDone: status === "ok" && stopReason === "end_turn",
    commandsRun: boundList(stats.commands),
    risks: boundList(stats.refusals.map((r) => `refused ${r}`)),
    transcript,
    decisions: stats.decisions,
    exitCode: result?.exitCode ?? null,
    ...(why !== undefined ? { failure: why } : {}),
  };
}
