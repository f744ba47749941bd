/**
 * The `claude` backend: `claude -p --output-format stream-json --verbose
 * --permission-mode acceptEdits` in the worktree (cwd), with a closed tool
 * set (`--tools`: only the allowed tools exist), the same tools allowed
 * without asking, the tools that can leave the task denied, and the prompt
 * on stdin; success is decided from the final `result` message.
 *
 * @module
 */
import { agentCliBackend } from "./agent_cli.ts";
import { ClaudeStreamParser } from "./claude_stream.ts";
import { DEFAULT_CLAUDE_ALLOWED_TOOLS, DEFAULT_CLAUDE_DISALLOWED_TOOLS } from "./claude_tools.ts";
import type { SubprocessConfig } from "./subprocess.ts";
import type { AgentBackend } from "./types.ts";

export { DEFAULT_CLAUDE_ALLOWED_TOOLS, DEFAULT_CLAUDE_DISALLOWED_TOOLS } from "./claude_tools.ts";

/** Configuration of the `claude` backend. */
export interface ClaudeBackendConfig extends SubprocessConfig {
  /** The executable (default `claude` on PATH). */
  readonly executable?: string;
  /** Model name passed as `--model` (default: the CLI's own). */
  readonly model?: string;
  /** The only tools that exist for the agent (default {@linkcode DEFAULT_CLAUDE_ALLOWED_TOOLS}). */
  readonly allowedTools?: readonly string[];
  /** Tools the agent may never use (default {@linkcode DEFAULT_CLAUDE_DISALLOWED_TOOLS}). */
  readonly disallowedTools?: readonly string[];
  /** Passed as `--max-turns` (default: no limit beyond vouch's budgets). */
  readonly maxTurns?: number;
  /** Extra arguments appended to the argv (from the config file). */
  readonly extraArgs?: readonly string[];
}

/** Provider variables Claude Code reads, forwarded from vouch's environment when set. */
export const CLAUDE_PROVIDER_ENV: readonly string[] = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "ANTHROPIC_BASE_URL",
  "ANTHROPIC_MODEL",
  "ANTHROPIC_SMALL_FAST_MODEL",
  "ANTHROPIC_CUSTOM_HEADERS",
  "CLAUDE_CODE_USE_BEDROCK",
  "CLAUDE_CODE_USE_VERTEX",
  "ANTHROPIC_VERTEX_PROJECT_ID",
  "CLOUD_ML_REGION",
  "CLAUDE_CONFIG_DIR",
  "CLAUDE_CODE_MAX_RETRIES",
  "API_TIMEOUT_MS",
  "HTTPS_PROXY",
  "HTTP_PROXY",
  "NO_PROXY",
  "SSL_CERT_FILE",
];

/**
 * Environment that keeps Claude Code off the network except for its model
 * provider (no telemetry, error reports, auto-updates or other nonessential
 * traffic), and bounds its provider retries (default 10 makes a bad key look
 * like a hang; vouch stops on an authentication error anyway).
 */
export const CLAUDE_QUIET_ENV: Readonly<Record<string, string>> = {
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_ERROR_REPORTING: "1",
  CLAUDE_CODE_MAX_RETRIES: "3",
};

/**
 * The argv of one Claude Code run (cwd is the worktree; the prompt goes to stdin).
 * Values use the `--flag=value` form so a value can never be read as a flag.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { claudeArgv } from "./claude_backend.ts";
 * const argv = claudeArgv({});
 * equal(argv[1], "-p");
 * equal(argv.includes("--verbose"), true);
 * equal(argv.includes("--tools=Read,Edit,Write,Glob,Grep,Bash,NotebookEdit"), true);
 * ```
 */
export function claudeArgv(config: ClaudeBackendConfig): string[] {
  const allowed = (config.allowedTools ?? DEFAULT_CLAUDE_ALLOWED_TOOLS).join(",");
  const argv = [
    config.executable ?? "claude",
    "-p",
    "--output-format",
    "stream-json",
    "--verbose",
    "--permission-mode",
    "acceptEdits",
    `--tools=${allowed}`,
    `--allowedTools=${allowed}`,
    `--disallowedTools=${(config.disallowedTools ?? DEFAULT_CLAUDE_DISALLOWED_TOOLS).join(",")}`,
  ];
  if (config.model !== undefined) argv.push(`--model=${config.model}`);
  if (config.maxTurns !== undefined) argv.push(`--max-turns=${config.maxTurns}`);
  argv.push(...(config.extraArgs ?? []));
  return argv;
}

/**
 * Creates the `claude` backend.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { claudeBackend } from "./claude_backend.ts";
 * equal(claudeBackend().id, "claude");
 * ```
 */
export function claudeBackend(config: ClaudeBackendConfig = {}): AgentBackend {
  return agentCliBackend(
    "claude",
    { ...config, env: { ...CLAUDE_QUIET_ENV, ...(config.env ?? {}) } },
    () => claudeArgv(config),
    () => new ClaudeStreamParser(config.allowedTools ?? DEFAULT_CLAUDE_ALLOWED_TOOLS),
  );
}
