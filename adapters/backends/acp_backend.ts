/**
 * Any agent that speaks the Agent Client Protocol (JSON-RPC over stdio:
 * Claude Code, Codex, Gemini CLI and OpenCode through their ACP modes or
 * adapters), with vouch as the client. The agent process runs confined like
 * every backend; what it asks of its client (files, terminals, permissions)
 * is decided by the kernel and served by vouch (`_acp_client.ts`). Its stop
 * reason is a claim: the real diff is re-derived and verified by the driver.
 *
 * @module
 */
// The ACP SDK is loaded when an ACP agent starts, not when vouch is imported (import cost).
type AcpSdk = typeof import("@agentclientprotocol/sdk");
import type { Writable } from "node:stream";
import { compileToolAccessRules } from "../../kernel/scope/judge_tool_access.ts";
import { defaultPolicy } from "../../kernel/lifecycle/policy.ts";
import type { PolicySnapshot } from "../../kernel/lifecycle/policy_types.ts";
import { runProcess } from "../process/run.ts";
import type { ProcessResult } from "../process/types.ts";
import { NO_SANDBOX, type SandboxProfile } from "../sandbox/profile.ts";
import { acpClient, type AcpClientStats, type PermissionQuestion } from "./_acp_client.ts";
import { preflightAcp } from "./_acp_preflight.ts";
import { describeRpcError, rpcErrorClass } from "./_acp_errors.ts";
import { fileService } from "./_file_service.ts";
import { type AcpAuthChoice, authMethodFor } from "./acp_presets.ts";
import { terminalRuntime } from "./_terminal.ts";
import { captureSdkLog } from "./_acp_sdk_log.ts";
import { agentName } from "./_acp_steps.ts";

export type { PermissionQuestion } from "./_acp_client.ts";
import { composePrompt } from "./prompt.ts";
import { cancelledBeforeStart, failure, guardRun, noClaims } from "./result.ts";
import { passedEnvValues, safeEmit } from "./subprocess.ts";
import { captureTextTranscript, maskSecrets } from "./transcript.ts";
import type {
  AgentBackend,
  AgentTask,
  BackendContext,
  BackendEvent,
  BackendFailure,
  BackendResult,
  BackendStatus,
  BackendUsage,
} from "./types.ts";
import { boundList, boundText, MAX_SUMMARY_CHARS } from "./types.ts";

/** Settings of {@linkcode acpBackend}. */
export interface AcpBackendConfig {
  /** The agent's command line, e.g. `["claude-code-acp"]`. */
  readonly argv: readonly string[];
  /** Where the agent and its terminals run. @default no sandbox */
  readonly sandbox?: SandboxProfile;
  /** Variable names forwarded from vouch's environment (values never logged). */
  readonly passEnv?: readonly string[];
  /** Extra variables for the agent (e.g. a base URL). */
  readonly env?: Readonly<Record<string, string>>;
  /** The agent's HOME (for its own config). */
  readonly home?: string;
  /** Policy that judges file access and permissions. @default defaultPolicy() */
  readonly policy?: PolicySnapshot;
  /** Time `initialize` and `session/new` may take, ms. @default 60000 */
  readonly startTimeoutMs?: number;
  /** After `session/cancel`, how long the agent has to stop its turn, ms. @default 3000 */
  readonly cancelGraceMs?: number;
  /** Time limit of one terminal command, ms. @default 300000 */
  readonly terminalTimeoutMs?: number;
  /** Asks a human about permissions the policy sends to one; absent = they are refused. */
  readonly askHuman?: (question: PermissionQuestion) => Promise<boolean>;
  /**
   * `authenticate` choices (a preset's): the first method the agent's `initialize`
   * lists whose key variable is forwarded is called before `session/new`.
   */
  readonly auth?: readonly AcpAuthChoice[];
}

/**
 * A backend speaking ACP to the agent `config.argv`.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { acpBackend } from "./acp_backend.ts";
 * const b = acpBackend({ argv: ["my-acp-agent"] });
 * equal(b.id, "acp");
 * equal(b.capabilities().subprocess, true);
 * ```
 */
export function acpBackend(config: AcpBackendConfig): AgentBackend {
  const id = "acp";
  // Live sessions kept between the rounds of a task (agents that advertise `loadSession`).
  const sessions = new Map<string, LiveAgent>();
  return {
    id,
    capabilities: () => ({
      streaming: true,
      editsWorktree: true,
      reportsUsage: true,
      subprocess: true,
    }),
    // The agent starts and answers `initialize` before the baseline spends any time.
    preflight: () =>
      preflightAcp({
        argv: config.argv,
        sandbox: config.sandbox ?? NO_SANDBOX,
        ...(config.env !== undefined ? { env: config.env } : {}),
        ...(config.passEnv !== undefined ? { passEnv: config.passEnv } : {}),
        ...(config.home !== undefined ? { home: config.home } : {}),
        timeoutMs: config.startTimeoutMs ?? 60_000,
      }),
    run: (task, ctx) => guardRun(id, () => runAcp(id, config, task, ctx, sessions)),
    endTask: async (taskId) => {
      const live = sessions.get(taskId);
      sessions.delete(taskId);
      if (live !== undefined) await endAgent(live);
    },
  };
}

