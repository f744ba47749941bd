/**
 * Argument parsing for `vouch run` (kept apart from the command so it can be
 * tested without running anything).
 *
 * @module
 */
import { resolve } from "node:path";
import { JSON_FLAG, parseCommandLine, sandboxFlag } from "./_flags.ts";
import { normalize } from "node:path";
import { UsageError } from "../command.ts";
import { AgentEnvName } from "../../adapters/backends/agent_cli_config.ts";
import { type EgressHost, parseEgressHost } from "../../adapters/egress/allowlist.ts";

/** How live progress is shown on stderr. */
export type ProgressMode = "plain" | "json" | "none";

/** Which backend `--backend` selected. */
export type BackendChoice =
  | { readonly kind: "codex" }
  | { readonly kind: "claude" }
  | { readonly kind: "command"; readonly path: string }
  /** An ACP agent: its command line (words split on spaces; no shell). */
  | { readonly kind: "acp"; readonly argv: readonly string[] }
  | {
    readonly kind: "openai";
    readonly model: string;
    /** The API root (`--base-url`, required). */
    readonly baseUrl: string;
    /** The variable holding the bearer key (`--api-key-env`, default OPENAI_API_KEY). */
    readonly apiKeyEnv: string;
  };

/** The parsed flags of `vouch run`. */
export interface RunArgs {
  readonly dir: string;
  readonly goal: string;
  readonly verify: string | null;
  readonly contract: string | null;
  readonly backend: BackendChoice;
  readonly maxRounds: number;
  readonly allow: readonly string[];
  readonly forbid: readonly string[];
  readonly json: boolean;
  readonly base: string | null;
  readonly timeoutSeconds: number;
  readonly backendTimeoutSeconds: number | null;
  readonly integrateBranch: string | null;
  readonly yes: boolean;
  readonly sandbox: "auto" | "bwrap" | "none";
  /** Paths outside the tree the checks need, read-only in their sandbox (`--sandbox-ro`, repeatable). */
  readonly sandboxReadOnly: readonly string[];
  /** Let the contract's setup commands use the network when it asks for it. */
  readonly allowSetupNetwork: boolean;
  /** Tests are editable (`--tests-editable`): graded against the patch's own tests only. */
  readonly testsEditable: boolean;
  /** Where worktrees live (`--worktree-root`, resolved), or null for the default. */
  readonly worktreeRoot: string | null;
  /** Extra variable names forwarded to the agent (`--agent-env NAME`, repeatable; values never logged). */
  readonly agentEnv: readonly string[];
  /** The agent-CLI settings file (`--agent-config FILE`), or null for the default location. */
  readonly agentConfig: string | null;
  /** Live progress on stderr: `plain` (default; `none` with `--json`), `json` (one object per line), `none`. */
  readonly progress: ProgressMode;
  /** The task's cost budget in the backend's units (`--max-cost`; tokens for openai:), or null. */
  readonly maxCost: number | null;
  /** Hosts the agent may reach besides its provider's (`--egress-allow HOST[:PORT]`, repeatable). */
  readonly egressAllow: readonly EgressHost[];
  /** `filtered` (default: only the model hosts, through vouch's proxy) or `host` (`--agent-network host`). */
  readonly agentNetwork: "filtered" | "host";
  /** The user's MCP servers for an ACP agent (`--mcp-config FILE`), or null. */
  readonly mcpConfig: string | null;
}

/** The largest `--timeout`/`--backend-timeout`: 7 days (timers hold at most ~24.8 days). */
export const MAX_TIMEOUT_SECONDS = 7 * 24 * 3600;

function positiveInt(flag: string, raw: string, max: number): number {
  if (!/^[0-9]+$/.test(raw)) throw new UsageError(`Cannot parse ${flag}: "${raw}" is not a number`);
  const n = Number(raw);
  if (n < 1 || n > max) throw new UsageError(`Cannot use ${flag} ${raw}: expected 1..${max}`);
  return n;
}

/**
 * Validates `--sandbox-ro PATH` values: absolute paths, made canonical.
 *
 * @example
 * ```ts
 * import { deepEqual, throws } from "node:assert/strict";
 * import { parseSandboxReadOnly } from "./run_args.ts";
 * deepEqual(parseSandboxReadOnly(["/opt/sdk/"]), ["/opt/sdk"]);
 * throws(() => parseSandboxReadOnly(["relative/dir"]));
 * ```
 */
