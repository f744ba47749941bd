/**
 * The agent process of an ACP backend and its connection (vouch is the
 * client): started once, kept between the rounds of a task when the agent
 * can continue its session, ended by closing its stdin.
 *
 * @module
 */
// The ACP SDK is loaded when an ACP agent starts, not when vouch is imported (import cost).
type AcpSdk = typeof import("@agentclientprotocol/sdk");
import type { Writable } from "node:stream";
import {
  type CompiledToolAccessRules,
  compileToolAccessRules,
} from "../../kernel/scope/judge_tool_access.ts";
import { defaultPolicy } from "../../kernel/lifecycle/policy.ts";
import { runProcess } from "../process/run.ts";
import type { ProcessResult } from "../process/types.ts";
import { NO_SANDBOX } from "../sandbox/profile.ts";
import { acpClient } from "./_acp_client.ts";
import type { AcpClientStats } from "./_acp_client_env.ts";
import type { AcpBackendConfig } from "./_acp_config.ts";
import { type FileService, fileService } from "./_file_service.ts";
import { terminalRuntime } from "./_terminal.ts";
import { captureSdkLog } from "./_acp_sdk_log.ts";
import { passedEnvValues } from "./subprocess.ts";
import { maskSecrets } from "./transcript.ts";
import type { BackendEvent, BackendStart } from "./types.ts";
import { boundText } from "./types.ts";

/** The agent process and session of a task, kept for its next round. */
export interface LiveAgent {
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

export interface RoundHooks {
  emit: (event: BackendEvent) => void;
  record: (entry: Record<string, unknown>) => void;
  signal: AbortSignal;
}

/**
 * Closes the agent's stdin and ends it at once (SIGTERM to its group, SIGKILL after the grace):
 * nothing it would do on its way out is kept (its HOME is a per-run copy, its round is judged).
 * It was given a second to leave on its own: claude-code-acp and codex-acp never leave at the
 * end of their input, so every run waited that second out.
 */
export async function endAgent(
  live: Pick<LiveAgent, "toAgent" | "kill" | "exited" | "files">,
): Promise<void> {
  try {
    await live.toAgent.close();
  } catch { /* closed */ }
  live.kill.abort();
  await live.exited.catch(() => {});
  await live.files.close();
}

/**
 * Longest JSON-RPC message (one line) vouch reads from an agent; past it the
 * agent is ended with a protocol error (memory stays bounded, the round ends
 * at once). An 8 MiB file written through `fs/write_text_file` fits.
 */
export const MAX_ACP_MESSAGE_BYTES = 16 * 1024 * 1024;

/** The agent's stdout as the SDK reads it, and the closing of that stream. */
interface AgentOutput {
  /** What the SDK reads: the agent's stdout, in whole lines only. */
  readonly fromAgent: ReadableStream<Uint8Array>;
  /** Takes one chunk of the agent's stdout. */
  readonly forward: (chunk: Uint8Array) => void;
  /** Ends what the SDK reads (already closed: nothing). */
  readonly close: () => void;
}

/**
 * The agent's stdout to the SDK. The message being read is held here until its newline (the
 * SDK gets whole lines only, so its own buffer never grows); past
 * {@linkcode MAX_ACP_MESSAGE_BYTES} the agent is ended with a protocol error (`state.overflow`).
 */
function agentOutput(
  id: string,
  state: LiveAgent["state"],
  record: (entry: Record<string, unknown>) => void,
  kill: AbortController,
): AgentOutput {
  let toSdk!: ReadableStreamDefaultController<Uint8Array>;
  const fromAgent = new ReadableStream<Uint8Array>({ start: (c) => void (toSdk = c) });
  const close = () => {
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
    close();
  };
  return { fromAgent, forward, close };
}

/**
 * The agent's stdin for the SDK: writes wait for the process to start (a spawn failure
 * resolves `exited` instead).
 */
function agentInput(
  stdinReady: Promise<Writable>,
  exited: Promise<ProcessResult>,
): WritableStream<Uint8Array> {
  const stdin = Promise.race([stdinReady, exited.then(() => null)]);
  return new WritableStream<Uint8Array>({
    write: async (chunk) => {
      const s = await stdin;
      if (s === null || s.destroyed) return;
      await new Promise<void>((resolve) => s.write(chunk, () => resolve()));
    },
    close: async () => void (await stdin)?.end(),
  });
}

/** What the client half of the connection serves a task with. */
interface ClientSetup {
  readonly config: AcpBackendConfig;
  readonly task: BackendStart;
  readonly hooks: RoundHooks;
  readonly record: (entry: Record<string, unknown>) => void;
  readonly stats: AcpClientStats;
  readonly rules: CompiledToolAccessRules;
  readonly files: FileService;
}

/** The connection to the agent, vouch as its client. */
function connect(
  acp: AcpSdk,
  setup: ClientSetup,
  toAgent: WritableStream<Uint8Array>,
  fromAgent: ReadableStream<Uint8Array>,
): LiveAgent["conn"] {
  const { config, task, hooks } = setup;
  return new acp.ClientSideConnection(
    () =>
      acpClient({
        worktree: task.worktree,
        rules: setup.rules,
        sandbox: config.sandbox ?? NO_SANDBOX,
        get signal() {
          return hooks.signal;
        },
        emit: (event) => hooks.emit(event),
        record: setup.record,
        terminalTimeoutMs: config.terminalTimeoutMs ?? 300_000,
        files: setup.files,
        runtime: terminalRuntime(config.sandbox ?? NO_SANDBOX),
        requestError: acp.RequestError,
        ...(config.askHuman !== undefined ? { askHuman: config.askHuman } : {}),
        mcpServers: (config.mcpServers ?? []).map((s) => s.name),
      }, setup.stats),
    acp.ndJsonStream(toAgent, fromAgent),
  );
}

/** Starts the agent process and its connection (vouch is the client). */
export async function startAgent(
  id: string,
  config: AcpBackendConfig,
  task: BackendStart,
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
  const output = agentOutput(id, state, record, kill);
  const env = { ...(config.env ?? {}), ...passedEnvValues(config.passEnv ?? []) };
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
    onStdout: output.forward,
  });
  // The SDK's own "Error handling request" dumps go to the round's transcript, not the screen.
  const releaseLog = captureSdkLog({
    sessionId: () => state.sessionId,
    record: (text) => record({ sdkLog: boundText(maskSecrets(text).text, 4000) }),
  });
  const exited = proc.then((r) => {
    releaseLog();
    state.gone = true;
    output.close();
    return r;
  });
  const toAgent = agentInput(stdinReady, exited);
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
  const setup = { config, task, hooks, record, stats, rules, files };
  const conn = connect(acp, setup, toAgent, output.fromAgent);
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
