/**
 * Which backends start programs: an agent process (`capabilities().subprocess`: an agent CLI,
 * a command, an ACP agent) or, without being one, the programs a model asks for (the `openai`
 * loop's shell commands). The driver runs those only inside the agent sandbox. Owns the mark;
 * never decides what to do with it (that is the driver's `runInRepo`).
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
 * import { runsCommands, startsPrograms } from "./_program_backends.ts";
 * import { capabilitiesOf } from "./types.ts";
 * const loop = { id: "loop", capabilities: capabilitiesOf("editsWorktree"), run: () => Promise.reject() };
 * equal(startsPrograms(loop), false);
 * equal(startsPrograms(runsCommands(loop)), true);
 * ```
 */
export function runsCommands<B extends AgentBackend>(backend: B): B {
  RUNS_COMMANDS.add(backend);
  return backend;
}

/**
 * Whether `backend` starts programs (a subprocess backend, or one marked by
 * {@linkcode runsCommands}). A backend whose `capabilities()` throws is taken to (fail closed).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { startsPrograms } from "./_program_backends.ts";
 * import { capabilitiesOf } from "./types.ts";
 * const run = () => Promise.reject(new Error("not run"));
 * equal(startsPrograms({ id: "cli", capabilities: capabilitiesOf("subprocess"), run }), true);
 * equal(startsPrograms({ id: "fn", capabilities: capabilitiesOf("editsWorktree"), run }), false);
 * ```
 */
export function startsPrograms(backend: AgentBackend): boolean {
  if (RUNS_COMMANDS.has(backend)) return true;
  try {
    return backend.capabilities().subprocess !== false;
  } catch {
    return true;
  }
}
