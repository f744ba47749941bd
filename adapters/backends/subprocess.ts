/**
 * Running an agent as a subprocess through the hardened process runner, and
 * turning its captured output into lines, a transcript and the common parts
 * of a {@linkcode BackendResult}.
 *
 * @module
 */
import nodeProcess from "node:process";
import { runProcess } from "../process/run.ts";
import type { ProcessResult } from "../process/types.ts";
import type { SandboxProfile } from "../sandbox/profile.ts";
import { BackendError } from "./errors.ts";
import { failure, noClaims, type ResultClaims } from "./result.ts";
import { LineSplitter, type StreamLine } from "./line_splitter.ts";
import { captureTranscript, type SecretMasker } from "./transcript.ts";
import type {
  AgentTask,
  BackendContext,
  BackendFailure,
  BackendStatus,
  TranscriptRef,
} from "./types.ts";
import { boundList, boundText, MAX_SUMMARY_CHARS } from "./types.ts";

/** Settings shared by every subprocess backend. */
export interface SubprocessConfig {
  /** Extra environment for the agent (secret-looking names need `passSecretEnv`). */
  readonly env?: Readonly<Record<string, string>>;
  /** Names copied from vouch's own environment (e.g. an API key the real CLI needs). */
  readonly passEnv?: readonly string[];
  /** A HOME for the agent (e.g. the user's, for CLI auth); default: a private temp dir. */
  readonly home?: string;
  /** OS confinement for the agent process (default: none, recorded). */
  readonly sandbox?: SandboxProfile;
  /** SIGTERM-to-SIGKILL grace on cancellation / timeout (default 2000 ms). */
  readonly graceMs?: number;
  /** Masking for transcripts (default: the built-in masker). */
  readonly mask?: SecretMasker;
}

/** Maximum bytes of agent stdout kept for parsing (head + tail). */
export const MAX_AGENT_CAPTURE_BYTES = 32 * 1024 * 1024;

/** Live hooks of {@linkcode runAgentProcess}. */
export interface AgentProcessHooks {
  /** Every stdout chunk as it arrives (live stream parsing). */
  readonly onStdout?: (chunk: Uint8Array) => void;
  /** Stops the process like a cancellation (the runner decided to stop early). */
  readonly stop?: AbortSignal;
}

/** What {@linkcode runAgentProcess} returns. */
export interface AgentProcessRun {
  /** How the process ran and ended. */
  readonly process: ProcessResult;
  /** Stdout split into bounded lines (head, then tail when truncated). */
  readonly lines: readonly StreamLine[];
  /** Stdout exceeded the capture or `max_output_mb`: lines in the middle are missing. */
  readonly outputOverflow: boolean;
  /** The run's transcript (path, digest, size). */
  readonly transcript: TranscriptRef;
}

/**
 * The values of the named variables in vouch's own environment (unset ones
 * left out): what a backend forwards to its agent by name.
 */
