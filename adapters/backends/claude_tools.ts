/**
 * Which Claude Code tools an agent may use. The base set is closed: vouch
 * passes `--tools` with the allowed tools only, so a tool the CLI adds later
 * is unavailable until someone allows it. The `system/init` message lists
 * the tools the CLI really offers; {@linkcode claudeToolPolicy} derives from
 * it what is allowed, what is denied, and what vouch asked for that the CLI
 * no longer has.
 *
 * @module
 */

/** Tools that work inside the task's worktree: read, search, edit, shell (confined by the sandbox). */
export const DEFAULT_CLAUDE_ALLOWED_TOOLS: readonly string[] = [
  "Read",
  "Edit",
  "Write",
  "Glob",
  "Grep",
  "Bash",
  "NotebookEdit",
];

/**
 * Tools that can leave the task: the network, sub-agents and workflows,
 * other worktrees, schedules and messages that outlive the run. Denied
 * explicitly on top of the closed base set.
 */
export const DEFAULT_CLAUDE_DISALLOWED_TOOLS: readonly string[] = [
  "WebFetch",
  "WebSearch",
  "Task",
  "Agent",
  "Workflow",
  "EnterWorktree",
  "ExitWorktree",
  "CronCreate",
  "CronDelete",
  "CronList",
  "ScheduleWakeup",
  "SendMessage",
  "Monitor",
  "RemoteTrigger",
  "ListAgents",
  "TaskStop",
  "Skill",
  "ToolSearch",
];

/** What the `system/init` tool list means under an allow list. */
export interface ClaudeToolPolicy {
  /** Offered and allowed. */
  readonly allowed: readonly string[];
  /** Offered but not allowed (a closed base set should make this empty). */
  readonly unexpected: readonly string[];
  /** Allowed but not offered (stale names, or tools this CLI version lacks). */
  readonly missing: readonly string[];
}

/**
 * Derives the policy from the tools the CLI offers. MCP tools (`mcp__…`)
 * count like any other tool: they are allowed only when named.
 *
 * @example
 * ```ts
 * import { equal, deepEqual } from "node:assert/strict";
 * import { claudeToolPolicy } from "./claude_tools.ts";
 * const p = claudeToolPolicy(["Bash", "Edit", "Workflow"], ["Bash", "Edit", "MultiEdit"]);
 * deepEqual(p.allowed, ["Bash", "Edit"]);
 * deepEqual(p.unexpected, ["Workflow"]);
 * equal(p.missing[0], "MultiEdit");
 * ```
 */
export function claudeToolPolicy(
  offered: readonly string[],
  allowList: readonly string[],
): ClaudeToolPolicy {
  const allow = new Set(allowList);
  const offer = new Set(offered);
  return {
    allowed: offered.filter((t) => allow.has(t)),
    unexpected: offered.filter((t) => !allow.has(t)),
    missing: allowList.filter((t) => !offer.has(t)),
  };
}
