/**
 * The backend `vouch run` hands the task to, built from `--backend`, the
 * user's agent-CLI settings (one section per CLI) and `--agent-env`. Real
 * CLIs get the provider variables they read (base URLs, keys, tokens, config
 * homes) forwarded from vouch's environment when set; values are never
 * logged (receipts and results name variables only).
 *
 * @module
 */
import { statSync } from "node:fs";
import { askYes } from "../terminal_prompt.ts";
import process from "node:process";
import { resolve } from "node:path";
import { UsageError } from "../command.ts";
import type { RunArgs } from "./run_args.ts";
import type { ContractLimits } from "../../kernel/contract/types.ts";
import type { AgentBackend } from "../../adapters/backends/types.ts";
import type { SandboxProfile } from "../../adapters/sandbox/profile.ts";
import {
  CODEX_PROVIDER_ENV,
  codexBackend,
  type CodexBackendConfig,
} from "../../adapters/backends/codex_backend.ts";
import {
  CLAUDE_PROVIDER_ENV,
  claudeBackend,
  type ClaudeBackendConfig,
} from "../../adapters/backends/claude_backend.ts";
import { commandBackend } from "../../adapters/backends/command_backend.ts";
import { openaiBackend } from "../../adapters/backends/openai_backend.ts";
import { acpBackend, type PermissionQuestion } from "../../adapters/backends/acp_backend.ts";
import { acpPreset } from "../../adapters/backends/acp_presets.ts";
import { isatty } from "node:tty";
import {
  type AgentCliConfig,
  AgentCliConfigError,
  loadAgentCliConfig,
} from "../../adapters/backends/agent_cli_config.ts";
import {
  agentArgumentPaths,
  type AgentNetwork,
  agentProgramPaths,
  confinedBackend,
} from "../../adapters/driver/confined_backend.ts";
import { agentEgressAllowlist, codexConfigUrls } from "../../adapters/egress/allowlist.ts";
import { readFileSync } from "node:fs";
import { passedEnvValues } from "../../adapters/backends/subprocess.ts";
import {
  loadMcpConfig,
  McpConfigError,
  type McpStdioServer,
} from "../../adapters/backends/mcp_config.ts";

/**
 * The `--mcp-config` servers, their programs resolved on PATH, and the
 * directories the sandbox must show for them (read-only), or none.
 */
function mcpServersFor(args: RunArgs): { servers: McpStdioServer[]; readOnly: string[] } {
  if (args.mcpConfig === null) return { servers: [], readOnly: [] };
  let servers: McpStdioServer[];
  try {
    servers = loadMcpConfig(args.mcpConfig);
  } catch (error) {
    if (error instanceof McpConfigError) throw new UsageError(error.message);
    throw error;
  }
  const resolved = servers.map((s) => ({ ...s, command: executableOnPath(s.command) }));
  const readOnly = resolved.flatMap((s) => [
    ...(s.command.startsWith("/") ? agentProgramPaths(s.command) : []),
    ...agentArgumentPaths(s.args),
  ]);
  return { servers: resolved, readOnly };
}

/**
 * What the agent may reach: its provider's hosts (the forwarded `*_BASE_URL`
 * values, Codex's configured `base_url`s, else the provider's defaults) plus
 * `--egress-allow`; or the host network with `--agent-network host`.
 */
function networkFor(args: RunArgs, provider: string | null, passEnv: readonly string[]): {
  network: AgentNetwork;
} {
  if (args.agentNetwork === "host") return { network: "host" };
  let configUrls: string[] = [];
  if (provider === "codex") {
    const dir = process.env["CODEX_HOME"] ??
      (process.env["HOME"] !== undefined ? `${process.env["HOME"]}/.codex` : undefined);
    try {
      if (dir !== undefined) {
        configUrls = codexConfigUrls(readFileSync(`${dir}/config.toml`, "utf8"));
      }
    } catch {
      // no config: the defaults
    }
  }
  return {
    network: {
      allow: agentEgressAllowlist({
        provider,
        env: passedEnvValues(passEnv),
        configUrls,
        extra: args.egressAllow,
      }),
    },
  };
}

/** Sandbox options of a CLI agent: its install dirs read-only, an explicit state dir writable. */
function agentSandboxOptions(executable: string | undefined, stateVar: string) {
  const state = process.env[stateVar];
  return {
    readOnly: executable !== undefined && executable.includes("/")
      ? agentProgramPaths(resolve(executable))
      : [],
    stateDirs: state !== undefined && state.startsWith("/") ? [state] : [],
  };
}

