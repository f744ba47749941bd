/**
 * The `command` backend: any executable. It gets the worker input contract as
 * JSON on stdin and in the file named by `VOUCH_TASK_FILE`, runs with the
 * worktree as cwd, and may print its claims as its last JSON line (validated
 * with zod; tolerated when absent).
 *
 * @module
 */
import { capabilitiesOf } from "./types.ts";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { cancelledBeforeStart, failedRun, failure, guardRun, unrunnable } from "./result.ts";
import {
  processStatus,
  runAgentProcess,
  runClaims,
  safeEmit,
  type SubprocessConfig,
} from "./subprocess.ts";
import { maskSecrets } from "./transcript.ts";
import type {
  AgentBackend,
  AgentTask,
  BackendContext,
  BackendFailure,
  BackendResult,
} from "./types.ts";
import {
  claimsSayDone,
  type WorkerClaims,
  WorkerClaimsSchema,
  workerInputFor,
} from "./worker_input.ts";
import type { StreamLine } from "./line_splitter.ts";
import { parseJsonText } from "./json_line.ts";

/** Name of the environment variable holding the task file path. */
export const TASK_FILE_ENV = "VOUCH_TASK_FILE";

/** Configuration of the `command` backend. */
export interface CommandBackendConfig extends SubprocessConfig {
  /** Program and arguments (no shell). */
  readonly argv: readonly string[];
  /** Backend id to report (default `command`). */
  readonly id?: string;
}

/** How the last JSON line of a command's stdout was read. */
export type ClaimsReading =
  | { readonly kind: "none" }
  | { readonly kind: "claims"; readonly claims: WorkerClaims }
  | { readonly kind: "invalid"; readonly detail: string };

/**
 * Reads a worker's claims from its last JSON line (the last stdout line that
 * starts with `{`; later plain-text lines are ignored). No such line means
 * "no claims"; a line that does not parse, or does not match the claims
 * schema, is `invalid`.
 *
 * @example
 * ```ts
 * import { readClaims } from "./command_backend.ts";
 * const r = readClaims([{ number: 1, text: '{"summary":"ok","done":true}', tooLong: false, unterminated: false }]);
 * if (r.kind !== "claims" || r.claims.done !== true) throw new Error();
 * ```
 */
export function readClaims(lines: readonly StreamLine[]): ClaimsReading {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    const text = line.text.trim();
    if (text === "") continue;
    if (!text.startsWith("{")) continue;
    if (line.tooLong) return { kind: "invalid", detail: "claims line exceeds the line bound" };
    const json = parseJsonText(text);
    if (!json.ok) {
      return {
        kind: "invalid",
        detail: line.unterminated ? "truncated JSON line" : "malformed JSON line",
      };
    }
    const parsed = WorkerClaimsSchema.safeParse(json.value);
    if (!parsed.success) {
      return {
        kind: "invalid",
        detail: parsed.error.issues.slice(0, 3).map((x) => `${x.path.join(".")}: ${x.message}`)
          .join("; "),
      };
    }
    return { kind: "claims", claims: parsed.data };
  }
  return { kind: "none" };
}

async function taskFileDir(task: AgentTask): Promise<{ dir: string; temporary: boolean }> {
  // Preferably in the worktree's own git admin dir (`<repo>/.git/worktrees/<name>/`): outside
  // the checkout (never part of the diff), visible read-only inside the bwrap sandbox (which
  // re-binds it read-only), and removed together with the worktree. The `.git` file is read
  // before the worker runs, so it is still vouch's.
  try {
    const dotGit = await readFile(join(task.worktree, ".git"), "utf8");
    const m = /^gitdir: (.+)$/m.exec(dotGit);
    if (m && m[1]!.startsWith("/")) {
      const gitDir = m[1]!.trim();
      const info = await stat(gitDir);
      if (info.isDirectory() && /\/worktrees\/[^/]+$/.test(gitDir)) {
        return { dir: gitDir, temporary: false };
      }
    }
  } catch {
    // not a linked worktree: fall through
  }
  // Next to owner.json in a vouch worktree container, outside the checkout.
  const container = dirname(task.worktree);
  const marker = await stat(join(container, "owner.json")).then(() => true, () => false);
  if (marker) return { dir: container, temporary: false };
  return { dir: await mkdtemp(join(tmpdir(), "vouch-task-")), temporary: true };
}