export function parseSandboxReadOnly(values: readonly string[]): string[] {
  return values.map((v) => {
    if (!v.startsWith("/") || v.includes("\0")) {
      throw new UsageError(`Cannot use --sandbox-ro "${v}": expected an absolute path`);
    }
    return normalize(v).replace(/(.)\/+$/, "$1");
  });
}

/**
 * Parses `vouch run` arguments; throws {@link UsageError} for bad combinations.
 *
 * @example
 * ```ts
 * import { parseRunArgs } from "./run_args.ts";
 * const args = parseRunArgs(["--goal", "fix it", "--verify", "deno test"]);
 * if (args.maxRounds !== 3 || args.backend.kind !== "codex") throw new Error();
 * ```
 */
export function parseRunArgs(argv: string[]): RunArgs {
  const values = runFlags(argv);
  if (values.goal === undefined || values.goal.trim() === "") {
    throw new UsageError("Cannot run: --goal TEXT is required");
  }
  if (values.verify !== undefined && values.contract !== undefined) {
    throw new UsageError("Cannot use both --verify and --contract");
  }
  const backend = backendChoice(values);
  const integrateBranch = integrateFlag(values.integrate);
  const sandbox = sandboxFlag(values.sandbox);
  const agentEnv = agentEnvFlag(values["agent-env"] ?? []);
  const progress = progressFlag(values.progress, values.json);
  if (values["mcp-config"] !== undefined && backend.kind !== "acp") {
    throw new UsageError("Cannot use --mcp-config without --backend acp:COMMAND");
  }
  const agentNetwork = agentNetworkFlag(values["agent-network"]);
  const egressAllow = egressAllowFlag(values["egress-allow"] ?? []);
  return {
    dir: values.dir,
    goal: values.goal,
    verify: values.verify ?? null,
    contract: values.contract ?? null,
    backend,
    maxRounds: positiveInt("--max-rounds", values["max-rounds"], 50),
    allow: values.allow ?? [],
    forbid: values.forbid ?? [],
    json: values.json,
    base: values.base ?? null,
    timeoutSeconds: positiveInt("--timeout", values.timeout, MAX_TIMEOUT_SECONDS),
    backendTimeoutSeconds: values["backend-timeout"] === undefined
      ? null
      : positiveInt("--backend-timeout", values["backend-timeout"], MAX_TIMEOUT_SECONDS),
    integrateBranch,
    yes: values.yes,
    sandbox,
    sandboxReadOnly: parseSandboxReadOnly(values["sandbox-ro"] ?? []),
    allowSetupNetwork: values["allow-setup-network"],
    testsEditable: values["tests-editable"],
    worktreeRoot: values["worktree-root"] !== undefined ? resolve(values["worktree-root"]) : null,
    agentEnv,
    agentConfig: values["agent-config"] ?? null,
    progress,
    maxCost: values["max-cost"] === undefined
      ? null
      : positiveInt("--max-cost", values["max-cost"], Number.MAX_SAFE_INTEGER),
    egressAllow,
    agentNetwork,
    mcpConfig: values["mcp-config"] !== undefined ? resolve(values["mcp-config"]) : null,
  };
}

/** `vouch run`'s flags as given (no positional arguments). */
function runFlags(argv: readonly string[]) {
  const { values, positionals } = parseCommandLine(argv, {
    dir: { type: "string", default: "." },
    goal: { type: "string" },
    verify: { type: "string" },
    contract: { type: "string" },
    backend: { type: "string", default: "codex" },
    "max-rounds": { type: "string", default: "3" },
    allow: { type: "string", multiple: true },
    forbid: { type: "string", multiple: true },
    ...JSON_FLAG,
    base: { type: "string" },
    timeout: { type: "string", default: "1800" },
    "backend-timeout": { type: "string" },
    integrate: { type: "string" },
    yes: { type: "boolean", default: false },
    sandbox: { type: "string", default: "auto" },
    "sandbox-ro": { type: "string", multiple: true },
    "allow-setup-network": { type: "boolean", default: false },
    "tests-editable": { type: "boolean", default: false },
    "worktree-root": { type: "string" },
    "agent-env": { type: "string", multiple: true },
    "agent-config": { type: "string" },
    progress: { type: "string" },
    "base-url": { type: "string" },
    "api-key-env": { type: "string" },
    "max-cost": { type: "string" },
    "egress-allow": { type: "string", multiple: true },
    "agent-network": { type: "string", default: "filtered" },
    "mcp-config": { type: "string" },
  });
  if (positionals.length > 0) {
    throw new UsageError(`Cannot use positional arguments: ${positionals.join(" ")}`);
  }
  return values;
}

