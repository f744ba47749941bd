/**
 * The user's MCP servers for ACP agents (`vouch run --mcp-config FILE`): a
 * JSON file in the shape Claude and Zed use,
 * `{"mcpServers": {"name": {"command": "...", "args": [...], "env": {...}}}}`,
 * zod-checked and turned into ACP `session/new` `mcpServers` entries. The
 * agent starts each server itself, so each runs inside the agent's sandbox
 * (its filesystem view, its network namespace and egress allowlist) and its
 * tool calls reach vouch's policy as the agent's permission requests.
 * Only stdio servers: an `http`/`sse` server is a network destination, to be
 * allowed with `--egress-allow`, and is refused here with that advice.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { VouchError } from "../../kernel/errors/mod.ts";

/** Stable codes of {@linkcode McpConfigError}. */
export type McpConfigErrorCode = "mcp_config_unreadable" | "mcp_config_invalid";

/**
 * A config file that cannot be read or is not a valid MCP server list.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { McpConfigError } from "./mcp_config.ts";
 * equal(new McpConfigError("mcp_config_invalid", "bad").code, "mcp_config_invalid");
 * ```
 */
export class McpConfigError extends VouchError<McpConfigErrorCode> {}

/** One stdio MCP server as ACP's `session/new` takes it. */
export interface McpStdioServer {
  /** The name the agent knows it by (its tools become `mcp__NAME__TOOL` in Claude Code). */
  readonly name: string;
  /** The program (absolute, or a name resolved on PATH by the caller). */
  readonly command: string;
  /** Its arguments. */
  readonly args: string[];
  /** Its environment. */
  readonly env: { name: string; value: string }[];
}

const Name = z.lazy(() =>
  z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "a server name is 1-64 of A-Z a-z 0-9 _ -")
);
const EnvName = z.lazy(() =>
  z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, "not a variable name")
);
const Stdio = z.lazy(() =>
  z.object({
    type: z.literal("stdio").optional(),
    command: z.string().min(1).max(4096).refine((c) => !c.includes("\0"), "NUL in command"),
    args: z.array(z.string().max(65536)).max(256).default([]),
    env: z.record(EnvName, z.string().max(65536)).default({}),
  }).strict()
);
const Remote = z.lazy(() =>
  z.object({ type: z.enum(["http", "sse"]), url: z.string() }).passthrough()
);

/** The zod schema of the config file. */
export const McpConfigSchema = z.lazy(() =>
  z.object({
    mcpServers: z.record(Name, z.union([Stdio, Remote])),
  }).passthrough()
);

/**
 * Parses the config's text into ACP server entries (in the file's order).
 *
 * @example
 * ```ts
 * import { deepEqual, throws } from "node:assert/strict";
 * import { parseMcpConfig } from "./mcp_config.ts";
 * deepEqual(parseMcpConfig('{"mcpServers": {"probe": {"command": "/usr/bin/probe", "env": {"A": "1"}}}}'),
 *   [{ name: "probe", command: "/usr/bin/probe", args: [], env: [{ name: "A", value: "1" }] }]);
 * throws(() => parseMcpConfig('{"mcpServers": {"web": {"type": "http", "url": "https://x"}}}'));
 * throws(() => parseMcpConfig('{"servers": {}}'));
 * ```
 */
export function parseMcpConfig(text: string, source = "the MCP config"): McpStdioServer[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new McpConfigError("mcp_config_invalid", `Cannot parse ${source}: ${error}`);
  }
  const r = McpConfigSchema.safeParse(json);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new McpConfigError(
      "mcp_config_invalid",
      `Cannot use ${source}: ${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"} ` +
        '(expected {"mcpServers": {"NAME": {"command": "...", "args": [...], "env": {...}}}})',
    );
  }
  return Object.entries(r.data.mcpServers).map(([name, s]) => {
    if ("url" in s) {
      throw new McpConfigError(
        "mcp_config_invalid",
        `Cannot use MCP server "${name}" of ${source}: ${s.type} servers are not passed through ` +
          "(only stdio servers, which run inside the agent's sandbox)",
      );
    }
    return {
      name,
      command: s.command,
      args: [...s.args],
      env: Object.entries(s.env).map(([k, v]) => ({ name: k, value: v })),
    };
  });
}

/**
 * Whether a tool call's title names a tool of one of the user's MCP servers
 * (`mcp__NAME__tool`, as Claude Code names them, or `NAME__tool`).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { mcpServerOfTool } from "./mcp_config.ts";
 * equal(mcpServerOfTool("mcp__probe__probe", ["probe"]), true);
 * equal(mcpServerOfTool("mcp__other__probe", ["probe"]), false);
 * equal(mcpServerOfTool("probe", ["probe"]), false);
 * ```
 */
export function mcpServerOfTool(
  title: string | null | undefined,
  servers: readonly string[] | undefined,
): boolean {
  if (typeof title !== "string" || servers === undefined) return false;
  return servers.some((n) => title.startsWith(`mcp__${n}__`) || title.startsWith(`${n}__`));
}

/**
 * Reads and parses the config file at `path`.
 *
 * @example
 * ```ts
 * import { throws } from "node:assert/strict";
 * import { loadMcpConfig } from "./mcp_config.ts";
 * throws(() => loadMcpConfig("/nonexistent/mcp.json"), /mcp.json/);
 * ```
 */
export function loadMcpConfig(path: string): McpStdioServer[] {
  let text: string;
  try {
    if (path.includes("\0")) throw new Error("NUL in path");
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new McpConfigError(
      "mcp_config_unreadable",
      `Cannot read the MCP config ${path}: ${error instanceof Error ? error.message : error}`,
    );
  }
  return parseMcpConfig(text, path);
}
