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
import { isAbsolute, relative } from "node:path";
import {
  type CompiledToolAccessRules,
  judgePermission,
} from "../../kernel/scope/judge_tool_access.ts";
import { runProcess } from "../process/run.ts";
import { toolCommandProfile } from "../sandbox/agent_profile.ts";
import type { SandboxProfile } from "../sandbox/profile.ts";
import type { FileService } from "./_file_service.ts";
import {
  exitRecord,
  TailBytes,
  terminalArgv,
  type TerminalExit,
  terminalLine,
  terminalScript,
} from "./_terminal.ts";
import { ToolLines } from "./_acp_tool_lines.ts";
import { boundRead, fsDecision, readText, type ToolAnswer, writeTool } from "./_native_tools.ts";
import type { AgentDecision, BackendEvent } from "./types.ts";
import { boundText, MAX_DECISIONS } from "./types.ts";
import { mcpServerOfTool } from "./mcp_config.ts";

/** Permission requests answered per round before every further one is refused. */
export const MAX_PERMISSION_REQUESTS = 200;
/** Terminals one round may hold at once. */
export const MAX_TERMINALS = 16;
const DEFAULT_TERMINAL_BYTES = 64 * 1024;

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

/** What a human is asked about an agent's permission request. */
export interface PermissionQuestion {
  readonly kind: string;
  readonly title: string;
  readonly paths: readonly string[];
  /** Why the policy asks. */
  readonly detail: string;
}

