/**
 * The table of CLI subcommands: each command's name and one-line summary, and
 * how to load it. A command's module (and everything it imports) is loaded
 * only when that command runs or shows its `--help`, so `vouch --version`,
 * `vouch --help` and each command pay for their own code only. The imports
 * are literal specifiers, so `deno compile` and the npm bundles still carry
 * every command. Add one entry here per command.
 *
 * @module
 */
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

/** All subcommands, in the order `vouch --help` lists them. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: "evaluate",
    summary: "judge a result bundle (manifest, patch, logs) against a WorkUnit and plan",
    load: async () => (await import("./evaluate.ts")).evaluateCommand,
  },
  {
    name: "demo",
    summary: "see vouch reject a false 'done' and verify a real fix (no network)",
    load: async () => (await import("./demo.ts")).demoCommand,
  },
  {
    name: "init",
    summary: "write a starter contract (detected test command, test files protected)",
    load: async () => (await import("./init.ts")).initCommand,
  },
  {
    name: "run",
    summary: "hand a task to a coding agent; keep only a patch that verifies",
    load: async () => (await import("./run.ts")).runCommand,
  },
  {
    name: "verify",
    summary: "verify a patch from anywhere in a clean tree (CI use)",
    load: async () => (await import("./verify.ts")).verifyCommand,
  },
  {
    name: "gc",
    summary: "remove worktrees left behind by crashed runs",
    load: async () => (await import("./gc.ts")).gcCommand,
  },
  {
    name: "scope",
    summary: "check every path a patch touches against confinement and allowed/forbidden globs",
    load: async () => (await import("./scope.ts")).scopeCommand,
  },
  {
    name: "doctor",
    summary: "check git, process groups, the sandbox and agent CLIs on this machine",
    load: async () => (await import("./doctor.ts")).doctorCommand,
  },
  {
    name: "inspect",
    summary: "verify and replay an event log; print per-task timelines",
    load: async () => (await import("./inspect.ts")).inspectCommand,
  },
  {
    name: "attest",
    summary: "export or verify a signed in-toto attestation of a verified patch",
    load: async () => (await import("./attest.ts")).attestCommand,
  },
  {
    name: "batch",
    summary: "grade many candidate patches (SWE-bench predictions) in parallel, with reports",
    load: async () => (await import("./batch.ts")).batchCommand,
  },
  {
    name: "worker",
    summary: "judge the candidates `vouch batch --queue` enqueued on Redis",
    load: async () => (await import("./worker.ts")).workerCommand,
  },
];

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
