/**
 * Settings of the ACP backend ({@linkcode AcpBackendConfig}) and the question it asks a human
 * ({@linkcode PermissionQuestion}). Public (`./backends`), so free of the ACP SDK's types: a
 * consumer's strict tsc (no skipLibCheck) cannot check the SDK's own declarations.
 *
 * @module
 */
import type { PolicySnapshot } from "../../kernel/lifecycle/policy_types.ts";
import type { AcpAuthChoice } from "./acp_presets.ts";
import type { McpStdioServer } from "./mcp_config.ts";
import type { SubprocessConfig } from "./subprocess.ts";

/** What a human is asked about an agent's permission request. */
export interface PermissionQuestion {
  /** The request's ACP tool kind (`edit`, `execute`, `read`, ...). */
  readonly kind: string;
  /** The agent's title of the request. */
  readonly title: string;
  /** The paths the request names. */
  readonly paths: readonly string[];
  /** Why the policy asks. */
  readonly detail: string;
}

/**
 * Settings of `acpBackend`. Its environment, HOME and sandbox are set as for
 * the subprocess backends ({@linkcode SubprocessConfig}); the sandbox holds its
 * terminals too.
 */
export interface AcpBackendConfig
  extends Pick<SubprocessConfig, "sandbox" | "passEnv" | "env" | "home"> {
  /** The agent's command line, e.g. `["claude-code-acp"]`. */
  readonly argv: readonly string[];
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