/** The agent process and session of a task, kept for its next round. */
interface LiveAgent {
  readonly worktree: string;
  readonly conn: InstanceType<AcpSdk["ClientSideConnection"]>;
  readonly sessionId: string;
  readonly exited: Promise<ProcessResult>;
  readonly kill: AbortController;
  readonly toAgent: WritableStream<Uint8Array>;
  readonly files: { close(): Promise<void> };
  readonly agentGone: Promise<never>;
  /** The round the client's requests belong to now. */
  readonly hooks: RoundHooks;
  readonly stats: AcpClientStats;
  readonly state: { overflow: string | null; gone: boolean; costUsd: number; sessionId: string };
  readonly protocolVersion: number;
}

interface RoundHooks {
  emit: (event: BackendEvent) => void;
  record: (entry: Record<string, unknown>) => void;
  signal: AbortSignal;
}

/** Closes the agent's stdin, gives it a second to leave, then ends it. */
async function endAgent(live: Pick<LiveAgent, "toAgent" | "kill" | "exited" | "files">) {
  try {
    await live.toAgent.close();
  } catch { /* closed */ }
  const timer = setTimeout(() => live.kill.abort(), 1000);
  await live.exited.catch(() => {});
  clearTimeout(timer);
  await live.files.close();
}

/**
 * Longest JSON-RPC message (one line) vouch reads from an agent; past it the
 * agent is ended with a protocol error (memory stays bounded, the round ends
 * at once). An 8 MiB file written through `fs/write_text_file` fits.
 */
export const MAX_ACP_MESSAGE_BYTES = 16 * 1024 * 1024;

/** Token counts of a `session/prompt` answer (ACP `Usage`). */
interface PromptUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedReadTokens?: number | null;
  readonly cachedWriteTokens?: number | null;
  readonly thoughtTokens?: number | null;
}

const count = (n: number | null | undefined): number | undefined =>
  typeof n === "number" && Number.isFinite(n) && n >= 0 ? Math.floor(n) : undefined;

/**
 * A round's usage: the tokens of the `session/prompt` answer when the agent
 * reports them, else the context tokens of its last `usage_update` as input;
 * the cost (USD) of the last `usage_update`.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { acpUsage } from "./acp_backend.ts";
 * deepEqual(acpUsage(null, { used: 1200, size: 200000, costUsd: 0.05 }), { inputTokens: 1200, costUsd: 0.05 });
 * deepEqual(acpUsage({ inputTokens: 10, outputTokens: 5, thoughtTokens: 2 }, undefined), { inputTokens: 10, outputTokens: 5, reasoningOutputTokens: 2 });
 * deepEqual(acpUsage(null, undefined), {});
 * ```
 */
export function acpUsage(
  prompt: PromptUsage | null,
  update: { used: number; size: number; costUsd?: number } | undefined,
): BackendUsage {
  const out: Record<string, number> = {};
  const set = (k: keyof BackendUsage, v: number | undefined) => {
    if (v !== undefined) out[k] = v;
  };
  if (prompt !== null) {
    set("inputTokens", count(prompt.inputTokens));
    set("cachedInputTokens", count(prompt.cachedReadTokens));
    set("cacheWriteInputTokens", count(prompt.cachedWriteTokens));
    set("outputTokens", count(prompt.outputTokens));
    set("reasoningOutputTokens", count(prompt.thoughtTokens));
  } else if (update !== undefined) {
    set("inputTokens", count(update.used));
  }
  if (update?.costUsd !== undefined) out["costUsd"] = update.costUsd;
  return out as BackendUsage;
}

/** A promise that rejects when `signal` aborts. */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(new Error("aborted"));
    signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
  });
}

