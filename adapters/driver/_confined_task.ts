/**
 * One task's confined backend (private to `confined_backend.ts`): the agent
 * sandbox of its worktree (bwrap allowlist, private HOME), its own network
 * namespace behind vouch's egress proxy, and the backend made for it; how it
 * is set up, started ahead of the task's first round, and ended.
 *
 * @module
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import type { AgentBackend, BackendFailure, BackendStart } from "../backends/types.ts";
import type { SandboxProfile } from "../sandbox/profile.ts";
import {
  AGENT_STATE_ENTRIES,
  agentProfile,
  type AgentProfileOptions,
} from "../sandbox/agent_profile.ts";
import type { SandboxLimits } from "../sandbox/limits.ts";
import {
  probeSandbox,
  type SandboxProbe,
  type SandboxRequirement,
  sandboxUnavailable,
} from "../host/sandbox_probe.ts";
import {
  type AgentNetwork,
  confineNetwork,
  startTaskNetwork,
  type TaskNetwork,
} from "./_agent_network.ts";

/** What a task keeps: its backend in its sandbox, the scratch dir and its network. */
export interface KeptTask {
  readonly worktree: string;
  readonly backend: AgentBackend;
  readonly scratch: string | null;
  readonly net: TaskNetwork | null;
}

/**
 * How a task's sandbox is made: the agent's HOME state and extra paths are
 * handed to {@linkcode agentProfile} as they are.
 */
export interface TaskSandboxOptions
  extends Pick<AgentProfileOptions, "home" | "stateEntries" | "stateDirs" | "readOnly"> {
  readonly requirement: SandboxRequirement;
  readonly make: (sandbox: SandboxProfile) => AgentBackend;
  readonly backendId: string;
  readonly network: AgentNetwork;
  /** Only an agent process needs a way out (the `openai:` loop is vouch itself). */
  readonly needsEgress: boolean;
  readonly probe?: SandboxProbe;
}

/** Whether `s` is a failure rather than what was asked for. */
export const isFailure = <T extends object>(s: T | BackendFailure): s is BackendFailure =>
  "code" in s;

/** The agent's sandbox for a worktree (or the refusal), in `scratch`; probes bwrap once. */
export function sandboxMaker(
  o: TaskSandboxOptions,
): (
  worktree: string,
  scratch: string,
  limits: SandboxLimits,
) => Promise<SandboxProfile | BackendFailure> {
  let probe: Promise<SandboxProbe> | null = o.probe !== undefined ? Promise.resolve(o.probe) : null;
  return async (worktree, scratch, limits) => {
    const found = await (probe ??= probeSandbox());
    if (!found.bwrap.available) {
      const message = sandboxUnavailable(found, o.requirement).message;
      return { code: "config", message, retryable: false };
    }
    let home = o.home;
    if (home === undefined) {
      try {
        home = process.env["HOME"];
      } catch {
        home = undefined;
      }
    }
    try {
      return agentProfile({
        worktree,
        scratch,
        ...(home !== undefined ? { home } : {}),
        stateEntries: o.stateEntries ?? AGENT_STATE_ENTRIES[o.backendId] ?? [],
        stateDirs: o.stateDirs ?? [],
        readOnly: o.readOnly ?? [],
        limits,
        ...(found.bwrap.path !== null ? { bwrapPath: found.bwrap.path } : {}),
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { code: "config", message, retryable: false };
    }
  };
}

/**
 * The task's backend in its own sandbox (worktree mounted, its network namespace and egress
 * proxy), in a fresh scratch dir ({@linkcode endKept} removes it), or why it cannot be.
 */
export async function confineTask(
  o: TaskSandboxOptions,
  sandboxFor: ReturnType<typeof sandboxMaker>,
  worktree: string,
  limits: SandboxLimits,
): Promise<KeptTask | BackendFailure> {
  if (o.requirement === "none") {
    return { worktree, backend: o.make({ kind: "none", limits }), scratch: null, net: null };
  }
  const scratch = await mkdtemp(join(tmpdir(), "vouch-agent-"));
  const sandbox = await sandboxFor(worktree, scratch, limits);
  if (isFailure(sandbox)) {
    await rm(scratch, { recursive: true, force: true }).catch(() => {});
    return sandbox;
  }
  let confined: SandboxProfile = sandbox;
  let net: TaskNetwork | null = null;
  if (o.network !== "host" && o.needsEgress && sandbox.kind === "bwrap") {
    // Fail closed: without its proxy the agent does not start (its forwarder waits on
    // the gate the proxy's start opens; the proxy and the sandbox start side by side).
    const started = await startTaskNetwork(scratch, o.network.allow, sandbox);
    if ("code" in started) {
      await rm(scratch, { recursive: true, force: true }).catch(() => {});
      return started;
    }
    net = started;
    confined = confineNetwork(net, sandbox);
  }
  return { worktree, backend: o.make(confined), scratch, net };
}

/** Ends what a task kept: its backend's agent, its proxy, its scratch dir. Never throws. */
export async function endKept(taskId: string, kept: KeptTask): Promise<void> {
  await kept.backend.endTask?.(taskId).catch(() => {});
  await kept.net?.egress.close().catch(() => {});
  if (kept.scratch !== null) {
    await rm(kept.scratch, { recursive: true, force: true }).catch(() => {});
  }
}

/**
 * Starts the kept task's agent ahead of its first round (`startTask`); on failure everything
 * it kept is ended. A proxy that failed leaves the agent's gate shut: said, not waited out.
 */
export async function startKept(
  kept: KeptTask,
  task: BackendStart,
  signal: AbortSignal,
  step?: (text: string) => void,
): Promise<BackendFailure | null> {
  const gate = new AbortController();
  const proxyFailed = kept.net === null ? null : kept.net.egress.ready.then((f) => {
    if (f !== null) gate.abort();
    return f;
  });
  const why = await kept.backend.startTask?.(task, AbortSignal.any([signal, gate.signal]), step) ??
    null;
  const failed = gate.signal.aborted ? await proxyFailed : null;
  if (why === null && failed === null) return null;
  await endKept(task.taskId, kept);
  return failed !== null
    ? { code: "config", message: `${failed.code}: ${failed.message}`, retryable: false }
    : why;
}
