/**
 * The `claude` backend: `claude -p --output-format stream-json --verbose
 * --permission-mode acceptEdits` in the worktree (cwd), with tool allow/deny
 * lists from policy and the prompt on stdin; success is decided from the
 * final `result` message.
 *
 * @module
 */
import { agentCliBackend } from "./agent_cli.ts";
import { ClaudeStreamParser } from "./claude_stream.ts";
import type { SubprocessConfig } from "./subprocess.ts";
import type { AgentBackend } from "./types.ts";

/** Configuration of the `claude` backend. */
export interface ClaudeBackendConfig extends SubprocessConfig {
  /** The executable (default `claude` on PATH). */
  readonly executable?: string;
  readonly model?: string;
  /** Tools the agent may use without asking (default {@linkcode DEFAULT_CLAUDE_ALLOWED_TOOLS}). */
  readonly allowedTools?: readonly string[];
  /** Tools the agent may never use (default {@linkcode DEFAULT_CLAUDE_DISALLOWED_TOOLS}). */
  readonly disallowedTools?: readonly string[];
  readonly maxTurns?: number;
}

/** Default allow list: reading, editing and shell (confined by the sandbox). */
export const DEFAULT_CLAUDE_ALLOWED_TOOLS: readonly string[] = [
  "Read",
  "Edit",
  "MultiEdit",
  "Write",
  "Glob",
  "Grep",
  "LS",
  "Bash",
];
/** Default deny list: network tools (the worker contract says network "deny"). */
export const DEFAULT_CLAUDE_DISALLOWED_TOOLS: readonly string[] = ["WebFetch", "WebSearch"];

/**
 * The argv of one Claude Code run (cwd is the worktree; the prompt goes to stdin).
 * Values use the `--flag=value` form so a value can never be read as a flag.
 *
 * @example
 * ```ts
 * import { claudeArgv } from "./claude_backend.ts";
 * const argv = claudeArgv({});
 * if (!argv.includes("--verbose") || argv[1] !== "-p") throw new Error();
 * ```
 */
export function claudeArgv(config: ClaudeBackendConfig): string[] {
  const argv = [
    config.executable ?? "claude",
    "-p",
    "--output-format",
    "stream-json",
    "--verbose",
    "--permission-mode",
    "acceptEdits",
    `--allowedTools=${(config.allowedTools ?? DEFAULT_CLAUDE_ALLOWED_TOOLS).join(",")}`,
    `--disallowedTools=${(config.disallowedTools ?? DEFAULT_CLAUDE_DISALLOWED_TOOLS).join(",")}`,
  ];
  if (config.model !== undefined) argv.push(`--model=${config.model}`);
  if (config.maxTurns !== undefined) argv.push(`--max-turns=${config.maxTurns}`);
  return argv;
}

/**
 * Creates the `claude` backend.
 *
 * @example
 * ```ts
 * import { claudeBackend } from "./claude_backend.ts";
 * if (claudeBackend().id !== "claude") throw new Error();
 * ```
 */
export function claudeBackend(config: ClaudeBackendConfig = {}): AgentBackend {
  return agentCliBackend(
    "claude",
    config,
    () => claudeArgv(config),
    () => new ClaudeStreamParser(),
  );
}
