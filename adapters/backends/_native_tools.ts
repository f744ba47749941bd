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
import { lstat, mkdir, readdir, readFile, realpath, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { z } from "zod";
import {
  type CompiledToolAccessRules,
  judgeToolAccess,
  type ToolAccess,
} from "../../kernel/scope/judge_tool_access.ts";
import { runProcess } from "../process/run.ts";
import type { SandboxProfile } from "../sandbox/profile.ts";
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
  tool("run_command", "Run a shell command at the repository root (sandboxed, 120 s limit).", {
    command: { type: "string" },
  }, ["command"]),
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
}

/** The answer to one call, for the model; `refused` marks a call the kernel denied. */
export interface ToolAnswer {
  readonly content: string;
  readonly isError: boolean;
  readonly refused: boolean;
  readonly command?: string;
  readonly wrote?: string;
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
  } catch {
    return answer(`error: the arguments of ${name} are not JSON`, true);
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

/**
 * The kernel's verdict on `raw`, then a real path that is really inside the
 * tree (links resolved); a refusal comes back as the model's answer.
 */
export async function resolveInside(
  raw: string,
  access: ToolAccess,
  env: Pick<NativeToolEnv, "worktree" | "rules">,
): Promise<{ path: string; abs: string } | ToolAnswer> {
  const verdict = judgeToolAccess(raw, access, env.rules);
  if (!verdict.ok) return answer(`refused (${verdict.code}): ${verdict.detail}`, true, true);
  const root = await realpath(env.worktree);
  let probe = verdict.path === "" ? root : join(root, verdict.path);
  // The deepest existing ancestor must resolve inside the tree (no link out).
  for (;;) {
    try {
      const real = await realpath(probe);
      if (real !== root && !real.startsWith(root + "/")) {
        return answer(`refused (path_rejected): ${raw} leads outside the worktree`, true, true);
      }
      break;
    } catch {
      const up = dirname(probe);
      if (up === probe) break;
      probe = up;
    }
  }
  return { path: verdict.path, abs: verdict.path === "" ? root : join(root, verdict.path) };
}

/** Reads a tree file for an agent (judged, bounded). */
export async function readTool(
  raw: string,
  env: Pick<NativeToolEnv, "worktree" | "rules">,
): Promise<ToolAnswer> {
  const where = await resolveInside(raw, "read", env);
  if ("content" in where) return where;
  const text = new TextDecoder().decode(await readFile(where.abs));
  return text.length > MAX_READ_CHARS
    ? answer(text.slice(0, MAX_READ_CHARS) + `\n[truncated at ${MAX_READ_CHARS} characters]`)
    : answer(text);
}

async function listTool(raw: string, env: NativeToolEnv): Promise<ToolAnswer> {
  const where = await resolveInside(raw, "list", env);
  if ("content" in where) return where;
  const entries = (await readdir(where.abs, { withFileTypes: true }))
    .filter((e) => !(where.path === "" && e.name === ".git"))
    .map((e) => e.isDirectory() ? `${e.name}/` : e.name)
    .sort();
  const shown = entries.slice(0, MAX_LIST_ENTRIES).join("\n");
  return answer(
    entries.length > MAX_LIST_ENTRIES ? `${shown}\n[${entries.length} entries]` : shown,
  );
}

/** Writes a tree file for an agent (judged, never through a link). */
export async function writeTool(
  raw: string,
  content: string,
  env: Pick<NativeToolEnv, "worktree" | "rules" | "emit">,
): Promise<ToolAnswer> {
  const where = await resolveInside(raw, "write", env);
  if ("content" in where) return where;
  try {
    if ((await lstat(where.abs)).isSymbolicLink()) {
      return answer(`refused (path_rejected): ${where.path} is a symbolic link`, true, true);
    }
  } catch { /* a new file */ }
  await mkdir(dirname(where.abs), { recursive: true });
  // mkdir may not create through a link out: the parent must still resolve inside.
  const again = await resolveInside(where.path, "write", env);
  if ("content" in again) return again;
  await writeFile(where.abs, content);
  env.emit({ kind: "file_change", path: where.path, change: "write", status: "completed" });
  return { ...answer(`wrote ${content.length} characters to ${where.path}`), wrote: where.path };
}

async function commandTool(command: string, env: NativeToolEnv): Promise<ToolAnswer> {
  const result = await runProcess({
    argv: ["/bin/sh", "-c", command],
    cwd: env.worktree,
    sandbox: env.sandbox,
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
  return { ...answer(`${head}\n${out}`, status !== "completed"), command };
}

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
