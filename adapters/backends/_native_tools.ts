/**
 * The tools vouch's own coding loop offers a model: read a file, list files,
 * write a file, run a command. Every call is judged by the kernel
 * (`judgeToolAccess`: confinement, forbidden and protected paths, policy)
 * before anything happens; file access never follows a link out of the
 * worktree; commands run through the process runner in the agent's sandbox
 * with bounded output and a time limit. A refused or malformed call is an
 * answer to the model, never an exception.
 *
 * @module
 */
import { lstat, realpath } from "node:fs/promises";
import { dirname, join } from "node:path";
import { z } from "zod";
import {
  type CompiledToolAccessRules,
  judgeToolAccess,
  type ToolAccess,
} from "../../kernel/scope/judge_tool_access.ts";
import { runProcess } from "../process/run.ts";
import { toolCommandProfile } from "../sandbox/agent_profile.ts";
import type { SandboxProfile } from "../sandbox/profile.ts";
import { type FileRefusal, type FileService, MAX_FILE_BYTES } from "./_file_service.ts";
import type { AgentDecision, BackendEvent } from "./types.ts";
import { boundText } from "./types.ts";

/** The tool definitions sent with every request (OpenAI function-calling form). */
export const NATIVE_TOOLS = [
  tool("read_file", "Read a UTF-8 text file of the repository.", {
    path: { type: "string", description: "path relative to the repository root" },
  }, ["path"]),
  tool("list_files", "List the entries of a directory of the repository (dirs end with /).", {
    path: { type: "string", description: "directory relative to the root; '' for the root" },
  }, []),
  tool("write_file", "Create or replace a text file of the repository with the given content.", {
    path: { type: "string" },
    content: { type: "string" },
  }, ["path", "content"]),
  tool(
    "run_command",
    "Run a shell command at the repository root (sandboxed, no network, 120 s limit).",
    {
      command: { type: "string" },
    },
    ["command"],
  ),
] as const;

function tool(
  name: string,
  description: string,
  properties: Record<string, unknown>,
  required: string[],
) {
  return {
    type: "function" as const,
    function: {
      name,
      description,
      parameters: { type: "object", properties, required, additionalProperties: false },
    },
  };
}

const ARGS = {
  read_file: z.object({ path: z.string().max(4096) }).strict(),
  list_files: z.object({ path: z.string().max(4096).optional() }).strict(),
  write_file: z.object({ path: z.string().max(4096), content: z.string().max(2_000_000) })
    .strict(),
  run_command: z.object({ command: z.string().min(1).max(8192) }).strict(),
} as const;

/** Where the tools act. */
export interface NativeToolEnv {
  readonly worktree: string;
  readonly rules: CompiledToolAccessRules;
  readonly sandbox: SandboxProfile;
  readonly signal: AbortSignal;
  readonly emit: (event: BackendEvent) => void;
  /** Time limit of one command, ms. */
  readonly commandTimeoutMs: number;
  /** Performs every file operation on the agent's side of the wall (`_file_service.ts`). */
  readonly files: FileService;
}

/** The answer to one call, for the model; `refused` marks a call the kernel denied. */
export interface ToolAnswer {
  readonly content: string;
  readonly isError: boolean;
  readonly refused: boolean;
  readonly command?: string;
  readonly wrote?: string;
  /** The file (or a directory on its path) does not exist. */
  readonly notFound?: boolean;
  /** The arguments were not JSON (the model is asked to call again). */
  readonly badJson?: boolean;
}

const MAX_READ_CHARS = 256 * 1024;
const MAX_LIST_ENTRIES = 1000;
const MAX_COMMAND_OUTPUT = 16 * 1024;

function answer(content: string, isError = false, refused = false): ToolAnswer {
  return { content, isError, refused };
}

/** Runs one tool call (never throws). */
export async function runNativeTool(
  name: string,
  rawArguments: string,
  env: NativeToolEnv,
): Promise<ToolAnswer> {
  if (!Object.hasOwn(ARGS, name)) {
    return answer(`error: unknown tool ${JSON.stringify(name.slice(0, 100))}`, true);
  }
  let json: unknown;
  try {
    json = JSON.parse(rawArguments === "" ? "{}" : rawArguments);
  } catch (error) {
    const why = error instanceof Error ? `: ${error.message.slice(0, 200)}` : "";
    return {
      ...answer(
        `error: the arguments of ${name} are not JSON${why}; nothing was done. ` +
          `Call ${name} again with its arguments as one JSON object.`,
        true,
      ),
      badJson: true,
    };
  }
  const tool = name as keyof typeof ARGS;
  const parsed = ARGS[tool].safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return answer(
      `error: bad arguments for ${name}: ${issue?.path.join(".") ?? ""} ${issue?.message ?? ""}`,
      true,
    );
  }
  try {
    switch (tool) {
      case "read_file":
        return await readTool((parsed.data as { path: string }).path, env);
      case "list_files":
        return await listTool((parsed.data as { path?: string }).path ?? "", env);
      case "write_file": {
        const d = parsed.data as { path: string; content: string };
        return await writeTool(d.path, d.content, env);
      }
      case "run_command":
        return await commandTool((parsed.data as { command: string }).command, env);
    }
  } catch (error) {
    return answer(`error: ${error instanceof Error ? error.message : String(error)}`, true);
  }
}

