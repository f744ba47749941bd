/**
 * The protocol exchange of one ACP round: opening a session on a new agent
 * (`initialize`, `authenticate`, `session/new`) and the round's one
 * `session/prompt` turn, with what the turn's stop reason means for the
 * round. Each request races the agent's exit and the round's stop signal.
 *
 * @module
 */
import type { AcpClientStats } from "./_acp_client_env.ts";
import type { LiveAgent } from "./_acp_agent.ts";
import type { StartedAcp } from "./_acp_preflight.ts";
import type { AcpBackendConfig } from "./_acp_config.ts";
import { type PromptUsage, promptUsageOf } from "./_acp_usage.ts";
import { authMethodFor } from "./acp_presets.ts";
import { composePrompt } from "./prompt.ts";
import { failure } from "./result.ts";
import { passedEnvValues } from "./subprocess.ts";
import type { AgentTask, BackendContext, BackendFailure, BackendStatus } from "./types.ts";

/** Which request of the round is under way: the one that failed, when one does. */
export type AcpPhase = "initialize" | "authenticate" | "session/new" | "session/prompt";

/** How a round is going, filled in as it goes. */
export interface RoundOutcome {
  status: BackendStatus;
  why: BackendFailure | undefined;
  stopReason: string | null;
  promptUsage: PromptUsage | null;
  /** The agent can continue this session in the task's next round. */
  keep: boolean;
  sessionId: string;
  /** `initialize` or `session/new` failing means the agent could not start; else the turn. */
  phase: AcpPhase;
}

/** What one round's exchange works with. */
export interface AcpRound {
  readonly id: string;
  readonly config: AcpBackendConfig;
  readonly task: AgentTask;
  readonly ctx: BackendContext;
  readonly agent: LiveAgent;
  /** The agent started for the task before its baseline (it has answered `initialize`). */
  readonly started: StartedAcp | null;
  /** The round's deadline or the caller's cancel. */
  readonly stop: AbortSignal;
  /** The agent's name, for the progress steps. */
  readonly name: string;
  readonly step: (text: string) => void;
  readonly record: (entry: Record<string, unknown>) => void;
}

/** A promise that rejects when `signal` aborts. */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(new Error("aborted"));
    signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
  });
}

/**
 * Opens a session on an agent not continuing one: `initialize` (unless it answered before the
 * baseline), `authenticate` when the agent offers a method the config has, then `session/new`.
 */
export async function openSession(r: AcpRound, out: RoundOutcome): Promise<void> {
  const { agent, config, name, step, record } = r;
  const env = { ...(config.env ?? {}), ...passedEnvValues(config.passEnv ?? []) };
  const starting = AbortSignal.any([
    r.stop,
    AbortSignal.timeout(config.startTimeoutMs ?? 60_000),
  ]);
  if (r.started === null) step(`starting ${name} (initialize)`);
  const init = r.started?.init ?? await Promise.race([
    agent.conn.initialize({
      protocolVersion: agent.protocolVersion,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
    }),
    agent.agentGone,
    aborted(starting),
  ]);
  record({ initialized: { protocolVersion: init.protocolVersion } });
  out.keep = init.agentCapabilities?.loadSession === true;
  const method = authMethodFor(config.auth ?? [], init.authMethods ?? [], env);
  if (method !== null) {
    out.phase = "authenticate";
    step(`starting ${name} (authenticate)`);
    record({ authenticate: method });
    await Promise.race([
      agent.conn.authenticate({ methodId: method }),
      agent.agentGone,
      aborted(starting),
    ]);
  }
  out.phase = "session/new";
  step(`starting ${name} (session/new)`);
  const session = await Promise.race([
    agent.conn.newSession({ cwd: r.task.worktree, mcpServers: [...(config.mcpServers ?? [])] }),
    agent.agentGone,
    aborted(starting),
  ]);
  out.sessionId = session.sessionId;
  agent.state.sessionId = out.sessionId;
}

/**
 * What the turn's stop reason means: `end_turn` is a finished turn; `cancelled` (vouch did
 * not ask for it) is a round to judge when vouch refused something, else a cancelled one;
 * anything else is an error.
 */
function judgeStopReason(
  id: string,
  stats: AcpClientStats,
  out: RoundOutcome,
  stopReason: string,
): void {
  switch (stopReason) {
    case "end_turn":
      break;
    case "cancelled":
      // vouch did not ask for it: the agent abandoned its turn (codex-acp does when a
      // permission is refused). A refusal makes it a round to judge, with the reason.
      if (stats.refusals.length > 0) {
        out.stopReason = "abandoned_after_refusal";
        stats.agentText += `${stats.agentText === "" ? "" : "\n"}(the agent stopped its ` +
          `turn after vouch refused: ${stats.refusals.at(-1)})`;
      } else {
        out.status = "cancelled";
      }
      break;
    case "refusal":
      out.status = "error";
      out.why = failure("execution", `${id}: the agent refused the task`);
      break;
    default:
      out.status = "error";
      out.why = failure("limit_exceeded", `${id}: the agent stopped: ${stopReason}`);
  }
}

/**
 * The round's one `session/prompt` turn. On the round's timeout or Ctrl-C the agent is asked
 * to stop its turn (`session/cancel`), given a grace, and the session is not kept.
 */
export async function promptTurn(r: AcpRound, out: RoundOutcome): Promise<void> {
  const { conn } = r.agent;
  out.phase = "session/prompt";
  r.step(`${r.name} working`);
  const prompt = conn.prompt({
    sessionId: out.sessionId,
    prompt: [{ type: "text", text: composePrompt(r.task) }],
  });
  prompt.catch(() => {});
  const turn = await Promise.race([
    prompt.then((answer) => ({ answer })),
    r.agent.agentGone,
    aborted(r.stop).catch(() => null),
  ]);
  if (turn === null) {
    out.keep = false;
    // Timeout or Ctrl-C: ask the agent to stop its turn, then end it.
    await conn.cancel({ sessionId: out.sessionId }).catch(() => {});
    await Promise.race([
      prompt.catch(() => {}),
      new Promise((done) => setTimeout(done, r.config.cancelGraceMs ?? 3000)),
    ]);
    out.status = r.ctx.signal.aborted ? "cancelled" : "timed_out";
    return;
  }
  out.stopReason = turn.answer.stopReason;
  out.promptUsage = promptUsageOf(turn.answer);
  r.record({
    stopReason: out.stopReason,
    ...(out.promptUsage !== null ? { usage: out.promptUsage } : {}),
  });
  judgeStopReason(r.id, r.agent.stats, out, turn.answer.stopReason);
}
