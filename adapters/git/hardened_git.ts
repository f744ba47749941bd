import { runProcess } from "../process/run.ts";
import type { ProcessResult, ProcessSpec } from "../process/types.ts";

/** Config overrides on every git invocation: a repository's config can never run code. */
export const HARDENED_GIT_CONFIG: readonly string[] = [
  "-c",
  "core.fsmonitor=false",
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "core.sshCommand=false",
  "-c",
  "protocol.ext.allow=never",
  "-c",
  "core.pager=cat",
  "-c",
  "credential.helper=",
  // No background `git gc --auto` / maintenance: nothing git starts may outlive the call.
  "-c",
  "gc.auto=0",
  // vouch as root hands its trees to the sandbox's unprivileged uid (docs/sandbox.md): still its
  // own. (A tree a root-run check wrote was root's, and as trusted, before.)
  "-c",
  "safe.directory=*",
  "-c",
  "maintenance.auto=false",
];

/** Environment set on every git invocation (system and global config ignored). */
export const HARDENED_GIT_ENV: Readonly<Record<string, string>> = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_TERMINAL_PROMPT: "0",
  GIT_OPTIONAL_LOCKS: "0",
};

/** Options for {@linkcode gitCommand}. */
export interface GitCommandOptions {
  /** Extra environment (e.g. `GIT_INDEX_FILE`); merged over the hardened one, which wins. */
  readonly env?: Readonly<Record<string, string>>;
  /** The git executable (default `git`). */
  readonly git?: string;
}

/**
 * The argv and environment of a hardened git invocation:
 * `git -c core.fsmonitor=false -c core.hooksPath=/dev/null ... <args>` with
 * `GIT_CONFIG_NOSYSTEM=1` and `GIT_CONFIG_GLOBAL=/dev/null`.
 *
 * @example
 * ```ts
 * import { gitCommand } from "./hardened_git.ts";
 * const { argv, env } = gitCommand(["status", "--porcelain"]);
 * if (argv[0] !== "git" || !argv.includes("core.fsmonitor=false") || env.GIT_CONFIG_NOSYSTEM !== "1") {
 *   throw new Error();
 * }
 * ```
 */
export function gitCommand(
  args: readonly string[],
  opts: GitCommandOptions = {},
): { argv: string[]; env: Record<string, string> } {
  return {
    argv: [opts.git ?? "git", ...HARDENED_GIT_CONFIG, ...args],
    env: { ...(opts.env ?? {}), ...HARDENED_GIT_ENV },
  };
}

/** Options for {@linkcode runGit}: a process spec without argv/shell/env, plus git extras. */
export type RunGitOptions =
  & Omit<ProcessSpec, "argv" | "shell" | "env">
  & GitCommandOptions;

/**
 * Runs hardened git through {@linkcode runProcess} (cleared env, own process
 * group, bounded capture). Defaults: 60 s timeout, 16 MiB capture.
 *
 * @example
 * ```ts
 * import { runGit } from "./hardened_git.ts";
 * const r = await runGit(["--version"], { cwd: "/" });
 * if (r.exitCode !== 0 || !r.stdout.head.startsWith("git version")) throw new Error();
 * ```
 */
export function runGit(args: readonly string[], opts: RunGitOptions): Promise<ProcessResult> {
  const { env: _env, git: _git, ...rest } = opts;
  const { argv, env } = gitCommand(args, opts);
  return runProcess({
    timeoutMs: 60_000,
    maxCaptureBytes: 16 * 1024 * 1024,
    // vouch's own tool, hardened (no hooks, fsmonitor, pager, helpers or auto gc): it needs no
    // private HOME and leaves no daemon to sweep.
    ownTool: true,
    ...rest,
    argv,
    env,
  });
}