async function runAcp(
  id: string,
  config: AcpBackendConfig,
  task: AgentTask,
  ctx: BackendContext,
  sessions: Map<string, LiveAgent>,
): Promise<BackendResult> {
  const cancelled = cancelledBeforeStart(id, ctx);
  if (cancelled !== null) return cancelled;
  const kept = sessions.get(task.taskId);
  sessions.delete(task.taskId);
  if (kept !== undefined && (kept.worktree !== task.worktree || kept.state.gone)) {
    await endAgent(kept);
  }
  const live = kept !== undefined && kept.worktree === task.worktree && !kept.state.gone
    ? kept
    : null;
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
  step(live !== null ? `${name}: continuing its session` : `starting ${name}`);
  const agent = live ?? await startAgent(id, config, task);
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
      step(`starting ${name} (initialize)`);
      const init = await Promise.race([
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
        conn.newSession({ cwd: task.worktree, mcpServers: [] }),
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
      promptUsage = turn.r.usage ?? null;
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

/** Starts the agent process and its connection (vouch is the client). */
async function startAgent(
  id: string,
  config: AcpBackendConfig,
  task: AgentTask,
): Promise<LiveAgent> {
  const hooks: RoundHooks = {
    emit: () => {},
    record: () => {},
    signal: new AbortController().signal,
  };
  const record = (entry: Record<string, unknown>) => hooks.record(entry);
  const state = { overflow: null as string | null, gone: false, costUsd: 0, sessionId: "" };
  const stats: AcpClientStats = {
    permissionRequests: 0,
    decisions: [],
    refusals: [],
    commands: [],
    agentText: "",
  };
  const kill = new AbortController(); // ends the agent process
  let opened!: (s: Writable) => void;
  const stdinReady = new Promise<Writable>((resolve) => (opened = resolve));
  let toSdk!: ReadableStreamDefaultController<Uint8Array>;
  const fromAgent = new ReadableStream<Uint8Array>({ start: (c) => void (toSdk = c) });
  const env = { ...(config.env ?? {}), ...passedEnvValues(config.passEnv ?? []) };
  // The message being read is held here until its newline (the SDK gets whole lines only, so
  // its own buffer never grows); past the bound the agent is ended.
  let partial: Uint8Array[] = [];
  let lineBytes = 0;
  const forward = (chunk: Uint8Array) => {
    if (state.overflow !== null) return;
    for (let start = 0;;) {
      const nl = chunk.indexOf(0x0a, start);
      lineBytes += (nl < 0 ? chunk.length : nl) - start;
      if (lineBytes > MAX_ACP_MESSAGE_BYTES) break;
      if (nl < 0) {
        const last = chunk.lastIndexOf(0x0a);
        if (last >= 0) {
          enqueue([...partial, chunk.subarray(0, last + 1)]);
          partial = [];
        }
        partial.push(chunk.slice(last + 1));
        return;
      }
      lineBytes = 0;
      start = nl + 1;
    }
    partial = [];
    state.overflow = `${id}: the agent sent a JSON-RPC message longer than ${
      MAX_ACP_MESSAGE_BYTES / (1024 * 1024)
    } MiB; vouch ended it`;
    record({ protocolError: state.overflow });
    kill.abort();
    try {
      toSdk.close();
    } catch { /* already closed */ }
  };
  const enqueue = (parts: Uint8Array[]) => {
    const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      all.set(p, at);
      at += p.length;
    }
    try {
      toSdk.enqueue(all);
    } catch { /* the SDK stopped reading */ }
  };
  const proc: Promise<ProcessResult> = runProcess({
    argv: config.argv,
    cwd: task.worktree,
    sandbox: config.sandbox ?? NO_SANDBOX,
    env,
    ...(config.passEnv !== undefined ? { allowSecretEnv: config.passEnv } : {}),
    ...(config.home !== undefined ? { home: config.home } : {}),
    signal: kill.signal,
    maxCaptureBytes: 256 * 1024,
    openStdin: (s) => opened(s),
    onStdout: forward,
  });
  // The SDK's own "Error handling request" dumps go to the round's transcript, not the screen.
  const releaseLog = captureSdkLog({
    sessionId: () => state.sessionId,
    record: (text) => record({ sdkLog: boundText(maskSecrets(text).text, 4000) }),
  });
  const exited = proc.then((r) => {
    releaseLog();
    state.gone = true;
    try {
      toSdk.close();
    } catch { /* already closed */ }
    return r;
  });
  // Writes wait for the process to start (a spawn failure resolves `exited` instead).
  const stdin = Promise.race([stdinReady, exited.then(() => null)]);
  const toAgent = new WritableStream<Uint8Array>({
    write: async (chunk) => {
      const s = await stdin;
      if (s === null || s.destroyed) return;
      await new Promise<void>((resolve) => s.write(chunk, () => resolve()));
    },
    close: async () => void (await stdin)?.end(),
  });
  const rules = compileToolAccessRules({
    allow: task.allowedRoots.filter((g) => g !== "**"),
    protect: task.forbiddenPaths,
    policy: config.policy ?? defaultPolicy(),
  });
  // fs/* requests are served inside the agent's sandbox, never by vouch's own process.
  const files = fileService({
    worktree: task.worktree,
    sandbox: config.sandbox ?? NO_SANDBOX,
    signal: kill.signal,
  });
  const acp: AcpSdk = await import("@agentclientprotocol/sdk");
  const conn = new acp.ClientSideConnection(
    () =>
      acpClient({
        worktree: task.worktree,
        rules,
        sandbox: config.sandbox ?? NO_SANDBOX,
        get signal() {
          return hooks.signal;
        },
        emit: (event) => hooks.emit(event),
        record,
        terminalTimeoutMs: config.terminalTimeoutMs ?? 300_000,
        files,
        runtime: terminalRuntime(config.sandbox ?? NO_SANDBOX),
        requestError: acp.RequestError,
        ...(config.askHuman !== undefined ? { askHuman: config.askHuman } : {}),
      }, stats),
    acp.ndJsonStream(toAgent, fromAgent),
  );
  const agentGone = exited.then((r) => {
    throw new Error(`the agent exited (code ${r.exitCode}) before answering`);
  });
  agentGone.catch(() => {});
  return {
    worktree: task.worktree,
    conn,
    sessionId: "",
    exited,
    kill,
    toAgent,
    files,
    agentGone,
    hooks,
    stats,
    state,
    protocolVersion: acp.PROTOCOL_VERSION,
  };
}
