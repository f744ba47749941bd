/**
 * Runs every subprocess backend (codex, claude, `command:`, those to come)
 * inside the agent sandbox, per task: its own network namespace whose only
 * way out is vouch's egress proxy (the model hosts of the run; everything
 * else refused and recorded), the filesystem is the allowlist of
 * {@linkcode agentProfile}: the worktree read-write, the repository's `.git`
 * read-only (private objects and index), a per-run copy of the CLI's state as
 * HOME, the rest of HOME, vouch's keys and state and the user's checkout not
 * mounted; own pid namespace, killed with vouch. The outside-write watch of
 * the supervisor stays as a second line.
 *
 * @module
 */
import { realpathSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import process from "node:process";
import { join } from "node:path";
import { dirname } from "node:path";
import { failedRun } from "../backends/result.ts";
import { type AgentCliProbe, probeAgentCli } from "../backends/probe.ts";
import type {
  AgentBackend,
  BackendFailure,
  BackendResult,
  BackendStart,
} from "../backends/types.ts";
import { NO_SANDBOX, type SandboxProfile } from "../sandbox/profile.ts";
import { AGENT_STATE_ENTRIES, agentProfile, toolCommandProfile } from "../sandbox/agent_profile.ts";
import {
  type AgentNetwork,
  OPEN_NETWORK_WARNING,
  type TaskNetwork,
  withEgressRecord,
  withOpenNetworkNote,
} from "./_agent_network.ts";
import { DEFAULT_AGENT_LIMITS, type SandboxLimits, withDefaultLimits } from "../sandbox/limits.ts";
import {
  confineTask,
  endKept,
  isFailure,
  type KeptTask,
  sandboxMaker,
  startKept,
  type TaskSandboxOptions,
} from "./_confined_task.ts";
import type { SandboxProbe, SandboxRequirement } from "../host/sandbox_probe.ts";
import { markConfined } from "./agent_confinement.ts";
import { parseEgressHost } from "../egress/allowlist.ts";

/**
 * The paths an agent program needs visible (read-only) in the sandbox: the
 * program file and its own directory and, for a program installed by npm
 * (`node_modules/.bin/x -> ../pkg/bin/x.js`, native binaries in sibling
 * packages), the whole `node_modules` it resolves into (else its real file and
 * directory). The sandbox drops a directory that is HOME or is, lies in or
 * contains the repository checkout (an agent script kept in the checkout is seen
 * alone, never its siblings): the files stay (see `extraReadOnlyPaths`).
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { agentProgramPaths } from "./confined_backend.ts";
 * deepEqual(agentProgramPaths("/nonexistent/bin/agent"), ["/nonexistent/bin/agent", "/nonexistent/bin"]);
 * ```
 */
export function agentProgramPaths(program: string): string[] {
  const out = new Set([program, dirname(program)]);
  let real: string;
  try {
    real = realpathSync(program);
  } catch {
    return [...out];
  }
  const parts = real.split("/");
  const nm = parts.lastIndexOf("node_modules");
  out.add(real);
  out.add(nm > 0 ? parts.slice(0, nm + 1).join("/") : dirname(real));
  return [...out];
}

/**
 * The paths an absolute argument of an agent or MCP server (`node /x/server.js`) needs
 * visible: the path itself and its directory (dropped by the sandbox when it is HOME or in, or
 * around, the checkout, as for {@linkcode agentProgramPaths}).
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { agentArgumentPaths } from "./confined_backend.ts";
 * deepEqual(agentArgumentPaths(["--stdio", "/x/server.js"]), ["/x/server.js", "/x"]);
 * ```
 */
export function agentArgumentPaths(args: readonly string[]): string[] {
  return args.filter((a) => a.startsWith("/")).flatMap((a) => [a, dirname(a)]);
}

/** Options of {@linkcode confinedBackend}. */
export interface ConfinedBackendOptions {
  /**
   * Paths bound read-only inside the sandbox (the agent program's file and directory,
   * {@linkcode agentProgramPaths}); a directory that is HOME or in or around the checkout is not.
   */
  readonly readOnly?: readonly string[];
  /** HOME-relative state copied into the per-run HOME (default: by backend id). */
  readonly stateEntries?: readonly string[];
  /** Host directories the agent writes in place (an explicit `CODEX_HOME`). */
  readonly stateDirs?: readonly string[];
  /** The user's HOME (default `$HOME`). */
  readonly home?: string;
  /** A probe already run. */
  readonly probe?: SandboxProbe;
  /** Limits of the agent (contract `sandbox.agentLimits`); absent fields keep {@linkcode DEFAULT_AGENT_LIMITS}. */
  readonly limits?: Partial<SandboxLimits>;
  /**
   * What the agent may reach (default: nothing: `{ allow: [] }`). `"host"`
   * shares the host network unfiltered (warned on every run).
   */
  readonly network?: AgentNetwork;
}

export type { AgentNetwork };

/**
 * Wraps a backend factory so every run gets the agent sandbox for its task's
 * worktree. A required sandbox that is unavailable ends the run with a
 * non-retryable `config` error (never silently unconfined).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { confinedBackend } from "./confined_backend.ts";
 * import { commandBackend } from "../backends/command_backend.ts";
 * const backend = confinedBackend((sandbox) => commandBackend({ argv: ["./agent"], sandbox }), "auto");
 * equal(backend.id, "command");
 * ```
 */
export function confinedBackend(
  make: (sandbox: SandboxProfile) => AgentBackend,
  requirement: SandboxRequirement,
  options: ConfinedBackendOptions = {},
): AgentBackend {
  const plain = make(NO_SANDBOX);
  const network = options.network ?? { allow: [] };
  // Only an agent process needs a way out (the `openai:` loop is vouch itself).
  const needsEgress = plain.capabilities().subprocess;
  const how: TaskSandboxOptions = {
    ...options,
    requirement,
    make,
    backendId: plain.id,
    network,
    needsEgress,
  };
  const sandboxFor = sandboxMaker(how);
  const perTask = new Map<string, KeptTask>();
  // One round of the task's backend, its egress refusals recorded in the result.
  const round = async (
    backend: AgentBackend,
    net: TaskNetwork | null,
    task: Parameters<AgentBackend["run"]>[0],
    ctx: Parameters<AgentBackend["run"]>[1],
  ): Promise<BackendResult> => {
    if (network === "host" && needsEgress) {
      try {
        ctx.emit({ kind: "error", message: OPEN_NETWORK_WARNING, fatal: false });
      } catch {
        // a broken sink never changes the run
      }
      return withOpenNetworkNote(await backend.run(task, ctx));
    }
    if (net === null) return await backend.run(task, ctx);
    net.ctx = ctx;
    try {
      const result = await backend.run(task, ctx);
      // The proxy started alongside the agent: had it failed, the gate stayed shut (the agent
      // never started) and the run fails with why.
      const failed = await net.egress.ready;
      if (failed !== null) {
        return failedRun(plain.id, "error", {
          code: "config",
          message: `${failed.code}: ${failed.message}`,
          retryable: false,
        });
      }
      return withEgressRecord(result, await net.egress.proxy.takeRefusals());
    } finally {
      net.ctx = null;
    }
  };
  return markConfined({
    ...plain,
    id: plain.id,
    capabilities: () => plain.capabilities(),
    // The agent starts once, in the sandbox of its task's worktree, before the baseline; the
    // same process (sandbox, network and private HOME) serves the task's rounds.
    ...(plain.startTask !== undefined
      ? {
        async startTask(
          task: BackendStart,
          signal: AbortSignal,
          step?: (text: string) => void,
        ): Promise<BackendFailure | null> {
          const old = perTask.get(task.taskId);
          perTask.delete(task.taskId);
          if (old !== undefined) await endKept(task.taskId, old);
          const limits = withDefaultLimits(options.limits, DEFAULT_AGENT_LIMITS);
          step?.(`${plain.id}: preparing its sandbox`);
          const kept = await confineTask(how, sandboxFor, task.worktree, limits);
          if (isFailure(kept)) return kept;
          const why = await startKept(kept, task, signal, step);
          if (why === null) perTask.set(task.taskId, kept);
          return why;
        },
      }
      : {}),
    ...(plain.preflight !== undefined
      ? { preflight: () => sandboxedPreflight(plain, make, requirement, options, sandboxFor) }
      : {}),
    async run(task, ctx): Promise<BackendResult> {
      const limits = withDefaultLimits(options.limits, DEFAULT_AGENT_LIMITS);
      // A backend that keeps an agent between rounds (a live ACP session) keeps its sandbox,
      // private HOME included, until the task ends (endTask).
      const kept = perTask.get(task.taskId);
      if (kept !== undefined && kept.worktree === task.worktree) {
        return await round(kept.backend, kept.net, task, ctx);
      }
      if (kept !== undefined) {
        perTask.delete(task.taskId);
        await endKept(task.taskId, kept);
      }
      try {
        ctx.emit({ kind: "step", text: `${plain.id}: preparing its sandbox` });
      } catch {
        // a broken sink never changes the run
      }
      const made = await confineTask(how, sandboxFor, task.worktree, limits);
      if (isFailure(made)) return failedRun(plain.id, "error", made);
      const keep = plain.endTask !== undefined;
      if (keep) perTask.set(task.taskId, made);
      try {
        return await round(made.backend, made.net, task, ctx);
      } finally {
        if (!keep) await endKept(task.taskId, made);
      }
    },
    ...(plain.endTask !== undefined
      ? {
        async endTask(taskId: string): Promise<void> {
          const kept = perTask.get(taskId);
          perTask.delete(taskId);
          if (kept !== undefined) await endKept(taskId, kept);
        },
      }
      : {}),
  });
}

/**
 * The preflight of a confined backend: the CLI's `--version` runs its code, so it runs in the
 * same sandbox as a run, on an empty worktree; an install its own metadata shows complete
 * needs none (no sandbox, no process).
 */
async function sandboxedPreflight(
  plain: AgentBackend,
  make: (sandbox: SandboxProfile) => AgentBackend,
  requirement: SandboxRequirement,
  options: ConfinedBackendOptions,
  sandboxFor: ReturnType<typeof sandboxMaker>,
): Promise<BackendFailure | null> {
  if ((await plain.installedVersion?.() ?? null) !== null) return null;
  const limits = withDefaultLimits(options.limits, DEFAULT_AGENT_LIMITS);
  if (requirement === "none") return await make({ kind: "none", limits }).preflight?.() ?? null;
  const scratch = await mkdtemp(join(tmpdir(), "vouch-preflight-"));
  try {
    const worktree = join(scratch, "worktree");
    await mkdir(worktree);
    await mkdir(join(scratch, "agent"));
    const sandbox = await sandboxFor(worktree, join(scratch, "agent"), limits);
    if (isFailure(sandbox)) return sandbox;
    // Starting and speaking the protocol needs no network: none at all.
    return await make(toolCommandProfile(sandbox)).preflight?.() ?? null;
  } finally {
    await rm(scratch, { recursive: true, force: true }).catch(() => {});
  }
}

/**
 * `<executable> --version` of an agent CLI (for `vouch doctor`) in the agent
 * sandbox it would run in, on an empty worktree: the probe runs the CLI's
 * code, so it is confined like a run. Without a working bwrap the CLI is not
 * started at all (reported as not available, saying why).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { probeAgentCliConfined } from "./confined_backend.ts";
 * const none = { available: false, path: null, version: null, reason: "test" };
 * const p = await probeAgentCliConfined("codex", "/nonexistent/codex", { bwrap: none, none });
 * equal(p.available, false);
 * ```
 */
export async function probeAgentCliConfined(
  name: string,
  executable: string,
  probe: SandboxProbe,
): Promise<AgentCliProbe> {
  if (!probe.bwrap.available) {
    return {
      name,
      executable,
      available: false,
      version: null,
      reason: "not started: its `--version` runs only in the agent sandbox, unavailable here",
    };
  }
  const scratch = await mkdtemp(join(tmpdir(), "vouch-doctor-"));
  try {
    await mkdir(join(scratch, "worktree"));
    await mkdir(join(scratch, "agent"));
    let home: string | undefined;
    try {
      home = process.env["HOME"];
    } catch {
      home = undefined;
    }
    const profile = agentProfile({
      worktree: join(scratch, "worktree"),
      scratch: join(scratch, "agent"),
      ...(home !== undefined ? { home } : {}),
      stateEntries: AGENT_STATE_ENTRIES[name] ?? [],
      readOnly: executable.includes("/") ? agentProgramPaths(executable) : [],
      ...(probe.bwrap.path !== null ? { bwrapPath: probe.bwrap.path } : {}),
    });
    // `--version` needs no network: none at all.
    return await probeAgentCli(name, executable, toolCommandProfile(profile));
  } finally {
    await rm(scratch, { recursive: true, force: true }).catch(() => {});
  }
}

/** Options of {@linkcode confinedAgent}. */
export interface ConfinedAgentOptions {
  /**
   * What the agent may reach through vouch's egress proxy, as `host[:port]` (port 443 unless
   * given; `*.x` for x's subdomains), e.g. its model's API (default: nothing). A malformed entry
   * is refused (`egress_invalid`), as `--egress-allow` is.
   */
  readonly allowHosts?: readonly string[];
  /** Host paths bound read-only (the agent program's install dir, a toolchain). */
  readonly readOnly?: readonly string[];
  /** HOME-relative state copied into the agent's per-run HOME (default: by backend id). */
  readonly stateEntries?: readonly string[];
  /**
   * The HOME that `stateEntries` are copied from (default: this process's `HOME`), e.g. a
   * directory holding the agent's own configuration (`.codex/config.toml`) for this embedder.
   * The agent never writes it: its per-run HOME, seen at this path, holds only copies of them.
   */
  readonly home?: string;
  /** The agent's limits; absent fields keep the defaults. */
  readonly limits?: Partial<SandboxLimits>;
}

/**
 * An agent backend for `runInRepo` that runs, per task, in the agent sandbox `vouch run` uses:
 * its worktree read-write, the repository's `.git` read-only, a per-run HOME, never vouch's keys
 * or your checkout, its own network namespace whose only way out is the egress proxy to
 * `allowHosts`. `make` builds the backend for one task's sandbox profile.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { confinedAgent } from "./confined_backend.ts";
 * import { codexBackend } from "../backends/codex_backend.ts";
 * const codex = confinedAgent((sandbox) => codexBackend({ sandbox, passEnv: ["OPENAI_API_KEY"] }), {
 *   allowHosts: ["api.openai.com"],
 * });
 * equal(codex.id, "codex");
 * ```
 */
export function confinedAgent(
  make: (sandbox: SandboxProfile) => AgentBackend,
  options: ConfinedAgentOptions = {},
): AgentBackend {
  // Always bwrap (without it the run fails with why): the opt-out is runInRepo's `unconfinedAgent`,
  // which says so on the run.
  return confinedBackend(make, "bwrap", {
    network: { allow: (options.allowHosts ?? []).map((h) => parseEgressHost(h)) },
    ...(options.readOnly !== undefined ? { readOnly: options.readOnly } : {}),
    ...(options.stateEntries !== undefined ? { stateEntries: options.stateEntries } : {}),
    ...(options.home !== undefined ? { home: options.home } : {}),
    ...(options.limits !== undefined ? { limits: options.limits } : {}),
  });
}