interface Terminal {
  readonly output: TailBytes;
  readonly abort: AbortController;
  done: Promise<TerminalExit>;
  exit: TerminalExit | null;
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

/** The tree-relative form of a path the agent names (absolute inside the worktree, or relative). */
function treePath(worktree: string, path: string): string {
  if (!isAbsolute(path)) return path;
  const rel = relative(worktree, path);
  // Outside the tree: keep a form confinePath rejects.
  return rel === "" ? "." : rel;
}

/** Builds the client half of the connection. */
export function acpClient(env: AcpClientEnv, stats: AcpClientStats): acp.Client {
  const terminals = new Map<string, Terminal>();
  // What the agent announced of each tool call (a permission request may name only its id).
  const announced = new Map<string, { kind?: string; paths: string[] }>();
  let nextTerminal = 0;
  // Each tool call once in the progress, with worktree-relative paths.
  const tools = new ToolLines(env.worktree, (event) => env.emit(event));
  stats.endTurn = () => tools.flush();
  const remember = (id: string, kind?: string, locations?: readonly { path: string }[]) => {
    if (announced.size > 10_000) announced.clear();
    const before = announced.get(id) ?? { paths: [] };
    announced.set(id, {
      ...(kind !== undefined ? { kind } : before.kind !== undefined ? { kind: before.kind } : {}),
      paths: locations !== undefined
        ? locations.map((l) => treePath(env.worktree, l.path))
        : before.paths,
    });
  };
  const decide = (d: AgentDecision) => {
    if (stats.decisions.length < MAX_DECISIONS) stats.decisions.push(d);
  };
  const refuse = (what: string, detail: string): never => {
    stats.refusals.push(`${what}: ${detail}`);
    const why = detail.replace(/^refused \([a-z_]+\): /, "");
    env.emit({ kind: "tool", name: what, isError: true, refused: why });
    env.record({ refused: what, detail });
    throw env.requestError.invalidParams(undefined, `refused by vouch: ${detail}`);
  };
  // A refusal is counted and shown; a file that is not there is only an answer.
  const fail = (what: string, path: string, a: ToolAnswer): never => {
    if (a.refused) return refuse(what, a.content);
    env.record({ failed: what, detail: boundText(a.content, 500) });
    if (a.notFound === true) throw env.requestError.resourceNotFound(path);
    throw env.requestError.internalError(undefined, boundText(a.content, 500));
  };
  const terminal = (id: string): Terminal => {
    const t = terminals.get(id);
    if (t === undefined) throw env.requestError.invalidParams(undefined, `no terminal ${id}`);
    return t;
  };
  return {
    async requestPermission(params) {
      stats.permissionRequests++;
      const known = announced.get(params.toolCall.toolCallId);
      const asked = params.toolCall.kind ?? known?.kind ?? "other";
      const kind = asked === "other" && mcpServerOfTool(params.toolCall.title, env.mcpServers)
        ? "mcp"
        : asked;
      const paths = (params.toolCall.locations ?? null) !== null
        ? params.toolCall.locations!.map((l) => treePath(env.worktree, l.path))
        : known?.paths ?? [];
      const judged = stats.permissionRequests > MAX_PERMISSION_REQUESTS
        ? { decision: "deny", reason: "too_many_requests", detail: "too many permission requests" }
        : judgePermission(kind, paths, env.rules);
      const title = boundText(params.toolCall.title ?? "", 200);
      let allow = judged.decision === "allow";
      let answeredBy = "kernel";
      if (judged.decision === "ask") {
        answeredBy = env.askHuman !== undefined ? "human" : "kernel (no human to ask)";
        allow = env.askHuman !== undefined &&
          await env.askHuman({ kind, title, paths, detail: judged.detail }).catch(() => false);
      }
      const wanted = allow ? ["allow_once", "allow_always"] : ["reject_once", "reject_always"];
      const option = wanted.map((k) => params.options.find((o) => o.kind === k)).find((o) => o);
      env.record({
        permission: { kind, title, paths },
        answer: allow ? "allow" : "deny",
        reason: judged.reason,
        by: answeredBy,
      });
      decide({
        effect: "permission",
        kind,
        paths,
        answer: allow ? "allow" : "deny",
        reason: allow ? "allowed" : judged.reason,
        by: answeredBy,
      });
      tools.permission(params.toolCall, !allow);
      if (!allow) {
        stats.refusals.push(`permission ${kind}: ${judged.detail}`);
        env.emit({
          kind: "tool",
          name: `permission:${kind}`,
          isError: true,
          refused: judged.detail,
        });
      }
      return {
        outcome: option !== undefined
          ? { outcome: "selected", optionId: option.optionId }
          : { outcome: "cancelled" },
      };
    },

    sessionUpdate(params) {
      const u = params.update;
      switch (u.sessionUpdate) {
        case "agent_message_chunk":
          if (u.content.type === "text" && stats.agentText.length < 64 * 1024) {
            stats.agentText += u.content.text;
          }
          break;
        case "tool_call":
          remember(u.toolCallId, u.kind ?? undefined, u.locations ?? undefined);
          tools.call(u);
          break;
        case "tool_call_update":
          remember(u.toolCallId, u.kind ?? undefined, u.locations ?? undefined);
          tools.update(u);
          break;
        case "usage_update": {
          const used = Number.isFinite(u.used) && u.used >= 0 ? u.used : 0;
          const size = Number.isFinite(u.size) && u.size >= 0 ? u.size : 0;
          const cost = u.cost ?? null;
          const usd = cost !== null && cost.currency.toUpperCase() === "USD" &&
              Number.isFinite(cost.amount) && cost.amount >= 0
            ? cost.amount
            : undefined;
          stats.usage = { used, size, ...(usd !== undefined ? { costUsd: usd } : {}) };
          env.emit({
            kind: "usage",
            usage: { inputTokens: used, ...(usd !== undefined ? { costUsd: usd } : {}) },
          });
          break;
        }
        default:
          break;
      }
      env.record({ update: u.sessionUpdate });
      return Promise.resolve();
    },

    async readTextFile(params) {
      const rel = treePath(env.worktree, params.path);
      const read = await readText(rel, env);
      const failed = "content" in read ? read : null;
      env.record({ read: rel, ok: failed === null });
      decide(fsDecision("read", rel, failed?.content ?? "", failed !== null));
      if (failed !== null) return fail("fs/read_text_file", rel, failed);
      let content = (read as { text: string }).text;
      const line = params.line ?? null;
      const limit = params.limit ?? null;
      if (line !== null || limit !== null) {
        const from = Math.max(0, (line ?? 1) - 1);
        content = content.split("\n").slice(from, limit !== null ? from + limit : undefined)
          .join("\n");
      }
      return { content: boundRead(content) };
    },

    async writeTextFile(params) {
      const rel = treePath(env.worktree, params.path);
      const answer = await writeTool(rel, params.content, env);
      env.record({ write: rel, ok: !answer.isError });
      decide(fsDecision("write", rel, answer.content, answer.isError));
      if (answer.isError) return fail("fs/write_text_file", rel, answer);
      return {};
    },

    createTerminal(params) {
      if (terminals.size >= MAX_TERMINALS) {
        return refuse("terminal/create", `at most ${MAX_TERMINALS} terminals at once`);
      }
      const cwd = (params.cwd ?? null) !== null ? treePath(env.worktree, params.cwd!) : ".";
      if (cwd.startsWith("..") || isAbsolute(cwd)) {
        return refuse("terminal/create", `cwd ${params.cwd} is outside the worktree`);
      }
      // As Zed runs it: the command line through the shell, arguments appended quoted.
      const command = terminalLine(params.command, params.args ?? []);
      const script = terminalScript(command, params.env ?? []);
      if (typeof script !== "string") return refuse("terminal/create", script.refused);
      const id = `term-${++nextTerminal}`;
      const abort = new AbortController();
      const limit = Math.min(params.outputByteLimit ?? DEFAULT_TERMINAL_BYTES, 1024 * 1024);
      stats.commands.push(command);
      const output = new TailBytes(limit);
      const t: Terminal = {
        output,
        abort,
        exit: null,
        done: Promise.resolve({ exitCode: null, signal: null }),
      };
      t.done = runProcess({
        argv: terminalArgv(script, env.runtime ?? null),
        cwd: cwd === "." ? env.worktree : `${env.worktree}/${cwd}`,
        sandbox: toolCommandProfile(env.sandbox),
        timeoutMs: env.terminalTimeoutMs,
        signal: AbortSignal.any([env.signal, abort.signal]),
        onStdout: (chunk) => output.push(chunk),
        maxCaptureBytes: 16 * 1024,
      }).then((r) => {
        const recorded = exitRecord(r.stderr.tail !== "" ? r.stderr.tail : r.stderr.head);
        const exit: TerminalExit = r.spawnError !== null
          ? { exitCode: 127, signal: null }
          : r.timedOut || r.cancelled
          ? { exitCode: null, signal: r.signal ?? "SIGTERM" }
          : recorded ?? (r.signal !== null
            ? { exitCode: null, signal: r.signal }
            : { exitCode: r.exitCode, signal: null });
        if (r.spawnError !== null) output.push(new TextEncoder().encode(r.spawnError.message));
        t.exit = exit;
        env.emit({
          kind: "command",
          command,
          exitCode: exit.exitCode ?? r.exitCode,
          status: "completed",
        });
        return exit;
      });
      terminals.set(id, t);
      env.record({ terminal: id, command: boundText(command, 500) });
      decide({
        effect: "terminal",
        kind: boundText(command, 200),
        paths: [],
        answer: "allow",
        reason: "allowed",
        by: "kernel",
      });
      return Promise.resolve({ terminalId: id });
    },

    terminalOutput(params) {
      const t = terminal(params.terminalId);
      return Promise.resolve({
        output: t.output.text(),
        truncated: t.output.truncated,
        ...(t.exit !== null ? { exitStatus: t.exit } : {}),
      });
    },

    async waitForTerminalExit(params) {
      return await terminal(params.terminalId).done;
    },

    killTerminal(params) {
      terminal(params.terminalId).abort.abort();
      return Promise.resolve({});
    },

    releaseTerminal(params) {
      const t = terminals.get(params.terminalId);
      t?.abort.abort();
      terminals.delete(params.terminalId);
      return Promise.resolve({});
    },
  };
}
