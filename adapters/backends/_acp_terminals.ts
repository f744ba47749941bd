/**
 * The `terminal/*` half of vouch's ACP client: an agent's terminal runs
 * through the process runner in the agent's sandbox (the tool-command
 * profile), inside the worktree, with its output bounded; at most
 * {@linkcode MAX_TERMINALS} at once. Every terminal is recorded for the
 * transcript and kept as a decision.
 *
 * @module
 */
import type * as acp from "@agentclientprotocol/sdk";
import { isAbsolute } from "node:path";
import { runProcess } from "../process/run.ts";
import type { ProcessResult } from "../process/types.ts";
import { toolCommandProfile } from "../sandbox/agent_profile.ts";
import type { AcpClientEnv, AcpClientStats } from "./_acp_client_env.ts";
import { keepDecision, refuseRequest, treePath } from "./_acp_client_env.ts";
import {
  exitRecord,
  TailBytes,
  terminalArgv,
  type TerminalExit,
  terminalLine,
  terminalScript,
} from "./_terminal.ts";
import { boundText } from "./types.ts";

/** Terminals one round may hold at once. */
export const MAX_TERMINALS = 16;
const DEFAULT_TERMINAL_BYTES = 64 * 1024;

interface Terminal {
  readonly output: TailBytes;
  readonly abort: AbortController;
  done: Promise<TerminalExit>;
  exit: TerminalExit | null;
}

/** How a finished terminal is reported: a spawn failure as 127, a kill or timeout as a signal. */
function terminalExit(r: ProcessResult): TerminalExit {
  const recorded = exitRecord(r.stderr.tail !== "" ? r.stderr.tail : r.stderr.head);
  return r.spawnError !== null
    ? { exitCode: 127, signal: null }
    : r.timedOut || r.cancelled
    ? { exitCode: null, signal: r.signal ?? "SIGTERM" }
    : recorded ?? (r.signal !== null
      ? { exitCode: null, signal: r.signal }
      : { exitCode: r.exitCode, signal: null });
}

/** The terminals of one round, by id. */
export class AcpTerminals {
  readonly #env: AcpClientEnv;
  readonly #stats: AcpClientStats;
  readonly #terminals = new Map<string, Terminal>();
  #next = 0;

  constructor(env: AcpClientEnv, stats: AcpClientStats) {
    this.#env = env;
    this.#stats = stats;
  }

  /** `terminal/create`: refused past the limit, outside the worktree, or with a bad `env`. */
  create(params: acp.CreateTerminalRequest): Promise<acp.CreateTerminalResponse> {
    const env = this.#env;
    const refuse = (detail: string): never =>
      refuseRequest(env, this.#stats, "terminal/create", detail);
    if (this.#terminals.size >= MAX_TERMINALS) {
      return refuse(`at most ${MAX_TERMINALS} terminals at once`);
    }
    const cwd = (params.cwd ?? null) !== null ? treePath(env.worktree, params.cwd!) : ".";
    if (cwd.startsWith("..") || isAbsolute(cwd)) {
      return refuse(`cwd ${params.cwd} is outside the worktree`);
    }
    // As Zed runs it: the command line through the shell, arguments appended quoted.
    const command = terminalLine(params.command, params.args ?? []);
    const script = terminalScript(command, params.env ?? []);
    if (typeof script !== "string") return refuse(script.refused);
    const id = `term-${++this.#next}`;
    const limit = Math.min(params.outputByteLimit ?? DEFAULT_TERMINAL_BYTES, 1024 * 1024);
    this.#stats.commands.push(command);
    this.#terminals.set(id, this.#start(command, script, cwd, limit));
    env.record({ terminal: id, command: boundText(command, 500) });
    keepDecision(this.#stats, {
      effect: "terminal",
      kind: boundText(command, 200),
      paths: [],
      answer: "allow",
      reason: "allowed",
      by: "kernel",
    });
    return Promise.resolve({ terminalId: id });
  }

  /** Runs one terminal's script in the agent's sandbox; its exit is shown as a command. */
  #start(command: string, script: string, cwd: string, limit: number): Terminal {
    const env = this.#env;
    const abort = new AbortController();
    const output = new TailBytes(limit);
    const t: Terminal = {
      output,
      abort,
      exit: null,
      done: Promise.resolve({ exitCode: null, signal: null }),
    };
    t.done = runProcess({
      argv: terminalArgv(script, env.runtime ?? null),
      cwd: cwd === "." ? env.worktree : `${env.worktree}/${cwd}`,
      sandbox: toolCommandProfile(env.sandbox),
      timeoutMs: env.terminalTimeoutMs,
      signal: AbortSignal.any([env.signal, abort.signal]),
      onStdout: (chunk) => output.push(chunk),
      maxCaptureBytes: 16 * 1024,
    }).then((r) => {
      const exit = terminalExit(r);
      if (r.spawnError !== null) output.push(new TextEncoder().encode(r.spawnError.message));
      t.exit = exit;
      env.emit({
        kind: "command",
        command,
        exitCode: exit.exitCode ?? r.exitCode,
        status: "completed",
      });
      return exit;
    });
    return t;
  }

  #terminal(id: string): Terminal {
    const t = this.#terminals.get(id);
    if (t === undefined) throw this.#env.requestError.invalidParams(undefined, `no terminal ${id}`);
    return t;
  }

  /** `terminal/output`: the output so far, and the exit once there is one. */
  output(params: acp.TerminalOutputRequest): Promise<acp.TerminalOutputResponse> {
    const t = this.#terminal(params.terminalId);
    return Promise.resolve({
      output: t.output.text(),
      truncated: t.output.truncated,
      ...(t.exit !== null ? { exitStatus: t.exit } : {}),
    });
  }

  /** `terminal/wait_for_exit`. */
  async waitForExit(
    params: acp.WaitForTerminalExitRequest,
  ): Promise<acp.WaitForTerminalExitResponse> {
    return await this.#terminal(params.terminalId).done;
  }

  /** `terminal/kill`: the terminal stays, to be read and released. */
  kill(params: acp.KillTerminalCommandRequest): Promise<acp.KillTerminalCommandResponse> {
    this.#terminal(params.terminalId).abort.abort();
    return Promise.resolve({});
  }

  /** `terminal/release`: killed if it still runs, and forgotten (an unknown id is no error). */
  release(params: acp.ReleaseTerminalRequest): Promise<acp.ReleaseTerminalResponse> {
    const t = this.#terminals.get(params.terminalId);
    t?.abort.abort();
    this.#terminals.delete(params.terminalId);
    return Promise.resolve({});
  }
}