type RunFlags = ReturnType<typeof runFlags>;

/** `--backend` (with `--base-url` and `--api-key-env` for openai:MODEL, and only then). */
function backendChoice(values: RunFlags): BackendChoice {
  const raw = values.backend;
  let backend: BackendChoice;
  if (raw === "codex" || raw === "claude") backend = { kind: raw };
  else if (raw.startsWith("command:") && raw.length > "command:".length) {
    backend = { kind: "command", path: raw.slice("command:".length) };
  } else if (raw.startsWith("acp:") && raw.slice(4).trim() !== "") {
    backend = { kind: "acp", argv: raw.slice(4).trim().split(/\s+/) };
  } else if (raw.startsWith("openai:") && raw.length > "openai:".length) {
    backend = openaiChoice(raw.slice("openai:".length), values["base-url"], values["api-key-env"]);
  } else {
    throw new UsageError(
      `Cannot use --backend "${raw}": expected codex, claude, command:PATH, acp:COMMAND or openai:MODEL`,
    );
  }
  if (backend.kind !== "openai" && values["base-url"] !== undefined) {
    throw new UsageError("Cannot use --base-url without --backend openai:MODEL");
  }
  return backend;
}

/** `--integrate branch:NAME`: the branch, or null when not given. */
function integrateFlag(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  const m = /^branch:(.+)$/.exec(raw);
  if (m === null || m[1] === undefined) {
    throw new UsageError(`Cannot use --integrate "${raw}": expected branch:NAME`);
  }
  return m[1];
}

/** `--agent-env NAME`: variable names (a value given with `=` is never echoed). */
function agentEnvFlag(names: readonly string[]): readonly string[] {
  for (const name of names) {
    const r = AgentEnvName.safeParse(name);
    if (!r.success) {
      throw new UsageError(
        `Cannot use --agent-env "${name.replace(/=.*$/s, "=…")}": ${
          r.error.issues[0]?.message ?? "invalid"
        }`,
      );
    }
  }
  return names;
}

/** `--progress`: plain, json or none (default: plain, none with `--json`). */
function progressFlag(raw: string | undefined, json: boolean): ProgressMode {
  const progress = raw ?? (json ? "none" : "plain");
  if (progress !== "plain" && progress !== "json" && progress !== "none") {
    throw new UsageError(`Cannot use --progress "${progress}": expected plain, json or none`);
  }
  return progress;
}

/** `--agent-network`: filtered or host. */
function agentNetworkFlag(raw: string): "filtered" | "host" {
  if (raw !== "filtered" && raw !== "host") {
    throw new UsageError(`Cannot use --agent-network "${raw}": expected filtered or host`);
  }
  return raw;
}

/** `--egress-allow HOST[:PORT]`, each parsed (a bad one is a usage error). */
function egressAllowFlag(raws: readonly string[]): EgressHost[] {
  return raws.map((raw) => {
    try {
      return parseEgressHost(raw);
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
  });
}

function openaiChoice(
  model: string,
  baseUrl: string | undefined,
  apiKeyEnv: string | undefined,
): BackendChoice {
  if (baseUrl === undefined) {
    throw new UsageError("Cannot use --backend openai:MODEL without --base-url URL (the API root)");
  }
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new UsageError(`Cannot use --base-url "${baseUrl}": not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`Cannot use --base-url "${baseUrl}": expected http:// or https://`);
  }
  const env = apiKeyEnv ?? "OPENAI_API_KEY";
  const r = AgentEnvName.safeParse(env);
  if (!r.success) throw new UsageError(`Cannot use --api-key-env "${env.replace(/=.*$/s, "=…")}"`);
  return { kind: "openai", model, baseUrl: url.href.replace(/\/+$/, ""), apiKeyEnv: env };
}
