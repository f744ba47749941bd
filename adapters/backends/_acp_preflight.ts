/**
 * Whether an ACP agent can start and speaks the protocol, checked before a
 * run spends any time (before the baseline). Two halves: what needs no
 * process ({@linkcode preflightAcp}: its program exists and is executable,
 * checked before the worktree) and the start itself ({@linkcode startAcp}:
 * the agent started once, in its real sandbox on the task's worktree, answers
 * `initialize`; that same process then serves round 1). The answer is one
 * line that says why not.
 *
 * @module
 */
import { stat } from "node:fs/promises";
import type { InitializeResponse } from "@agentclientprotocol/sdk";
import { endAgent, type LiveAgent, startAgent } from "./_acp_agent.ts";
import type { AcpBackendConfig } from "./_acp_config.ts";
import { describeRpcError } from "./_acp_errors.ts";
import { agentName } from "./_acp_steps.ts";
import { failure } from "./result.ts";
import { maskSecrets } from "./transcript.ts";
import type { BackendFailure, BackendStart } from "./types.ts";
import { boundText } from "./types.ts";

/**
 * What can be known of the agent without starting it: its program is found
 * and is an executable file; null when nothing is wrong.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { preflightAcp } from "./_acp_preflight.ts";
 * equal((await preflightAcp(["no-such-acp-agent"]))?.message, "acp: no-such-acp-agent: not found on PATH");
 * equal((await preflightAcp(["/nonexistent/agent"]))?.message, "acp: /nonexistent/agent: no such file");
 * equal(await preflightAcp(["/bin/true"]), null);
 * ```
 */
export async function preflightAcp(argv: readonly string[]): Promise<BackendFailure | null> {
  const program = argv[0] ?? "";
  if (!program.includes("/")) return failure("config", `acp: ${program}: not found on PATH`);
  const info = await stat(program).catch(() => null);
  if (info === null) return failure("config", `acp: ${program}: no such file`);
  if (!info.isFile() || (info.mode & 0o111) === 0) {
    return failure("config", `acp: ${program}: not an executable file`);
  }
  return null;
}

/** An agent started for a task that answered `initialize`, waiting for its first round. */
export interface StartedAcp {
  readonly agent: LiveAgent;
  readonly init: InitializeResponse;
}

/** The agent's last stderr line, masked and bounded, as `: <line>` (or ""). */
function stderrTail(result: { stderr: { head: string } }): string {
  const line = maskSecrets(result.stderr.head.trim().split("\n").at(-1) ?? "").text;
  return line !== "" ? `: ${boundText(line, 300)}` : "";
}

/**
 * Starts the agent of `config` for `task` (its sandbox is `config.sandbox`:
 * the task's worktree mounted, its network) and sends `initialize`; the
 * started agent, or why it cannot start (the agent is then ended).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { startAcp } from "./_acp_preflight.ts";
 * const task = { taskId: "t1", worktree: "/tmp", allowedRoots: ["**"], forbiddenPaths: [] };
 * const started = await startAcp("acp", { argv: ["/bin/true"], startTimeoutMs: 5000 }, task, new AbortController().signal);
 * equal("code" in started && started.message, "acp: true exited (code 0) before answering initialize");
 * ```
 */
export async function startAcp(
  id: string,
  config: AcpBackendConfig,
  task: BackendStart,
  signal: AbortSignal,
  step: (text: string) => void = () => {},
): Promise<StartedAcp | BackendFailure> {
  const name = (config.argv[0] ?? "").split("/").at(-1);
  const timeoutMs = config.startTimeoutMs ?? 60_000;
  const said = agentName(config.argv);
  step(`starting ${said}`);
  const agent = await startAgent(id, config, task);
  step(`starting ${said} (initialize)`);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stopped = new Promise<"timeout" | "aborted">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
    if (signal.aborted) resolve("aborted");
    signal.addEventListener("abort", () => resolve("aborted"), { once: true });
  });
  const init = agent.conn.initialize({
    protocolVersion: agent.protocolVersion,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
  });
  init.catch(() => {});
  const answer = await Promise.race([
    init.then((r) => ({ ok: r }), (error: unknown) => ({ error })),
    agent.exited.then(() => "gone" as const),
    stopped,
  ]).finally(() => clearTimeout(timer));
  if (typeof answer === "object" && "ok" in answer) return { agent, init: answer.ok };
  agent.kill.abort();
  await endAgent(agent);
  const result = await agent.exited;
  const tail = stderrTail(result);
  if (agent.state.overflow !== null) {
    return failure("config", `acp: ${name} does not speak ACP (${agent.state.overflow})`);
  }
  if (typeof answer === "object") {
    const rpc = describeRpcError(answer.error);
    const text = rpc?.text ??
      (answer.error instanceof Error ? answer.error.message : String(answer.error));
    const why = maskSecrets(boundText(text, 300)).text;
    return failure("config", `acp: ${name} answered initialize with an error: ${why}`);
  }
  if (answer === "aborted") {
    return failure("cancelled", `acp: ${name} was cancelled while starting`);
  }
  if (result.spawnError !== null) return failure("config", `acp: ${result.spawnError.message}`);
  if (answer === "timeout") {
    return failure(
      "config",
      `acp: ${name} did not answer initialize within ${
        Math.round(timeoutMs / 1000)
      } s (not an ACP agent?)${tail}`,
    );
  }
  return failure(
    "config",
    `acp: ${name} exited (code ${result.exitCode}) before answering initialize${tail}`,
  );
}