async function runCommand(
  config: CommandBackendConfig,
  task: AgentTask,
  ctx: BackendContext,
): Promise<BackendResult> {
  const id = config.id ?? "command";
  const mask = config.mask ?? maskSecrets;
  if (config.argv.length === 0) {
    return failedRun(id, "error", failure("config", "Cannot run command backend: empty argv"));
  }
  const cancelled = cancelledBeforeStart(id, ctx);
  if (cancelled !== null) return cancelled;
  const input = new TextEncoder().encode(JSON.stringify(workerInputFor(task)) + "\n");
  const where = await taskFileDir(task);
  const file = join(where.dir, `vouch-task-${task.attempt}.json`);
  await writeFile(file, input, { mode: 0o644 });
  let run;
  try {
    run = await runAgentProcess(id, config.argv, task, ctx, config, input, {
      [TASK_FILE_ENV]: file,
    });
  } catch (error) {
    return unrunnable(id, error);
  } finally {
    if (where.temporary) await rm(where.dir, { recursive: true, force: true }).catch(() => {});
    else await rm(file).catch(() => {});
  }
  const p = run.process;
  const reading = readClaims(run.lines);
  const claims = reading.kind === "claims" ? reading.claims : null;
  const tailText = (p.stdout.truncated ? p.stdout.tail : p.stdout.head).trim().split("\n").slice(-5)
    .join("\n");
  const common = {
    ...runClaims(id, run, mask, {
      summary: claims?.summary ?? tailText,
      commands: claims?.commands_run ?? [],
      risks: claims?.risks ?? [],
    }),
    // A claims line that does not parse claims nothing (it is not "no claims, exit 0").
    selfClaimedDone: claims !== null
      ? claimsSayDone(claims)
      : reading.kind === "none" && p.exitCode === 0,
    protocolIssues: reading.kind === "invalid" ? 1 : 0,
  };
  if (reading.kind === "invalid") {
    safeEmit(ctx, {
      kind: "protocol",
      code: "schema",
      line: run.lines.length,
      detail: `claims line rejected: ${reading.detail}`,
    });
  }
  if (claims?.summary) safeEmit(ctx, { kind: "message", text: common.summary });
  const pre = processStatus(id, p);
  if (pre !== null) return { ...common, selfClaimedDone: false, ...pre };
  if (run.outputOverflow) {
    return {
      ...common,
      status: "error",
      failure: failure("protocol", `${id} output exceeded ${task.maxOutputMb} MiB`),
    };
  }
  if (p.exitCode !== 0) {
    return {
      ...common,
      status: "error",
      failure: failure("execution", `${id} exited ${p.exitCode}`),
    };
  }
  return { ...common, status: "ok" };
}

/**
 * Creates a `command` backend for an executable.
 *
 * @example
 * ```ts
 * import { commandBackend } from "./command_backend.ts";
 * const b = commandBackend({ argv: ["./fix.sh"] });
 * if (b.id !== "command") throw new Error();
 * ```
 */
export function commandBackend(config: CommandBackendConfig): AgentBackend {
  return {
    id: config.id ?? "command",
    capabilities: capabilitiesOf("editsWorktree", "subprocess"),
    // Found before the baseline spends any time: the program exists and may be executed.
    preflight: () => preflightProgram(config.argv[0] ?? ""),
    run: (task, ctx) => guardRun(config.id ?? "command", () => runCommand(config, task, ctx)),
  };
}

/**
 * Whether the `command:` program can start: an executable regular file (it is
 * not run: a `--version` means nothing to an arbitrary program).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { preflightProgram } from "./command_backend.ts";
 * equal((await preflightProgram("/nonexistent/agent"))?.message, "/nonexistent/agent: no such file");
 * equal(await preflightProgram("/bin/sh"), null);
 * ```
 */
export async function preflightProgram(program: string): Promise<BackendFailure | null> {
  const info = await stat(program).catch(() => null);
  if (info === null) return failure("config", `${program}: no such file`);
  if (!info.isFile()) return failure("config", `${program}: not a regular file`);
  // The mode bits, not access(X_OK): Deno's node:fs access asks for the uid, which the
  // CLI's flags refuse.
  return (info.mode & 0o111) !== 0
    ? null
    : failure("config", `${program}: not executable (chmod +x ${program})`);
}