/**
 * The absolute path a bare program name resolves to on PATH (the path itself,
 * not its link target), or the name unchanged when it is not found (preflight
 * then says "claude: not found on PATH"). Inside the agent sandbox only what
 * is mounted exists, and only an absolute path tells what to mount
 * (`node_modules/.bin/claude` -> the whole `node_modules`).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { executableOnPath } from "./run_backend.ts";
 * equal(executableOnPath("sh", "/nonexistent:relative:/bin"), "/bin/sh");
 * equal(executableOnPath("no-such-agent-cli", "/bin"), "no-such-agent-cli");
 * equal(executableOnPath("./agent", "/bin"), "./agent");
 * ```
 */
export function executableOnPath(
  name: string,
  path: string = process.env["PATH"] ?? "",
): string {
  if (name.includes("/")) return name;
  for (const dir of path.split(":")) {
    if (!dir.startsWith("/")) continue;
    try {
      const info = statSync(`${dir}/${name}`);
      if (info.isFile() && info.mode !== null && (info.mode & 0o111) !== 0) return `${dir}/${name}`;
    } catch {
      // not in this directory
    }
  }
  return name;
}

function unique(names: readonly string[]): string[] {
  return [...new Set(names)];
}

/**
 * The variable names a backend receives from vouch's environment: the CLI's
 * well-known provider variables, the config section's `env`, and `--agent-env`.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { forwardedEnvNames } from "./run_backend.ts";
 * const names = forwardedEnvNames("claude", { path: null, codex: {}, claude: { env: ["MY_PROXY"] } }, ["X_TOKEN"]);
 * equal(names.includes("ANTHROPIC_BASE_URL"), true);
 * equal(names.includes("ANTHROPIC_AUTH_TOKEN"), true);
 * equal(names.includes("MY_PROXY") && names.includes("X_TOKEN"), true);
 * ```
 */
export function forwardedEnvNames(
  backend: "codex" | "claude" | "command" | "openai" | "acp",
  config: AgentCliConfig,
  agentEnv: readonly string[],
): string[] {
  switch (backend) {
    case "codex":
      return unique([...CODEX_PROVIDER_ENV, ...(config.codex.env ?? []), ...agentEnv]);
    case "claude":
      return unique([...CLAUDE_PROVIDER_ENV, ...(config.claude.env ?? []), ...agentEnv]);
    case "command":
    case "openai":
    case "acp":
      return unique(agentEnv);
  }
}

/**
 * Loads the agent-CLI settings for `vouch run` (a bad file is a usage error).
 *
 * @example
 * ```ts ignore
 * const config = agentConfigFor(parseRunArgs(argv));
 * ```
 */