/** An error code of a failed `node:fs` call, if any. */
function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * The kernel's verdict on `raw`, then a real path that is really inside the
 * tree (links resolved). Fails closed: only a name that does not exist at all
 * (`ENOENT` from `realpath` and from `lstat`) walks up to its parent; any
 * other failure (`ENAMETOOLONG` from a link chain past PATH_MAX, `ELOOP`,
 * `EACCES`, a dangling link) refuses. A refusal comes back as the model's
 * answer. (The file tools no longer open what this resolves: they hand the
 * judged path to the file service, which walks by descriptor.)
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
 * import { equal } from "node:assert/strict";
 * import { compileToolAccessRules } from "../../kernel/scope/judge_tool_access.ts";
 * import { defaultPolicy } from "../../kernel/lifecycle/policy.ts";
 * import { resolveInside } from "./_native_tools.ts";
 * const wt = mkdtempSync(join(tmpdir(), "vouch-"));
 * symlinkSync("/nonexistent-vouch-target", `${wt}/dangling`);
 * const rules = compileToolAccessRules({ allow: [], protect: [], policy: defaultPolicy() });
 * const r = await resolveInside("dangling/x", "write", { worktree: wt, rules });
 * equal("refused" in r && r.refused, true);
 * rmSync(wt, { recursive: true, force: true });
 * ```
 */
export async function resolveInside(
  raw: string,
  access: ToolAccess,
  env: Pick<NativeToolEnv, "worktree" | "rules">,
): Promise<{ path: string; abs: string } | ToolAnswer> {
  const verdict = judgeToolAccess(raw, access, env.rules);
  if (!verdict.ok) return answer(`refused (${verdict.code}): ${verdict.detail}`, true, true);
  const refuse = (why: string) => answer(`refused (path_rejected): ${raw} ${why}`, true, true);
  let root: string;
  try {
    root = await realpath(env.worktree);
  } catch (error) {
    return refuse(`cannot be resolved (the worktree: ${errorCode(error) ?? "error"})`);
  }
  let probe = verdict.path === "" ? root : join(root, verdict.path);
  // The deepest existing ancestor must resolve inside the tree (no link out).
  for (;;) {
    let real: string;
    try {
      real = await realpath(probe);
    } catch (error) {
      const code = errorCode(error);
      if (code !== "ENOENT") return refuse(`cannot be resolved (${code ?? "error"})`);
      // ENOENT also comes from a dangling link on the way: only a name that is truly absent
      // walks up.
      try {
        await lstat(probe);
        return refuse("leads through a link to nothing");
      } catch (lstatError) {
        const c = errorCode(lstatError);
        if (c !== "ENOENT" && c !== "ENOTDIR") {
          return refuse(`cannot be resolved (${c ?? "error"})`);
        }
      }
      const up = dirname(probe);
      if (up === probe || probe === root) return refuse("cannot be resolved");
      probe = up;
      continue;
    }
    if (real !== root && !real.startsWith(root + "/")) {
      return refuse("leads outside the worktree");
    }
    break;
  }
  return { path: verdict.path, abs: verdict.path === "" ? root : join(root, verdict.path) };
}

/** The model's answer for a request the file service refused or could not do. */
function fileRefusal(path: string, r: FileRefusal): ToolAnswer {
  switch (r.code) {
    case "symlink":
    case "linked":
    case "not_dir":
    case "bad_request":
      return answer(`refused (path_rejected): ${r.message}`, true, true);
    case "not_regular":
      return answer(`refused (not_regular): ${r.message}`, true, true);
    case "too_large":
      return answer(`refused (too_large): ${r.message}`, true, true);
    case "not_found":
      return {
        ...answer(`error: ${path === "" ? "." : path} does not exist`, true),
        notFound: true,
      };
    default:
      return answer(`error: ${r.message}`, true);
  }
}

/** The kernel's verdict on `raw` (a tree-relative path) or the refusal for the model. */
function judged(
  raw: string,
  access: ToolAccess,
  rules: CompiledToolAccessRules,
): string | ToolAnswer {
  const verdict = judgeToolAccess(raw, access, rules);
  return verdict.ok
    ? verdict.path
    : answer(`refused (${verdict.code}): ${verdict.detail}`, true, true);
}

/** The text of a tree file for an agent: judged, regular files only, bounded before reading. */
export async function readText(
  raw: string,
  env: Pick<NativeToolEnv, "rules" | "files">,
): Promise<{ path: string; text: string } | ToolAnswer> {
  const path = judged(raw, "read", env.rules);
  if (typeof path !== "string") return path;
  const r = await env.files.read(path, MAX_FILE_BYTES);
  if (!r.ok) return fileRefusal(path, r);
  return { path, text: new TextDecoder().decode(r.data) };
}

/** Bounds a text for the model (`[truncated …]` past {@linkcode MAX_READ_CHARS}). */
export function boundRead(text: string): string {
  return text.length > MAX_READ_CHARS
    ? text.slice(0, MAX_READ_CHARS) + `\n[truncated at ${MAX_READ_CHARS} characters]`
    : text;
}

/** Reads a tree file for an agent (judged, bounded). */
export async function readTool(
  raw: string,
  env: Pick<NativeToolEnv, "rules" | "files">,
): Promise<ToolAnswer> {
  const r = await readText(raw, env);
  return "content" in r ? r : answer(boundRead(r.text));
}

async function listTool(raw: string, env: NativeToolEnv): Promise<ToolAnswer> {
  const path = judged(raw, "list", env.rules);
  if (typeof path !== "string") return path;
  const r = await env.files.list(path, 100_000);
  if (!r.ok) return fileRefusal(path, r);
  const entries = r.entries
    .filter(([name]) => !(path === "" && name === ".git"))
    .map(([name, dir]) => dir ? `${name}/` : name)
    .sort();
  const shown = entries.slice(0, MAX_LIST_ENTRIES).join("\n");
  return answer(
    entries.length > MAX_LIST_ENTRIES ? `${shown}\n[${entries.length} entries]` : shown,
  );
}

/** Writes a tree file for an agent (judged, never through a link, regular files only). */
export async function writeTool(
  raw: string,
  content: string,
  env: Pick<NativeToolEnv, "rules" | "emit" | "files">,
): Promise<ToolAnswer> {
  const path = judged(raw, "write", env.rules);
  if (typeof path !== "string") return path;
  const bytes = new TextEncoder().encode(content);
  if (bytes.length > MAX_FILE_BYTES) {
    return answer(
      `refused (too_large): ${bytes.length} bytes (limit ${MAX_FILE_BYTES})`,
      true,
      true,
    );
  }
  const r = await env.files.write(path, bytes);
  if (!r.ok) return fileRefusal(path, r);
  env.emit({ kind: "file_change", path, change: "write", status: "completed" });
  return { ...answer(`wrote ${content.length} characters to ${path}`), wrote: path };
}

async function commandTool(command: string, env: NativeToolEnv): Promise<ToolAnswer> {
  const result = await runProcess({
    argv: ["/bin/sh", "-c", command],
    cwd: env.worktree,
    // Commands get no network at all (the model's endpoint is vouch's business, not theirs).
    sandbox: toolCommandProfile(env.sandbox),
    timeoutMs: env.commandTimeoutMs,
    maxCaptureBytes: MAX_COMMAND_OUTPUT,
    signal: env.signal,
  });
  const text = (s: { head: string; tail: string; truncated: boolean }) =>
    s.truncated ? `${s.head}\n[...]\n${s.tail}` : s.head;
  const out = (text(result.stdout) + text(result.stderr)).slice(-MAX_COMMAND_OUTPUT);
  const status = result.spawnError !== null
    ? "failed"
    : result.timedOut
    ? "timed_out"
    : result.exitCode === 0
    ? "completed"
    : "failed";
  env.emit({ kind: "command", command, exitCode: result.exitCode, status });
  const head = result.spawnError !== null
    ? `could not start: ${result.spawnError.message}`
    : result.timedOut
    ? `timed out after ${Math.round(env.commandTimeoutMs / 1000)} s`
    : `exit code ${result.exitCode}`;
  const offline = env.sandbox.kind === "bwrap" && status !== "completed" && NETWORK_ERROR.test(out)
    ? `\n${NO_NETWORK_NOTE}`
    : "";
  return { ...answer(`${head}\n${out}${offline}`, status !== "completed"), command };
}

/** Words of a failed connection or name lookup in a command's output. */
const NETWORK_ERROR =
  /Connection refused|Network is unreachable|Could not resolve|Temporary failure in name resolution|Name or service not known|getaddrinfo|ENETUNREACH|ECONNREFUSED|EAI_AGAIN|\/dev\/tcp/i;

/** Told to the model when a sandboxed command failed on the network. */
export const NO_NETWORK_NOTE =
  "note: the network is unavailable to run_command (it runs in its own empty network " +
  "namespace: no host, no loopback service of the machine); work offline";

/** The decision behind a file access (the refusal code from `refused (<code>): …`). */
export function fsDecision(
  effect: string,
  path: string,
  answer: string,
  isError: boolean,
): AgentDecision {
  const code = /^refused \(([a-z_]+)\)/.exec(answer)?.[1];
  return {
    effect,
    kind: effect,
    paths: [boundText(path, 500)],
    answer: code !== undefined ? "deny" : "allow",
    reason: code ?? (isError ? "failed" : "allowed"),
    by: "kernel",
  };
}
