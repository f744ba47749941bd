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
import { capabilitiesOf } from "./types.ts";
import { preflightAcp, startAcp, type StartedAcp } from "./_acp_preflight.ts";
import { endAgent, type LiveAgent } from "./_acp_agent.ts";
import type { AcpBackendConfig } from "./_acp_config.ts";
import { runAcp } from "./_acp_round.ts";
import { guardRun } from "./result.ts";
import type { AgentBackend } from "./types.ts";

// Only SDK-free modules are re-exported here (this file is public through `./backends`).
export type { AcpBackendConfig, PermissionQuestion } from "./_acp_config.ts";

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
  // Agents started for a task before its baseline (`startTask`), waiting for round 1.
  const ready = new Map<string, StartedAcp>();
  return {
    id,
    capabilities: capabilitiesOf("streaming", "editsWorktree", "reportsUsage", "subprocess"),
    // Its program exists (before the worktree); it starts and answers `initialize` in the
    // task's own sandbox (startTask, before the baseline), once: that process serves round 1.
    preflight: () => preflightAcp(config.argv),
    startTask: async (task, signal, step) => {
      try {
        const started = await startAcp(id, config, task, signal, step);
        if ("code" in started) return started;
        const old = ready.get(task.taskId);
        ready.set(task.taskId, started);
        if (old !== undefined) await endAgent(old.agent);
        return null;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return { code: "config", message: `acp: ${message}`, retryable: false };
      }
    },
    run: (task, ctx) => guardRun(id, () => runAcp(id, config, task, ctx, sessions, ready)),
    endTask: async (taskId) => {
      const live = sessions.get(taskId);
      sessions.delete(taskId);
      if (live !== undefined) await endAgent(live);
      const waiting = ready.get(taskId);
      ready.delete(taskId);
      if (waiting !== undefined) await endAgent(waiting.agent);
    },
  };
}
