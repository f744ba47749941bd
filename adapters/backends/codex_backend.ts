/**
 * The `codex` backend: `codex exec --json --sandbox workspace-write -C <worktree>
 * --skip-git-repo-check --ephemeral -` with the prompt on stdin, and `-c`
 * overrides that keep the CLI from phoning home (update checks, analytics,
 * feedback, plugins, apps, model discovery, hosted web search); success is
 * decided from the JSONL stream.
 *
 * @module
 */
import { agentCliBackend } from "./agent_cli.ts";
import { CodexStreamParser } from "./codex_stream.ts";
import type { SubprocessConfig } from "./subprocess.ts";
import type { AgentBackend, AgentTask } from "./types.ts";

/** Configuration of the `codex` backend. */
export interface CodexBackendConfig extends SubprocessConfig {
  /** The executable (default `codex` on PATH). */
  readonly executable?: string;
  /** Model (`-m`). */
  readonly model?: string;
  /** Extra `-c key=value` config overrides. */
  readonly configOverrides?: readonly string[];
  /**
   * Codex's own sandbox for tool calls (default `workspace-write`). When vouch
   * confines the whole CLI itself, `danger-full-access` tells Codex that the
   * outer sandbox is the boundary.
   */
  readonly sandboxMode?: "workspace-write" | "danger-full-access";
  /** Extra arguments placed before the prompt (from the config file). */
  readonly extraArgs?: readonly string[];
}

/** Provider variables Codex reads, forwarded from vouch's environment when set. */
export const CODEX_PROVIDER_ENV: readonly string[] = [
  "OPENAI_API_KEY",
  "CODEX_API_KEY",
  "OPENAI_BASE_URL",
  "OPENAI_ORGANIZATION",
  "OPENAI_PROJECT",
  "CODEX_HOME",
  "AZURE_OPENAI_API_KEY",
  "HTTPS_PROXY",
  "HTTP_PROXY",
  "NO_PROXY",
  "SSL_CERT_FILE",
];

/** `-c` overrides that keep Codex off the network except for its model provider. */
export const CODEX_QUIET_OVERRIDES: readonly string[] = [
  "check_for_update_on_startup=false",
  "analytics.enabled=false",
  "feedback.enabled=false",
  'web_search="disabled"',
  "features.plugins=false",
  "features.remote_plugin=false",
  "features.plugin_sharing=false",
  "features.apps=false",
  "features.in_app_updates=false",
  "features.api_key_model_discovery=false",
  "features.daemon_auto_start=false",
  "features.browser_use=false",
  "features.computer_use=false",
  "features.skill_mcp_dependency_install=false",
];

/**
 * The argv of one Codex run (the prompt goes to stdin, `-`).
 *
 * @example
 * ```ts
 * import { codexArgv } from "./codex_backend.ts";
 * import { equal } from "node:assert/strict";
 * const argv = codexArgv({ worktree: "/w" }, {});
 * equal(argv.slice(0, 9).join(" "), "codex exec --json --sandbox workspace-write -C /w --skip-git-repo-check --ephemeral");
 * equal(argv.includes("check_for_update_on_startup=false"), true);
 * equal(argv.at(-1), "-");
 * ```
 */
export function codexArgv(task: Pick<AgentTask, "worktree">, config: CodexBackendConfig): string[] {
  const argv = [
    config.executable ?? "codex",
    "exec",
    "--json",
    "--sandbox",
    config.sandboxMode ?? "workspace-write",
    "-C",
    task.worktree,
    "--skip-git-repo-check",
    "--ephemeral",
  ];
  if (config.model !== undefined) argv.push(`--model=${config.model}`);
  for (const c of [...CODEX_QUIET_OVERRIDES, ...(config.configOverrides ?? [])]) argv.push("-c", c);
  argv.push(...(config.extraArgs ?? []), "-");
  return argv;
}

/**
 * Creates the `codex` backend.
 *
 * @example
 * ```ts
 * import { codexBackend } from "./codex_backend.ts";
 * const b = codexBackend({ executable: "codex" });
 * if (b.id !== "codex" || !b.capabilities().subprocess) throw new Error();
 * ```
 */
export function codexBackend(config: CodexBackendConfig = {}): AgentBackend {
  return agentCliBackend(
    "codex",
    config,
    (task) => codexArgv(task, config),
    () => new CodexStreamParser(),
  );
}
