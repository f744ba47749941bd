/**
 * The user's agent-CLI settings: one section per backend (`codex`, `claude`)
 * in a JSON file that lives with the user, never in the repository (a
 * repository must not choose which of the user's variables an agent sees).
 * Read from `--agent-config FILE`, else `$VOUCH_CONFIG`, else
 * `$XDG_CONFIG_HOME/vouch/config.json` (`~/.config/vouch/config.json`) when
 * it exists.
 *
 * ```json
 * { "backends": { "claude": { "model": "claude-sonnet-4-5", "env": ["ANTHROPIC_BASE_URL"],
 *                             "args": ["--max-turns=40"] } } }
 * ```
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { envDenyReason } from "../process/env.ts";
import { parseJsonText } from "./json_line.ts";
import { VouchError } from "../../kernel/errors/mod.ts";

/** A variable name an agent may receive (never a code-injecting one such as `LD_PRELOAD`). */
export const AgentEnvName: z.ZodType<string> = z.lazy(() =>
  z.string().regex(
    /^[A-Za-z_][A-Za-z0-9_]{0,127}$/,
    "expected a variable NAME (letters, digits, _); values are never written in config or flags",
  ).refine((name) => envDenyReason(name) !== "injection", {
    message: "changes what code runs in the agent (e.g. LD_*, NODE_OPTIONS); never forwarded",
  })
);

const BackendSection = z.lazy(() =>
  z.object({
    /** The executable (absolute path or a name on PATH). */
    executable: z.string().min(1).max(4096).optional(),
    /** The model the CLI should use. */
    model: z.string().min(1).max(200).optional(),
    /** Extra variable names forwarded from vouch's environment (values are never logged). */
    env: z.array(AgentEnvName).max(100).optional(),
    /** Extra arguments for the CLI (codex: before the prompt; claude: appended). */
    args: z.array(z.string().max(4096)).max(100).optional(),
    /**
     * claude only: the tools that exist for the agent (replaces the default closed
     * set, e.g. to add an `mcp__server__tool`); the `system/init` check uses it too.
     */
    tools: z.array(z.string().regex(/^[A-Za-z0-9_:.()*-]{1,200}$/)).max(200).optional(),
  }).strict()
);

/** One backend's section. */
export type AgentCliSection = z.infer<typeof BackendSection>;

const ConfigFile = z.lazy(() =>
  z.object({
    backends: z.object({
      codex: BackendSection.optional(),
      claude: BackendSection.optional(),
    }).strict().optional(),
  }).loose()
);

/** The parsed settings, with where they came from. */
export interface AgentCliConfig {
  /** The file read, or null when none exists. */
  readonly path: string | null;
  readonly codex: AgentCliSection;
  readonly claude: AgentCliSection;
}

/** Why the config file could not be used (a usage problem the user fixes). */
export class AgentCliConfigError
  extends VouchError<"agent_config_unreadable" | "agent_config_invalid"> {}

/**
 * Where the settings are read from: the explicit path, else `VOUCH_CONFIG`,
 * else the XDG location (which may not exist).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { agentCliConfigPath } from "./agent_cli_config.ts";
 * equal(agentCliConfigPath(null, { HOME: "/home/u" }), "/home/u/.config/vouch/config.json");
 * equal(agentCliConfigPath(null, { XDG_CONFIG_HOME: "/x", HOME: "/h" }), "/x/vouch/config.json");
 * equal(agentCliConfigPath("/etc/v.json", {}), "/etc/v.json");
 * ```
 */
export function agentCliConfigPath(
  explicit: string | null,
  env: Readonly<Record<string, string | undefined>>,
): string | null {
  if (explicit !== null) return explicit;
  if (env["VOUCH_CONFIG"]) return env["VOUCH_CONFIG"];
  if (env["XDG_CONFIG_HOME"]) return join(env["XDG_CONFIG_HOME"], "vouch", "config.json");
  if (env["HOME"]) return join(env["HOME"], ".config", "vouch", "config.json");
  return null;
}

/**
 * Loads the settings. A missing default file means no settings; a missing
 * explicit file, unreadable JSON or an unknown field is an
 * {@linkcode AgentCliConfigError}.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { loadAgentCliConfig } from "./agent_cli_config.ts";
 * const none = loadAgentCliConfig(null, { HOME: "/nonexistent" });
 * equal(none.path, null);
 * equal(none.claude.model, undefined);
 * ```
 */
export function loadAgentCliConfig(
  explicit: string | null,
  env: Readonly<Record<string, string | undefined>>,
): AgentCliConfig {
  const path = agentCliConfigPath(explicit, env);
  const empty: AgentCliConfig = { path: null, codex: {}, claude: {} };
  if (path === null) return empty;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const missing = (error as { code?: string }).code === "ENOENT";
    if (missing && explicit === null && !env["VOUCH_CONFIG"]) return empty;
    throw new AgentCliConfigError(
      "agent_config_unreadable",
      `Cannot read agent config ${path}: ${missing ? "no such file" : String(error)}`,
    );
  }
  const json = parseJsonText(text);
  if (!json.ok) {
    throw new AgentCliConfigError(
      "agent_config_invalid",
      `Cannot use agent config ${path}: not JSON (${json.error})`,
    );
  }
  const parsed = ConfigFile.safeParse(json.value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.map(String).join(".") || "(root)";
    throw new AgentCliConfigError(
      "agent_config_invalid",
      `Cannot use agent config ${path}: ${where}: ${issue?.message ?? "invalid"}`,
    );
  }
  return {
    path,
    codex: parsed.data.backends?.codex ?? {},
    claude: parsed.data.backends?.claude ?? {},
  };
}
