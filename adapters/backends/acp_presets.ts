/**
 * Launch presets of the real ACP agents (`--backend acp:claude`, `acp:codex`,
 * `acp:gemini`, `acp:qwen`): the program and flags that start each in its ACP
 * mode, the provider variables it reads (forwarded from vouch's environment by
 * name when set, values never logged), the HOME-relative state copied per run
 * into its private HOME, the variable that names an explicit state directory
 * (mounted writable), and the `authenticate` method vouch calls when the
 * agent's `initialize` answer lists it and its key variable is set. Any other
 * `acp:COMMAND` runs as written with none of these.
 *
 * @module
 */
import { CLAUDE_PROVIDER_ENV } from "./claude_backend.ts";
import { CODEX_PROVIDER_ENV, CODEX_QUIET_OVERRIDES } from "./codex_backend.ts";

/** An `authenticate` method and the variables whose presence selects it. */
export interface AcpAuthChoice {
  /** The agent's `authenticate` method id (as its `initialize` lists it). */
  readonly methodId: string;
  /** Any of these set (non-empty) in the forwarded environment selects the method. */
  readonly whenSet: readonly string[];
}

/** How one real agent is started and what it needs. */
export interface AcpPreset {
  readonly name: "claude" | "codex" | "gemini" | "qwen";
  /** The program (a name looked up on PATH). */
  readonly program: string;
  /** Flags that start its ACP mode (and keep it quiet); `inVouchSandbox` when bwrap confines it. */
  readonly args: (inVouchSandbox: boolean) => readonly string[];
  /** Provider variables forwarded when set. */
  readonly providerEnv: readonly string[];
  /** HOME-relative state copied per run into the private HOME. */
  readonly stateEntries: readonly string[];
  /** The variable naming an explicit state directory (mounted writable when absolute). */
  readonly stateVar: string | null;
  /** Fixed variables for the agent (telemetry and update checks off). */
  readonly env: Readonly<Record<string, string>>;
  /** `authenticate` choices, first match wins. */
  readonly auth: readonly AcpAuthChoice[];
}

const NO_PROXY_ENV = ["HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "SSL_CERT_FILE"];

/** The presets by name. */
export const ACP_PRESETS: Readonly<Record<AcpPreset["name"], AcpPreset>> = {
  claude: {
    name: "claude",
    program: "claude-code-acp",
    args: () => [],
    providerEnv: CLAUDE_PROVIDER_ENV,
    stateEntries: [".claude", ".claude.json"],
    stateVar: "CLAUDE_CONFIG_DIR",
    env: { DISABLE_AUTOUPDATER: "1", DISABLE_TELEMETRY: "1", DISABLE_ERROR_REPORTING: "1" },
    auth: [],
  },
  codex: {
    name: "codex",
    program: "codex-acp",
    // Inside vouch's bwrap codex's own bwrap cannot map uids: vouch is the sandbox.
    args: (inVouchSandbox) => [
      ...CODEX_QUIET_OVERRIDES.flatMap((c) => ["-c", c]),
      ...(inVouchSandbox ? ["-c", 'sandbox_mode="danger-full-access"'] : []),
      // Every patch and command is asked over ACP, so vouch's policy judges it.
      "-c",
      'approval_policy="untrusted"',
    ],
    providerEnv: CODEX_PROVIDER_ENV,
    stateEntries: [".codex"],
    stateVar: "CODEX_HOME",
    env: {},
    auth: [
      { methodId: "codex-api-key", whenSet: ["CODEX_API_KEY"] },
      { methodId: "openai-api-key", whenSet: ["OPENAI_API_KEY"] },
    ],
  },
  gemini: {
    name: "gemini",
    program: "gemini",
    args: () => ["--experimental-acp"],
    providerEnv: [
      "GEMINI_API_KEY",
      "GOOGLE_API_KEY",
      "GOOGLE_GEMINI_BASE_URL",
      "GOOGLE_VERTEX_BASE_URL",
      "GOOGLE_CLOUD_PROJECT",
      "GOOGLE_CLOUD_LOCATION",
      "GOOGLE_GENAI_USE_VERTEXAI",
      "GOOGLE_APPLICATION_CREDENTIALS",
      "GEMINI_MODEL",
      ...NO_PROXY_ENV,
    ],
    stateEntries: [".gemini"],
    stateVar: null,
    env: { GEMINI_CLI_NO_RELAUNCH: "true", GEMINI_TELEMETRY_ENABLED: "false" },
    auth: [
      { methodId: "gemini-api-key", whenSet: ["GEMINI_API_KEY"] },
      { methodId: "vertex-ai", whenSet: ["GOOGLE_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS"] },
    ],
  },
  qwen: {
    name: "qwen",
    program: "qwen",
    args: () => ["--acp"],
    providerEnv: [
      "OPENAI_API_KEY",
      "OPENAI_BASE_URL",
      "OPENAI_MODEL",
      "DASHSCOPE_API_KEY",
      "QWEN_MODEL",
      ...NO_PROXY_ENV,
    ],
    stateEntries: [".qwen"],
    stateVar: null,
    env: { QWEN_TELEMETRY_ENABLED: "false" },
    auth: [{ methodId: "openai", whenSet: ["OPENAI_API_KEY"] }],
  },
};

/**
 * The preset `acp:NAME` names, or null for any other command.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { acpPreset } from "./acp_presets.ts";
 * equal(acpPreset(["codex"])?.program, "codex-acp");
 * equal(acpPreset(["gemini"])?.args(false).join(" "), "--experimental-acp");
 * equal(acpPreset(["codex", "--flag"]), null);
 * equal(acpPreset(["claude-code-acp"]), null);
 * ```
 */
export function acpPreset(argv: readonly string[]): AcpPreset | null {
  if (argv.length !== 1) return null;
  const name = argv[0]!;
  return Object.hasOwn(ACP_PRESETS, name) ? ACP_PRESETS[name as AcpPreset["name"]] : null;
}

/**
 * The `authenticate` method to call: the first of `choices` the agent lists
 * whose key variable is set in `env`, or null (then vouch does not
 * authenticate and the agent uses its own logins or config).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { ACP_PRESETS, authMethodFor } from "./acp_presets.ts";
 * const offered = [{ id: "oauth-personal" }, { id: "gemini-api-key" }];
 * equal(authMethodFor(ACP_PRESETS.gemini.auth, offered, { GEMINI_API_KEY: "k" }), "gemini-api-key");
 * equal(authMethodFor(ACP_PRESETS.gemini.auth, offered, {}), null);
 * equal(authMethodFor(ACP_PRESETS.gemini.auth, [], { GEMINI_API_KEY: "k" }), null);
 * ```
 */
export function authMethodFor(
  choices: readonly AcpAuthChoice[],
  offered: readonly { readonly id: string }[],
  env: Readonly<Record<string, string | undefined>>,
): string | null {
  for (const c of choices) {
    if (!offered.some((m) => m.id === c.methodId)) continue;
    if (c.whenSet.some((name) => (env[name] ?? "") !== "")) return c.methodId;
  }
  return null;
}