export function agentConfigFor(args: RunArgs): AgentCliConfig {
  try {
    return loadAgentCliConfig(args.agentConfig, { ...process.env } as Record<string, string>);
  } catch (error) {
    if (error instanceof AgentCliConfigError) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * Builds the backend of a `vouch run`.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { backendFor } from "./run_backend.ts";
 * import { parseRunArgs } from "./run_args.ts";
 * const b = backendFor(parseRunArgs(["--goal", "g", "--backend", "claude"]), { path: null, codex: {}, claude: {} });
 * equal(b.id, "claude");
 * ```
 */
export function backendFor(
  args: RunArgs,
  config: AgentCliConfig,
  agentLimits?: ContractLimits,
  modelFetch?: typeof fetch,
): AgentBackend {
  const limits = agentLimits !== undefined ? { limits: agentLimits } : {};
  const homeConfig = userHome();
  switch (args.backend.kind) {
    case "codex":
      // In the agent sandbox (confine): vouch is the sandbox, so Codex's own is turned off.
      return agentCliFor("codex", args, config, limits, (common, sandbox) =>
        codexBackend({
          ...common,
          sandbox,
          sandboxMode: sandbox.kind === "bwrap" ? "danger-full-access" : "workspace-write",
        }));
    case "claude": {
      const tools = config.claude.tools;
      return agentCliFor("claude", args, config, limits, (common, sandbox) =>
        claudeBackend({
          ...common,
          ...(tools !== undefined ? { allowedTools: tools } : {}),
          sandbox,
        }));
    }
    case "command": {
      // A local agent program runs in the sandbox: only its worktree is writable, no network.
      const program = resolve(args.backend.path);
      const argv = [program];
      const passEnv = forwardedEnvNames("command", config, args.agentEnv);
      // The program (and its own directory, unless that is HOME or in or around the checkout)
      // must be visible (read-only) inside the sandbox.
      return confinedBackend(
        (sandbox) => commandBackend({ argv, sandbox, ...(passEnv.length > 0 ? { passEnv } : {}) }),
        args.sandbox,
        { readOnly: agentProgramPaths(program), ...limits, ...networkFor(args, null, passEnv) },
      );
    }
    case "acp": {
      // The agent runs in the agent sandbox (network shared for its model provider); what it
      // asks of its client is decided by the kernel and served by vouch. `acp:claude`,
      // `acp:codex`, `acp:gemini`, `acp:qwen` are presets (flags, provider variables, state).
      const preset = acpPreset(args.backend.argv);
      const [first, ...rest] = preset !== null ? [preset.program] : args.backend.argv;
      const program = executableOnPath(first!);
      const passEnv = unique([
        ...(preset?.providerEnv ?? []),
        ...forwardedEnvNames("acp", config, args.agentEnv),
      ]);
      const mcp = mcpServersFor(args);
      const readOnly = unique([
        ...(program.includes("/") ? agentProgramPaths(resolve(program)) : []),
        ...agentArgumentPaths(rest),
        ...mcp.readOnly,
      ]);
      const stateVar = preset?.stateVar ?? null;
      const state = stateVar !== null ? process.env[stateVar] : undefined;
      return confinedBackend(
        (sandbox) =>
          acpBackend({
            argv: [program, ...rest, ...(preset?.args(sandbox.kind === "bwrap") ?? [])],
            sandbox,
            ...(passEnv.length > 0 ? { passEnv } : {}),
            ...(preset !== null ? { env: preset.env, auth: preset.auth } : {}),
            ...(mcp.servers.length > 0 ? { mcpServers: mcp.servers } : {}),
            ...homeConfig,
            // On a terminal the policy's "ask a human" classes are asked; elsewhere refused.
            ...(isatty(0) && !args.json ? { askHuman: askPermissionOnTerminal } : {}),
          }),
        args.sandbox,
        {
          readOnly,
          ...(preset !== null ? { stateEntries: preset.stateEntries } : {}),
          ...(state !== undefined && state.startsWith("/") ? { stateDirs: [state] } : {}),
          ...limits,
          ...networkFor(args, preset?.name ?? null, passEnv),
        },
      );
    }
    case "openai":
      return openaiFor(args.backend, args.sandbox, args.maxCost, limits, modelFetch);
  }
}

/** The user's HOME, for the agent's own login and settings (none when unset). */
function userHome(): { home?: string } {
  const home = process.env["HOME"];
  return home !== undefined ? { home } : {};
}

/** The variable naming each agent CLI's own state directory. */
const AGENT_CLI_STATE_VAR = { codex: "CODEX_HOME", claude: "CLAUDE_CONFIG_DIR" } as const;

/** What the `codex` and `claude` backends are both given (their configs name it alike). */
type AgentCliCommon = Pick<
  CodexBackendConfig & ClaudeBackendConfig,
  "passEnv" | "home" | "executable" | "model" | "extraArgs"
>;

/**
 * A `codex` or `claude` backend in the agent sandbox: its executable found on
 * PATH (or the config's), its provider variables forwarded, the config's model
 * and arguments, its own state directory ({@linkcode AGENT_CLI_STATE_VAR}) and
 * network as its name says.
 */
function agentCliFor(
  name: "codex" | "claude",
  args: RunArgs,
  config: AgentCliConfig,
  limits: { limits?: ContractLimits },
  make: (common: AgentCliCommon, sandbox: SandboxProfile) => AgentBackend,
): AgentBackend {
  const s = config[name];
  const executable = executableOnPath(s.executable ?? name);
  const passEnv = forwardedEnvNames(name, config, args.agentEnv);
  const common = {
    passEnv,
    ...userHome(),
    executable,
    ...(s.model !== undefined ? { model: s.model } : {}),
    ...(s.args !== undefined ? { extraArgs: s.args } : {}),
  };
  return confinedBackend((sandbox) => make(common, sandbox), args.sandbox, {
    ...agentSandboxOptions(executable, AGENT_CLI_STATE_VAR[name]),
    ...limits,
    ...networkFor(args, name, passEnv),
  });
}

/** The native loop: vouch itself talks to the model; the model's commands run in the sandbox. */
function openaiFor(
  choice: Extract<RunArgs["backend"], { kind: "openai" }>,
  requirement: RunArgs["sandbox"],
  maxCost: number | null,
  limits: { limits?: ContractLimits },
  modelFetch: typeof fetch | undefined,
): AgentBackend {
  const apiKey = process.env[choice.apiKeyEnv] ?? null;
  return confinedBackend(
    (sandbox) =>
      openaiBackend({
        model: choice.model,
        baseUrl: choice.baseUrl,
        apiKey,
        sandbox,
        ...(maxCost !== null ? { maxTokens: maxCost } : {}),
        ...(modelFetch !== undefined ? { fetch: modelFetch } : {}),
      }),
    requirement,
    { ...limits, stateEntries: [] },
  );
}

/** Asks on the terminal whether an ACP agent may do what the policy sends to a human. */
function askPermissionOnTerminal(q: PermissionQuestion): Promise<boolean> {
  const text = [
    "",
    `The agent asks to ${q.kind}: ${q.title || q.paths.join(", ")}`,
    `  why you are asked: ${q.detail}`,
    "Type yes to allow: ",
  ].join("\n");
  return askYes(text);
}
