/**
 * Runs a subprocess backend inside the sandbox, per task: the worktree is the
 * only writable place, the network is off, secrets are hidden. For local agent
 * programs (`command:PATH`); real agent CLIs (Codex, Claude Code) need the
 * network and bring their own sandboxes, and writes they make outside the
 * worktree are still detected and rejected by the supervisor.
 *
 * @module
 */
import { failedRun } from "../backends/result.ts";
import type { AgentBackend, BackendResult } from "../backends/types.ts";
import { NO_SANDBOX, type SandboxProfile } from "../sandbox/profile.ts";
import {
  probeSandbox,
  type SandboxProbe,
  type SandboxRequirement,
  selectSandbox,
} from "../host/sandbox_probe.ts";

/**
 * Wraps a backend factory so every run gets a sandbox profile for its task's
 * worktree. A required sandbox that is unavailable ends the run with a
 * non-retryable `config` error (never silently unconfined).
 *
 * @example
 * ```ts
 * import { confinedBackend } from "./confined_backend.ts";
 * import { commandBackend } from "../backends/command_backend.ts";
 * const backend = confinedBackend((sandbox) => commandBackend({ argv: ["./agent"], sandbox }), "auto");
 * if (backend.id !== "command") throw new Error(backend.id);
 * ```
 */
export function confinedBackend(
  make: (sandbox: SandboxProfile) => AgentBackend,
  requirement: SandboxRequirement,
  options: {
    /** Paths bound read-only inside the sandbox (e.g. the agent program's directory). */
    readonly readOnly?: readonly string[];
  } = {},
): AgentBackend {
  const plain = make(NO_SANDBOX);
  let probe: Promise<SandboxProbe> | null = null;
  return {
    id: plain.id,
    capabilities: () => plain.capabilities(),
    async run(task, ctx): Promise<BackendResult> {
      let sandbox: SandboxProfile;
      try {
        sandbox = requirement === "none" ? NO_SANDBOX : await selectSandbox(requirement, {
          worktree: task.worktree,
          probe: await (probe ??= probeSandbox()),
        });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return failedRun(plain.id, "error", { code: "config", message, retryable: false });
      }
      if (sandbox.kind === "bwrap" && (options.readOnly ?? []).length > 0) {
        sandbox = { ...sandbox, readOnly: [...sandbox.readOnly, ...(options.readOnly ?? [])] };
      }
      return await make(sandbox).run(task, ctx);
    },
  };
}
