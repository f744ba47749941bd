/**
 * Which backends start programs: an agent process (`capabilities().subprocess`: an agent CLI,
 * a command, an ACP agent) or, without being one, the programs a model asks for (the `openai`
 * loop's shell commands). The driver runs those only inside the agent sandbox. Owns the mark;
 * never decides what to do with it (the driver's `agent_confinement.ts` does).
 *
 * @module
 */
import type { AgentBackend } from "./types.ts";

const RUNS_COMMANDS = new WeakSet<AgentBackend>();

/**
 * Marks `backend` as one that starts programs though it is no subprocess itself; returns it.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { MARKED_RUNS_COMMANDS, runsCommands } from "./_program_backends.ts";
 * import { capabilitiesOf } from "./types.ts";
 * const loop = { id: "loop", capabilities: capabilitiesOf("editsWorktree"), run: () => Promise.reject() };
 * equal(MARKED_RUNS_COMMANDS.has(loop), false);
 * equal(MARKED_RUNS_COMMANDS.has(runsCommands(loop)), true);
 * ```
 */
export function runsCommands<B extends AgentBackend>(backend: B): B {
  RUNS_COMMANDS.add(backend);
  return backend;
}

/** The backends {@linkcode runsCommands} marked (only to be asked, never added to). */
export const MARKED_RUNS_COMMANDS: Pick<WeakSet<AgentBackend>, "has"> = RUNS_COMMANDS;
