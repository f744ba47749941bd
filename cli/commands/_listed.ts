/**
 * The parts of a command the command table holds (`../_command_summaries.ts`),
 * taken from it: its one-line summary is the table's, not a copy.
 *
 * @module
 */
import type { Verdict } from "../../adapters/driver/verdicts.ts";
import type { CliCommand, CommandExits } from "../command.ts";
import { COMMAND_SUMMARIES, type CommandName } from "../_command_summaries.ts";

/**
 * All of a command but its `run`, as `vouch <name> --help` shows it: its name
 * and summary as the table lists them, its help text, what its exit codes
 * mean, and the verdicts it prints (none by default).
 *
 * @example
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * import { listedCommand } from "./_listed.ts";
 * const head = listedCommand("gc", "vouch gc: ...", { 0: "done" });
 * equal(head.summary, "remove worktrees left behind by crashed runs");
 * deepEqual(head.verdicts, []);
 * ```
 */
export function listedCommand(
  name: CommandName,
  help: string,
  exits: CommandExits,
  verdicts: readonly Verdict[] = [],
): Omit<CliCommand, "run"> {
  return { name, summary: COMMAND_SUMMARIES[name], help, exits, verdicts };
}
