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
import { NO_SANDBOX } from "../sandbox/profile.ts";
import { preflightAcp } from "./_acp_preflight.ts";
import { endAgent, type LiveAgent } from "./_acp_agent.ts";
import type { AcpBackendConfig } from "./_acp_config.ts";
import { runAcp } from "./_acp_round.ts";
import { guardRun } from "./result.ts";
import type { AgentBackend } from "./types.ts";

export type { PermissionQuestion } from "./_acp_client.ts";
export type { AcpBackendConfig } from "./_acp_config.ts";
export { MAX_ACP_MESSAGE_BYTES } from "./_acp_agent.ts";
export { acpUsage } from "./_acp_usage.ts";

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
