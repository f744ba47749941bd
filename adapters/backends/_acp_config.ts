/**
 * Settings of the ACP backend ({@linkcode AcpBackendConfig}).
 *
 * @module
 */
import type { PolicySnapshot } from "../../kernel/lifecycle/policy_types.ts";
import type { SandboxProfile } from "../sandbox/profile.ts";
import type { PermissionQuestion } from "./_acp_client_env.ts";
import type { AcpAuthChoice } from "./acp_presets.ts";
import type { McpStdioServer } from "./mcp_config.ts";

/** Settings of `acpBackend`. */
export interface AcpBackendConfig {
  /** The agent's command line, e.g. `["claude-code-acp"]`. */
  readonly argv: readonly string[];
  /** Where the agent and its terminals run. @default no sandbox */
  readonly sandbox?: SandboxProfile;
  /** Variable names forwarded from vouch's environment (values never logged). */
  readonly passEnv?: readonly string[];
  /** Extra variables for the agent (e.g. a base URL). */
  readonly env?: Readonly<Record<string, string>>;
  /** The agent's HOME (for its own config). */
  readonly home?: string;
  /** Policy that judges file access and permissions. @default defaultPolicy() */
  readonly policy?: PolicySnapshot;
  /** Time `initialize` and `session/new` may take, ms. @default 60000 */
  readonly startTimeoutMs?: number;
  /** After `session/cancel`, how long the agent has to stop its turn, ms. @default 3000 */
  readonly cancelGraceMs?: number;
  /** Time limit of one terminal command, ms. @default 300000 */
  readonly terminalTimeoutMs?: number;
  /** Asks a human about permissions the policy sends to one; absent = they are refused. */
  readonly askHuman?: (question: PermissionQuestion) => Promise<boolean>;
  /**
   * `authenticate` choices (a preset's): the first method the agent's `initialize`
   * lists whose key variable is forwarded is called before `session/new`.
   */
  readonly auth?: readonly AcpAuthChoice[];
  /** The user's stdio MCP servers offered in `session/new` (the agent starts them, sandboxed). */
  readonly mcpServers?: readonly McpStdioServer[];
}
