/**
 * vouch as an ACP *client*: what an agent asks of vouch over the protocol
 * (read and write files, run terminals, grant permissions) and what vouch
 * answers. Every file access and every permission is decided by the kernel
 * (`judgeToolAccess`, `judgePermission`) before anything happens; terminals
 * run through the process runner in the agent's sandbox with bounded output;
 * every request and its answer is recorded for the transcript.
 *
 * @module
 */
import type * as acp from "@agentclientprotocol/sdk";
import { judgePermission } from "../../kernel/scope/judge_tool_access.ts";
import {
  type AcpClientEnv,
  type AcpClientStats,
  keepDecision,
  refuseRequest,
  treePath,
} from "./_acp_client_env.ts";
import { AcpTerminals } from "./_acp_terminals.ts";
import { ToolLines } from "./_acp_tool_lines.ts";
import { boundRead, fsDecision, readText, type ToolAnswer, writeTool } from "./_native_tools.ts";
import { boundText } from "./types.ts";
import { mcpServerOfTool } from "./mcp_config.ts";

/** Permission requests answered per round before every further one is refused. */
export const MAX_PERMISSION_REQUESTS = 200;

/** What the agent announced of one tool call (a permission request may name only its id). */
interface Announced {
  readonly kind?: string;
  readonly paths: string[];
}

/** One round's client: its environment, counters, and what it has seen of the tool calls. */
interface ClientState {
  readonly env: AcpClientEnv;
  readonly stats: AcpClientStats;
  /** Each tool call once in the progress, with worktree-relative paths. */
  readonly tools: ToolLines;
  readonly announced: Map<string, Announced>;
}

/** Remembers what a tool call or its update says of the call's kind and paths. */
function remember(
  s: ClientState,
  id: string,
  kind?: string,
  locations?: readonly { path: string }[],
): void {
  if (s.announced.size > 10_000) s.announced.clear();
  const before = s.announced.get(id) ?? { paths: [] };
  s.announced.set(id, {
    ...(kind !== undefined ? { kind } : before.kind !== undefined ? { kind: before.kind } : {}),
    paths: locations !== undefined
      ? locations.map((l) => treePath(s.env.worktree, l.path))
      : before.paths,
  });
}

// A refusal is counted and shown; a file that is not there is only an answer.
function fail(s: ClientState, what: string, path: string, a: ToolAnswer): never {
  if (a.refused) return refuseRequest(s.env, s.stats, what, a.content);
  s.env.record({ failed: what, detail: boundText(a.content, 500) });
  if (a.notFound === true) throw s.env.requestError.resourceNotFound(path);
  throw s.env.requestError.internalError(undefined, boundText(a.content, 500));
}

/** The kind a permission request is judged as (`mcp` for a user's MCP tool), and its paths. */
function permissionSubject(
  s: ClientState,
  call: acp.RequestPermissionRequest["toolCall"],
): { kind: string; paths: string[] } {
  const known = s.announced.get(call.toolCallId);
  const asked = call.kind ?? known?.kind ?? "other";
  const kind = asked === "other" && mcpServerOfTool(call.title, s.env.mcpServers) ? "mcp" : asked;
  const paths = (call.locations ?? null) !== null
    ? call.locations!.map((l) => treePath(s.env.worktree, l.path))
    : known?.paths ?? [];
  return { kind, paths };
}

/** The kernel's answer, or a human's where the policy asks for one (none to ask: refused). */
async function permissionAnswer(
  env: AcpClientEnv,
  judged: { readonly decision: string; readonly detail: string },
  kind: string,
  title: string,
  paths: string[],
): Promise<{ allow: boolean; by: string }> {
  if (judged.decision !== "ask") return { allow: judged.decision === "allow", by: "kernel" };
  if (env.askHuman === undefined) return { allow: false, by: "kernel (no human to ask)" };
  const allow = await env.askHuman({ kind, title, paths, detail: judged.detail })
    .catch(() => false);
  return { allow, by: "human" };
}

/** `session/request_permission`: judged by the kernel, recorded, kept, and shown when refused. */
async function requestPermission(
  s: ClientState,
  params: acp.RequestPermissionRequest,
): Promise<acp.RequestPermissionResponse> {
  const { env, stats } = s;
  stats.permissionRequests++;
  const { kind, paths } = permissionSubject(s, params.toolCall);
  const judged = stats.permissionRequests > MAX_PERMISSION_REQUESTS
    ? { decision: "deny", reason: "too_many_requests", detail: "too many permission requests" }
    : judgePermission(kind, paths, env.rules);
  const title = boundText(params.toolCall.title ?? "", 200);
  const { allow, by } = await permissionAnswer(env, judged, kind, title, paths);
  const wanted = allow ? ["allow_once", "allow_always"] : ["reject_once", "reject_always"];
  const option = wanted.map((k) => params.options.find((o) => o.kind === k)).find((o) => o);
  const answer = allow ? "allow" : "deny";
  env.record({ permission: { kind, title, paths }, answer, reason: judged.reason, by });
  keepDecision(stats, {
    effect: "permission",
    kind,
    paths,
    answer,
    reason: allow ? "allowed" : judged.reason,
    by,
  });
  s.tools.permission(params.toolCall, !allow);
  if (!allow) {
    stats.refusals.push(`permission ${kind}: ${judged.detail}`);
    env.emit({ kind: "tool", name: `permission:${kind}`, isError: true, refused: judged.detail });
  }
  return {
    outcome: option !== undefined
      ? { outcome: "selected", optionId: option.optionId }
      : { outcome: "cancelled" },
  };
}

