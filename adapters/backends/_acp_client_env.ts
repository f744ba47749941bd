/**
 * What the ACP client half of vouch works with: the backend's environment
 * (`AcpClientEnv`), the counters it reports back (`AcpClientStats`), and the
 * few steps every request handler shares: naming a path tree-relative,
 * keeping a decision, refusing a request.
 *
 * @module
 */
import type { PermissionQuestion } from "./_acp_config.ts";
import type * as acp from "@agentclientprotocol/sdk";
import { isAbsolute, relative } from "node:path";
import type { CompiledToolAccessRules } from "../../kernel/scope/judge_tool_access.ts";
import type { SandboxProfile } from "../sandbox/profile.ts";
import type { FileService } from "./_file_service.ts";
import type { AgentDecision, BackendEvent } from "./types.ts";
import { MAX_DECISIONS } from "./types.ts";

/** What the client needs from the backend. */
export interface AcpClientEnv {
  /** The SDK's `RequestError` (passed in: the SDK is loaded only when an ACP agent starts). */
  readonly requestError: typeof acp.RequestError;
  readonly worktree: string;
  readonly rules: CompiledToolAccessRules;
  readonly sandbox: SandboxProfile;
  readonly signal: AbortSignal;
  readonly emit: (event: BackendEvent) => void;
  /** One transcript line per request and answer. */
  readonly record: (entry: Record<string, unknown>) => void;
  readonly terminalTimeoutMs: number;
  /** Performs every `fs/*` request on the agent's side of the wall. */
  readonly files: FileService;
  /** The runtime of the terminal exit wrapper (absent: the shell's status as an exit code). */
  readonly runtime?: string | null;
  /** Asks a human about a request the policy sends to one; absent = refused (fail closed). */
  readonly askHuman?: (question: PermissionQuestion) => Promise<boolean>;
  /** Names of the user's MCP servers: a permission for one of their tools is judged as `mcp`. */
  readonly mcpServers?: readonly string[];
}

/** Counters the backend reports. */
export interface AcpClientStats {
  permissionRequests: number;
  decisions: AgentDecision[];
  refusals: string[];
  commands: string[];
  agentText: string;
  /** The session's latest `usage_update`: context tokens used, and cumulative cost. */
  usage?: { used: number; size: number; costUsd?: number };
  /** Set by the client: shows the tool calls of the turn not shown yet (call at the turn's end). */
  endTurn?: () => void;
}

/**
 * The tree-relative form of a path the agent names (absolute inside the
 * worktree, or relative).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { treePath } from "./_acp_client_env.ts";
 * equal(treePath("/w", "/w/src/a.ts"), "src/a.ts");
 * equal(treePath("/w", "/w"), ".");
 * equal(treePath("/w", "/etc/passwd"), "../etc/passwd");
 * equal(treePath("/w", "b.ts"), "b.ts");
 * ```
 */
export function treePath(worktree: string, path: string): string {
  if (!isAbsolute(path)) return path;
  const rel = relative(worktree, path);
  // Outside the tree: keep a form confinePath rejects.
  return rel === "" ? "." : rel;
}

/** Keeps one of vouch's answers for the result, up to {@linkcode MAX_DECISIONS}. */
export function keepDecision(stats: AcpClientStats, decision: AgentDecision): void {
  if (stats.decisions.length < MAX_DECISIONS) stats.decisions.push(decision);
}

/** Refuses a request: counted, shown, recorded, and thrown to the agent as invalid params. */
export function refuseRequest(
  env: AcpClientEnv,
  stats: AcpClientStats,
  what: string,
  detail: string,
): never {
  stats.refusals.push(`${what}: ${detail}`);
  const why = detail.replace(/^refused \([a-z_]+\): /, "");
  env.emit({ kind: "tool", name: what, isError: true, refused: why });
  env.record({ refused: what, detail });
  throw env.requestError.invalidParams(undefined, `refused by vouch: ${detail}`);
}