export function passedEnvValues(names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = nodeProcess.env[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/**
 * Runs the agent process with the task's time budget, the context's abort
 * signal and bounded capture, then captures the transcript.
 *
 * @example
 * ```ts ignore
 * const run = await runAgentProcess("command", ["./worker"], task, ctx, {}, new Uint8Array());
 * ```
 */
export async function runAgentProcess(
  backend: string,
  argv: readonly string[],
  task: AgentTask,
  ctx: BackendContext,
  config: SubprocessConfig,
  stdin: Uint8Array,
  extraEnv: Readonly<Record<string, string>> = {},
  hooks: AgentProcessHooks = {},
): Promise<AgentProcessRun> {
  const env: Record<string, string> = {
    ...(config.env ?? {}),
    ...extraEnv,
    ...passedEnvValues(config.passEnv ?? []),
  };
  const maxOutputBytes = Math.max(1024, Math.floor(task.maxOutputMb * 1024 * 1024));
  let process: ProcessResult;
  try {
    process = await runProcess({
      argv,
      cwd: task.worktree,
      env,
      allowSecretEnv: config.passEnv ?? [],
      stdin,
      timeoutMs: Math.max(1, task.maxSeconds * 1000),
      graceMs: config.graceMs ?? 2000,
      signal: hooks.stop === undefined ? ctx.signal : AbortSignal.any([ctx.signal, hooks.stop]),
      ...(hooks.onStdout !== undefined ? { onStdout: hooks.onStdout } : {}),
      maxCaptureBytes: Math.min(maxOutputBytes, MAX_AGENT_CAPTURE_BYTES),
      ...(config.home !== undefined ? { home: config.home } : {}),
      ...(config.sandbox !== undefined ? { sandbox: config.sandbox } : {}),
    });
  } catch (error) {
    throw new BackendError(
      "config",
      `Cannot start ${backend}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  const lines = splitCaptured(process.stdout.head, process.stdout.tail, process.stdout.truncated);
  const transcript = await captureTranscript({
    backend,
    taskId: task.taskId,
    attempt: task.attempt,
    stdout: process.stdout,
    stderr: process.stderr,
    ...(ctx.transcriptDir !== undefined ? { dir: ctx.transcriptDir } : {}),
    ...(config.mask !== undefined ? { mask: config.mask } : {}),
  });
  const stderrText = (process.stderr.head + process.stderr.tail).trim();
  if (stderrText !== "") {
    safeEmit(ctx, {
      kind: "stderr",
      text: (config.mask ?? ((t) => ({ text: t })))(stderrText.slice(-2000)).text,
    });
  }
  return {
    process,
    lines,
    outputOverflow: process.stdout.truncated || process.stdout.totalBytes > maxOutputBytes,
    transcript,
  };
}

/** Max bytes per protocol line. */
export const MAX_LINE_BYTES = 1024 * 1024;

function splitCaptured(head: string, tail: string, truncated: boolean): StreamLine[] {
  const enc = new TextEncoder();
  const s = new LineSplitter(MAX_LINE_BYTES);
  const lines = [...s.push(enc.encode(head))];
  if (!truncated) return [...lines, ...s.end()];
  // The capture dropped the middle: the head's last partial line and the
  // tail's first partial line are fragments, reported as truncated.
  const headRest = s.end().map((l) => ({ ...l, unterminated: true }));
  const t = new LineSplitter(MAX_LINE_BYTES);
  const tailLines = [...t.push(enc.encode(tail)), ...t.end()];
  const first = tailLines.shift();
  const offset = lines.length + headRest.length + 1;
  const out: StreamLine[] = [...lines, ...headRest];
  if (first !== undefined) out.push({ ...first, number: offset, unterminated: true });
  for (const l of tailLines) out.push({ ...l, number: l.number + offset });
  return out;
}

/**
 * The exit code a backend reports for a process: `null` when it never
 * started, timed out or was cancelled (its code then says nothing).
 *
 * @example
 * ```ts ignore
 * const exitCode = reportedExitCode(run.process);
 * ```
 */
export function reportedExitCode(p: ProcessResult): number | null {
  return p.spawnError === null && !p.timedOut && !p.cancelled ? p.exitCode : null;
}

/** What an agent's run said of itself, as text not yet masked or bounded. */
export interface RunSaid {
  /** Its summary (bounded to {@linkcode MAX_SUMMARY_CHARS}). */
  readonly summary: string;
  /** The commands it says it ran. */
  readonly commands: readonly string[];
  /** The risks it names. */
  readonly risks: readonly string[];
}

/**
 * The claims of a subprocess run every backend reports alike: what it said
 * (masked, then bounded), its transcript and its {@linkcode reportedExitCode};
 * the rest as {@linkcode noClaims} until the backend sets it.
 *
 * @example
 * ```ts ignore
 * const common = { ...runClaims("codex", run, mask, { summary, commands, risks: [] }), usage };
 * ```
 */
export function runClaims(
  backend: string,
  run: AgentProcessRun,
  mask: (text: string) => { text: string },
  said: RunSaid,
): ResultClaims {
  return {
    ...noClaims(backend),
    summary: mask(boundText(said.summary, MAX_SUMMARY_CHARS)).text,
    commandsRun: boundList(said.commands.map((c) => mask(c).text)),
    risks: boundList(said.risks.map((c) => mask(c).text)),
    transcript: run.transcript,
    exitCode: reportedExitCode(run.process),
  };
}

/** Calls `ctx.emit`, ignoring a sink that throws (the sink must not break a run). */
export function safeEmit(ctx: BackendContext, event: Parameters<BackendContext["emit"]>[0]): void {
  try {
    ctx.emit(event);
  } catch {
    // a broken sink never changes the run
  }
}

/**
 * The status and failure of a process run before protocol interpretation:
 * spawn failures, cancellation and timeouts decided here; `null` when the
 * process ran to its own end and the protocol must decide.
 *
 * @example
 * ```ts ignore
 * const pre = processStatus("codex", run.process);
 * ```
 */
export function processStatus(
  backend: string,
  p: ProcessResult,
): { status: BackendStatus; failure: BackendFailure } | null {
  if (p.spawnError !== null) {
    // A missing or non-executable program stays missing: not worth a retry.
    if (p.spawnError.code === "not_found" || p.spawnError.code === "not_executable") {
      return {
        status: "error",
        failure: failure("config", p.spawnError.message.replace(/^Cannot run: /, "")),
      };
    }
    return {
      status: "error",
      failure: failure("spawn_failed", `Cannot start ${backend}: ${p.spawnError.message}`),
    };
  }
  if (p.cancelled) {
    return { status: "cancelled", failure: failure("cancelled", `${backend} was cancelled`) };
  }
  if (p.limit !== null) {
    // The agent sandbox's limit (memory, processes, file size, /tmp) stopped it: not retryable.
    return {
      status: "error",
      failure: failure(
        "limit_exceeded",
        `${backend} ${p.limit.message} and was stopped (the contract's sandbox.agentLimits set it)`,
      ),
    };
  }
  if (p.timedOut) {
    return {
      status: "timed_out",
      failure: failure("timeout", `${backend} did not finish within its time budget`),
    };
  }
  return null;
}
