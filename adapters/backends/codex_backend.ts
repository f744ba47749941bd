/**
 * The `codex` backend: `codex exec --json --sandbox workspace-write -C <worktree>
 * --skip-git-repo-check --ephemeral -` with the prompt on stdin; success is
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
}

/**
 * The argv of one Codex run (the prompt goes to stdin, `-`).
 *
 * @example
 * ```ts
 * import { codexArgv } from "./codex_backend.ts";
 * const argv = codexArgv({ worktree: "/w" } as never, {});
 * if (argv.join(" ") !== "codex exec --json --sandbox workspace-write -C /w --skip-git-repo-check --ephemeral -") throw new Error(argv.join(" "));
 * ```
 */
export function codexArgv(task: Pick<AgentTask, "worktree">, config: CodexBackendConfig): string[] {
  const argv = [
    config.executable ?? "codex",
    "exec",
    "--json",
    "--sandbox",
    "workspace-write",
    "-C",
    task.worktree,
    "--skip-git-repo-check",
    "--ephemeral",
  ];
  if (config.model !== undefined) argv.push(`--model=${config.model}`);
  for (const c of config.configOverrides ?? []) argv.push("-c", c);
  argv.push("-");
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
