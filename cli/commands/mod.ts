/**
 * The table of CLI subcommands: each command's name and one-line summary, and
 * how to load it. A command's module (and everything it imports) is loaded
 * only when that command runs or shows its `--help`, so `vouch --version`,
 * `vouch --help` and each command pay for their own code only. The imports
 * are literal specifiers, so `deno compile` and the npm bundles still carry
 * every command. Add one entry here and in `../_command_summaries.ts` per
 * command.
 *
 * @module
 */
import { COMMAND_SUMMARIES, type CommandName } from "../_command_summaries.ts";
import type { CliCommand } from "../command.ts";

/** One row of the command table: what `vouch --help` lists, and the command itself on demand. */
export interface CommandEntry {
  /** The word after `vouch` (the loaded command's `name`). */
  readonly name: string;
  /** One line for `vouch --help` (the loaded command's `summary`). */
  readonly summary: string;
  /** Imports the command's module and returns the command. */
  load(): Promise<CliCommand>;
}

/** How to load each command (literal specifiers, so bundles carry every command). */
const LOADERS: Readonly<Record<CommandName, () => Promise<CliCommand>>> = {
  evaluate: async () => (await import("./evaluate.ts")).evaluateCommand,
  demo: async () => (await import("./demo.ts")).demoCommand,
  init: async () => (await import("./init.ts")).initCommand,
  run: async () => (await import("./run.ts")).runCommand,
  verify: async () => (await import("./verify.ts")).verifyCommand,
  gc: async () => (await import("./gc.ts")).gcCommand,
  scope: async () => (await import("./scope.ts")).scopeCommand,
  doctor: async () => (await import("./doctor.ts")).doctorCommand,
  inspect: async () => (await import("./inspect.ts")).inspectCommand,
  attest: async () => (await import("./attest.ts")).attestCommand,
  batch: async () => (await import("./batch.ts")).batchCommand,
  worker: async () => (await import("./worker.ts")).workerCommand,
};

/** All subcommands, in the order `vouch --help` lists them. */
export const COMMANDS: readonly CommandEntry[] = (Object.keys(COMMAND_SUMMARIES) as CommandName[])
  .map((name) => ({ name, summary: COMMAND_SUMMARIES[name], load: LOADERS[name] }));

/**
 * Every command, loaded, in table order (tests and documentation checks walk them all).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { COMMANDS, loadCommands } from "./mod.ts";
 * const commands = await loadCommands();
 * equal(commands.length, COMMANDS.length);
 * equal(commands[0]!.name, COMMANDS[0]!.name);
 * ```
 */
export function loadCommands(): Promise<CliCommand[]> {
  return Promise.all(COMMANDS.map((c) => c.load()));
}