/** A `usage_update`: kept as the latest usage, and shown (a cost only in US dollars). */
function noteUsage(
  s: ClientState,
  u: Extract<acp.SessionUpdate, { sessionUpdate: "usage_update" }>,
): void {
  const used = Number.isFinite(u.used) && u.used >= 0 ? u.used : 0;
  const size = Number.isFinite(u.size) && u.size >= 0 ? u.size : 0;
  const cost = u.cost ?? null;
  const usd = cost !== null && cost.currency.toUpperCase() === "USD" &&
      Number.isFinite(cost.amount) && cost.amount >= 0
    ? cost.amount
    : undefined;
  s.stats.usage = { used, size, ...(usd !== undefined ? { costUsd: usd } : {}) };
  s.env.emit({
    kind: "usage",
    usage: { inputTokens: used, ...(usd !== undefined ? { costUsd: usd } : {}) },
  });
}

/** `session/update`: the agent's text, its tool calls, and its usage; every update recorded. */
function sessionUpdate(s: ClientState, params: acp.SessionNotification): Promise<void> {
  const u = params.update;
  switch (u.sessionUpdate) {
    case "agent_message_chunk":
      if (u.content.type === "text" && s.stats.agentText.length < 64 * 1024) {
        s.stats.agentText += u.content.text;
      }
      break;
    case "tool_call":
      remember(s, u.toolCallId, u.kind ?? undefined, u.locations ?? undefined);
      s.tools.call(u);
      break;
    case "tool_call_update":
      remember(s, u.toolCallId, u.kind ?? undefined, u.locations ?? undefined);
      s.tools.update(u);
      break;
    case "usage_update":
      noteUsage(s, u);
      break;
    default:
      break;
  }
  s.env.record({ update: u.sessionUpdate });
  return Promise.resolve();
}

/** `fs/read_text_file`: judged and read on the agent's side, then cut to `line`/`limit`. */
async function readTextFile(
  s: ClientState,
  params: acp.ReadTextFileRequest,
): Promise<acp.ReadTextFileResponse> {
  const rel = treePath(s.env.worktree, params.path);
  const read = await readText(rel, s.env);
  const failed = "content" in read ? read : null;
  s.env.record({ read: rel, ok: failed === null });
  keepDecision(s.stats, fsDecision("read", rel, failed?.content ?? "", failed !== null));
  if (failed !== null) return fail(s, "fs/read_text_file", rel, failed);
  let content = (read as { text: string }).text;
  const line = params.line ?? null;
  const limit = params.limit ?? null;
  if (line !== null || limit !== null) {
    const from = Math.max(0, (line ?? 1) - 1);
    content = content.split("\n").slice(from, limit !== null ? from + limit : undefined)
      .join("\n");
  }
  return { content: boundRead(content) };
}

/** `fs/write_text_file`: judged and written on the agent's side. */
async function writeTextFile(
  s: ClientState,
  params: acp.WriteTextFileRequest,
): Promise<acp.WriteTextFileResponse> {
  const rel = treePath(s.env.worktree, params.path);
  const answer = await writeTool(rel, params.content, s.env);
  s.env.record({ write: rel, ok: !answer.isError });
  keepDecision(s.stats, fsDecision("write", rel, answer.content, answer.isError));
  if (answer.isError) return fail(s, "fs/write_text_file", rel, answer);
  return {};
}

/** Builds the client half of the connection. */
export function acpClient(env: AcpClientEnv, stats: AcpClientStats): acp.Client {
  const s: ClientState = {
    env,
    stats,
    tools: new ToolLines(env.worktree, (event) => env.emit(event)),
    announced: new Map(),
  };
  stats.endTurn = () => s.tools.flush();
  const terminals = new AcpTerminals(env, stats);
  return {
    requestPermission: (params) => requestPermission(s, params),
    sessionUpdate: (params) => sessionUpdate(s, params),
    readTextFile: (params) => readTextFile(s, params),
    writeTextFile: (params) => writeTextFile(s, params),
    createTerminal: (params) => terminals.create(params),
    terminalOutput: (params) => terminals.output(params),
    waitForTerminalExit: (params) => terminals.waitForExit(params),
    killTerminal: (params) => terminals.kill(params),
    releaseTerminal: (params) => terminals.release(params),
  };
}
