/**
 * The rule that an agent which starts programs runs confined: a backend that
 * starts programs (`startsPrograms`: an agent CLI, a command, an ACP agent,
 * the `openai` loop's shell commands) reaches a task only wrapped by
 * `confinedBackend` (public as `confinedAgent`; the agent sandbox per task: its worktree, no
 * key, no checkout, its own network), or when the caller says, in so many
 * words, that it runs unconfined (`unconfinedAgent: true`). Without either,
 * `runInRepo` refuses before anything runs: an agent started with this
 * process's rights could read vouch's keys and mint what it likes.
 *
 * Owns: the mark "confined by vouch" and the refusal. Never: the sandbox
 * itself (`confined_backend.ts`), or any judgement of in-process backends
 * (`fnBackend`: the caller's own code, which starts no program).
 *
 * @module
 */
import { VouchError } from "../../kernel/errors/mod.ts";
import { MARKED_RUNS_COMMANDS } from "../backends/_program_backends.ts";
import type { AgentBackend } from "../backends/types.ts";

/** Why an agent backend was refused. */
export type AgentConfinementErrorCode =
  /** It starts programs and is neither confined by vouch nor declared unconfined. */
  "agent_unconfined";

/** An agent backend that starts programs would run with this process's rights. */
export class AgentConfinementError extends VouchError<AgentConfinementErrorCode> {}

const CONFINED = new WeakSet<AgentBackend>();

/** Marks `backend` as confined by vouch (`confinedBackend` does, for what it returns). */
export function markConfined<B extends AgentBackend>(backend: B): B {
  CONFINED.add(backend);
  return backend;
}

/** Whether `backend` starts programs: a subprocess, or marked (a `capabilities()` that throws: yes). */
function startsPrograms(backend: AgentBackend): boolean {
  if (MARKED_RUNS_COMMANDS.has(backend)) return true;
  try {
    return backend.capabilities().subprocess !== false;
  } catch {
    return true;
  }
}

/**
 * Refuses (with {@linkcode AgentConfinementError}) a backend that starts programs unless
 * vouch confines it, or `unconfined` says the caller runs it unconfined on purpose; returns
 * whether it will run unconfined (so the caller can say so).
 *
 * @example
 * ```ts
 * import { equal, throws } from "node:assert/strict";
 * import { assertAgentConfined } from "./agent_confinement.ts";
 * import { commandBackend } from "../backends/command_backend.ts";
 * import { fnBackend } from "../backends/fn_backend.ts";
 * throws(() => assertAgentConfined(commandBackend({ argv: ["./agent"] }), false), /confinedAgent/);
 * equal(assertAgentConfined(commandBackend({ argv: ["./agent"] }), true), true); // said so
 * equal(assertAgentConfined(fnBackend("mine", () => Promise.resolve({ done: true })), false), false);
 * ```
 */
export function assertAgentConfined(backend: AgentBackend, unconfined: boolean): boolean {
  if (CONFINED.has(backend) || !startsPrograms(backend)) return false;
  if (unconfined) return true;
  throw new AgentConfinementError(
    "agent_unconfined",
    `the agent backend \`${String(backend.id)}\` starts programs and is not confined: ` +
      `pass confinedAgent((sandbox) => yourBackend({ ...config, sandbox }), { allowHosts }) ` +
      `(the agent sandbox \`vouch run\` uses), or unconfinedAgent: true to run it with ` +
      `this process's rights (it could read vouch's keys)`,
  );
}
