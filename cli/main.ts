/**
 * The `vouch` executable: dispatches to a subcommand and maps errors to exit
 * codes. Thin by rule: no logic here that an embedder would need.
 *
 * @module
 */
import { writeSync } from "node:fs";

/** How long the CLI waits for the trees' removal after the verdict before handing it off. */
const REMOVAL_WAIT_MS = 3_000;
import process from "node:process";
import { isatty } from "node:tty";
import { type CliIo, EXIT, EXIT_CODES, renderExitCodes } from "./command.ts";
import { renderVerdictLine, VERDICT_ROWS } from "../adapters/driver/verdicts.ts";
import { COMMANDS } from "./commands/mod.ts";
import { renderPermissions } from "./permissions.ts";

/** Standard input, output and error as the commands see them (what {@link processIo} returns). */
export type { CliIo } from "./command.ts";

const encoder = new TextEncoder();

/**
 * `failure.ts` (it imports the error classes of the commands' graphs, zod among them), loaded
 * before a command runs: `--version` and the help texts never load it, and by the time
 * command code can fail it is here, so a stray error is reported synchronously.
 */
let failureModule: typeof import("./failure.ts") | undefined;
async function loadFailure(): Promise<typeof import("./failure.ts")> {
  return failureModule ??= await import("./failure.ts");
}

/** After a command: its trees go (see {@link runCli}); loaded then, from the command's graph. */
async function settleTrees(): Promise<void> {
  const [{ settleDeferredRemovalsWithin }, { scheduleLiveTreeRemoval }] = await Promise.all([
    import("../adapters/worktree/deferred_removal.ts"),
    import("../adapters/worktree/live_trees.ts"),
  ]);
  if (!await settleDeferredRemovalsWithin(REMOVAL_WAIT_MS)) scheduleLiveTreeRemoval();
}

/** Deno's permission query, where the runtime has one (never under Node). */
type PermissionQuery = (d: { name: "env"; variable: string }) => { state: string };
const denoPermissions = (globalThis as {
  Deno?: { permissions?: { querySync?: PermissionQuery } };
}).Deno?.permissions?.querySync;

/** Whether `VOUCH_DEBUG=1` is set (false when the environment may not be read). */
function debugRequested(): boolean {
  // Under Deno, ask first: reading an env var without --allow-env would throw (or prompt).
  if (denoPermissions !== undefined) {
    if (denoPermissions({ name: "env", variable: "VOUCH_DEBUG" }).state !== "granted") return false;
  }
  return process.env["VOUCH_DEBUG"] === "1";
}

function writeAll(fd: number, text: string): void {
  const bytes = encoder.encode(text);
  let off = 0;
  while (off < bytes.length) off += writeSync(fd, bytes, off);
}

/**
 * The real process streams (synchronous writes: nothing is lost at exit).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { processIo } from "./main.ts";
 * const io = processIo();
 * equal(typeof io.out, "function");
 * equal(typeof io.isTerminal, "boolean");
 * io.err(""); // writes nothing
 * ```
 */
export function processIo(): CliIo {
  return {
    out: (text) => writeAll(1, text),
    err: (text) => writeAll(2, text),
    isTerminal: isatty(2),
    debug: debugRequested(),
  };
}

function topHelp(): string {
  const width = Math.max(0, ...COMMANDS.map((c) => c.name.length));
  const lines = COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return [
    'vouch: make "done" mean verified for AI coding agents',
    "",
    "Usage: vouch <command> [options]",
    "",
    "Commands:",
    ...lines,
    "",
    "Run `vouch <command> --help` for a command's options and examples.",
    "",
    "Verdicts (the word a command prints first, its exit code):",
    ...VERDICT_ROWS.map((r) =>
      `  ${r.word.padEnd(16)} ${String(r.exitCode).padStart(3)}  ${r.meaning}`
    ),
    "",
    "Exit codes:",
    ...EXIT_CODES.map((r) => `  ${String(r.code).padStart(3)}  ${r.label}`),
    "Set VOUCH_DEBUG=1 to print stack traces.",
    "",
  ].join("\n");
}

/**
 * Runs the CLI with the given arguments and returns the exit code.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { runCli } from "./main.ts";
 * let out = "";
 * let err = "";
 * const io = { out: (t: string) => void (out += t), err: (t: string) => void (err += t), isTerminal: false };
 * equal(await runCli(["--version"], io), 0);
 * equal(out, "vouch 0.1.0\n");
 * equal(await runCli(["verify", "--no-such-flag"], io), 2);
 * equal(err.startsWith("vouch verify: Unknown option '--no-such-flag'"), true);
 * ```
 */
export async function runCli(args: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    io.out(topHelp());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === "--version") {
    io.out("vouch 0.1.0\n");
    return EXIT.ok;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (entry === undefined) {
    io.err(`vouch: unknown command "${name}"\n\n${topHelp()}`);
    return EXIT.usage;
  }
  const command = await entry.load();
  if (rest.includes("--help") || rest.includes("-h")) {
    const help = command.help.endsWith("\n") ? command.help : command.help + "\n";
    const verdicts = command.verdicts.length > 0 ? renderVerdictLine(command.verdicts) : "";
    io.out(`${help}\n${renderPermissions(name)}\n${verdicts}${renderExitCodes(command.exits)}`);
    return EXIT.ok;
  }
  const { describeFailure } = await loadFailure();
  try {
    return await command.run(rest, io);
  } catch (error) {
    const failure = describeFailure(name, error, io.debug === true);
    io.err(failure.text);
    return failure.exitCode;
  } finally {
    // The verdict is out: the trees of the task go now (`treeRemoval: "after_return"`), for
    // at most a few seconds; what is left then is removed by a detached child, and the
    // prompt comes back (a 66 MB node_modules copy took 25 s to remove).
    await settleTrees();
  }
}

/**
 * Runs the CLI as the process (Deno or Node: `cli/node_bin.ts` calls it under
 * Node): also turns an error that escapes every await (a stray rejected
 * promise) into one line and its exit code, so the runtime's "Uncaught" report
 * never appears.
 *
 * @example A bin file is this one call (`cli/node_bin.ts` under Node)
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { main } from "./main.ts";
 * equal(typeof main, "function"); // the bin: `await main();` (it exits the process)
 * ```
 */
export async function main(): Promise<never> {
  const io = processIo();
  const args = process.argv.slice(2);
  const stray = (error: unknown): Promise<never> => {
    const report = ({ describeFailure }: typeof import("./failure.ts")): never => {
      const failure = describeFailure(args[0] ?? "", error, io.debug === true);
      io.err(failure.text);
      process.exit(failure.exitCode);
    };
    // Loaded before any command code runs; only a failure to load a command waits for it.
    if (failureModule !== undefined) report(failureModule);
    return loadFailure().then(report);
  };
  process.on("unhandledRejection", (reason) => void stray(reason));
  process.on("uncaughtException", (error) => void stray(error));
  process.exit(await runCli(args, io).catch(stray));
}

if (import.meta.main) void main();
