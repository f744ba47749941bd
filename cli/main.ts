/**
 * The `vouch` executable: dispatches to a subcommand and maps errors to exit
 * codes. Thin by rule: no logic here that an embedder would need.
 *
 * @module
 */
import { type CliIo, EXIT, UsageError } from "./command.ts";
import { COMMANDS } from "./commands/mod.ts";

const encoder = new TextEncoder();

/** The real process streams. */
export function processIo(): CliIo {
  return {
    out: (text) => void Deno.stdout.writeSync(encoder.encode(text)),
    err: (text) => void Deno.stderr.writeSync(encoder.encode(text)),
    isTerminal: Deno.stderr.isTerminal(),
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
  ].join("\n");
}

/**
 * Runs the CLI with the given arguments and returns the exit code.
 *
 * @example
 * ```ts ignore
 * import { runCli } from "./main.ts";
 * Deno.exit(await runCli(["--help"], processIo()));
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
  const command = COMMANDS.find((c) => c.name === name);
  if (command === undefined) {
    io.err(`vouch: unknown command "${name}"\n\n${topHelp()}`);
    return EXIT.usage;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    io.out(command.help.endsWith("\n") ? command.help : command.help + "\n");
    return EXIT.ok;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`vouch ${name}: ${error.message}\nRun \`vouch ${name} --help\` for usage.\n`);
      return EXIT.usage;
    }
    // node:util parseArgs throws TypeError with a code for unknown/invalid flags.
    if (
      error instanceof TypeError && "code" in error &&
      String(error.code).startsWith("ERR_PARSE_ARGS")
    ) {
      io.err(`vouch ${name}: ${error.message}\nRun \`vouch ${name} --help\` for usage.\n`);
      return EXIT.usage;
    }
    throw error;
  }
}

if (import.meta.main) {
  Deno.exit(await runCli(Deno.args, processIo()));
}
