/**
 * The `vouch` executable: dispatches to a subcommand and maps errors to exit
 * codes. Thin by rule: no logic here that an embedder would need.
 *
 * @module
 */
import { type CliIo, EXIT, EXIT_CODES, renderExitCodes } from "./command.ts";
import { describeFailure } from "./failure.ts";
import { COMMANDS } from "./commands/mod.ts";

const encoder = new TextEncoder();

/** Whether `VOUCH_DEBUG=1` is set (false when the environment may not be read). */
function debugRequested(): boolean {
  const env = { name: "env", variable: "VOUCH_DEBUG" } as const;
  return Deno.permissions.querySync(env).state === "granted" &&
    Deno.env.get("VOUCH_DEBUG") === "1";
}

/** The real process streams. */
export function processIo(): CliIo {
  return {
    out: (text) => void Deno.stdout.writeSync(encoder.encode(text)),
    err: (text) => void Deno.stderr.writeSync(encoder.encode(text)),
    isTerminal: Deno.stderr.isTerminal(),
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
    const help = command.help.endsWith("\n") ? command.help : command.help + "\n";
    io.out(`${help}\n${renderExitCodes(command.exits)}`);
    return EXIT.ok;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    const failure = describeFailure(name, error, io.debug === true);
    io.err(failure.text);
    return failure.exitCode;
  }
}

/**
 * Runs the CLI as the process: also turns an error that escapes every await
 * (a stray rejected promise) into one line and its exit code, so the
 * runtime's "Uncaught" report never appears.
 */
async function main(): Promise<never> {
  const io = processIo();
  const stray = (error: unknown): never => {
    const failure = describeFailure(Deno.args[0] ?? "", error, io.debug === true);
    io.err(failure.text);
    Deno.exit(failure.exitCode);
  };
  globalThis.addEventListener("unhandledrejection", (event) => {
    event.preventDefault();
    stray(event.reason);
  });
  globalThis.addEventListener("error", (event) => {
    event.preventDefault();
    stray(event.error);
  });
  Deno.exit(await runCli(Deno.args, io).catch(stray));
}

if (import.meta.main) await main();
