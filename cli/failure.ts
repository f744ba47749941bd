/**
 * How an error that escapes a command becomes what the user sees: exactly one
 * line on stderr and an exit code from the one {@link EXIT} table. A
 * {@link VouchError} is vouch refusing on purpose (its message and code are
 * shown); an operating-system error means vouch could not run here; anything
 * else is a bug, said as such. Stack traces appear only with `VOUCH_DEBUG=1`.
 *
 * @module
 */
import { VouchError } from "../kernel/errors/mod.ts";
import { permissionDenied } from "../adapters/process/permission.ts";
import { DiffParseError } from "../kernel/diff/error.ts";
import { GlobError } from "../kernel/glob/error.ts";
import { BackendError } from "../adapters/backends/errors.ts";
import { ContractError } from "../adapters/contract/load.ts";
import { EXIT, type ExitCode, UsageError } from "./command.ts";

/** What the CLI prints and returns for an error. */
export interface CliFailure {
  /** The exit code. */
  readonly exitCode: ExitCode;
  /** What goes to stderr: one line (plus the stack trace when debugging), newline-terminated. */
  readonly text: string;
}

/** Whether the error is the runtime's or Node's operating-system error (ENOENT, EISDIR, ...). */
function isOsError(error: Error): boolean {
  const denoErrors = (globalThis as { Deno?: { errors?: Record<string, unknown> } }).Deno?.errors;
  if (
    denoErrors !== undefined &&
    Object.values(denoErrors).some((kind) => typeof kind === "function" && error instanceof kind)
  ) return true;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && /^E[A-Z0-9]+$/.test(code);
}

/** node:util `parseArgs` reports unknown or malformed flags as a TypeError with an ERR_PARSE_ARGS code. */
function isParseArgsError(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  return error instanceof TypeError && typeof code === "string" &&
    code.startsWith("ERR_PARSE_ARGS");
}

/** The exit code a {@link VouchError} escaping a command maps to. */
export function exitCodeForError(error: VouchError): ExitCode {
  if (error instanceof UsageError || error instanceof GlobError) return EXIT.usage;
  if (error instanceof ContractError) return EXIT.usage;
  if (error instanceof BackendError) return EXIT.backendFailed;
  if (error instanceof DiffParseError) return EXIT.rejected;
  return EXIT.couldNotRun;
}

/** Collapses a message to one line. */
function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " | ").trim();
}

/**
 * Turns an error thrown by command `command` into its line and exit code.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { describeFailure } from "./failure.ts";
 * import { VouchError } from "../kernel/errors/mod.ts";
 *
 * const locked = describeFailure("verify", new VouchError("locked", "Cannot open log: held by pid 7"));
 * equal(locked.exitCode, 5);
 * equal(locked.text, "vouch verify: Cannot open log: held by pid 7 (locked)\n");
 *
 * const bug = describeFailure("verify", new TypeError("x is undefined"));
 * equal(bug.exitCode, 70);
 * equal(bug.text.includes("at "), false);
 * ```
 */
export function describeFailure(command: string, error: unknown, debug = false): CliFailure {
  const prefix = command === "" ? "vouch" : `vouch ${command}`;
  const trace = (e: unknown) => debug && e instanceof Error && e.stack ? `${e.stack}\n` : "";
  if (error instanceof UsageError || (error instanceof Error && isParseArgsError(error))) {
    const help = command === "" ? "vouch --help" : `vouch ${command} --help`;
    return {
      exitCode: EXIT.usage,
      text: `${prefix}: ${oneLine(error.message)}\nRun \`${help}\` for usage.\n${trace(error)}`,
    };
  }
  // A permission the runtime refused, wherever it surfaced: say so and name the flag.
  const denied = permissionDenied(error);
  if (denied !== null) error = denied;
  if (error instanceof VouchError) {
    const message = oneLine(error.message);
    const coded = message.endsWith(`(${error.code})`) ? message : `${message} (${error.code})`;
    return { exitCode: exitCodeForError(error), text: `${prefix}: ${coded}\n${trace(error)}` };
  }
  if (error instanceof Error && isOsError(error)) {
    return {
      exitCode: EXIT.couldNotRun,
      text: `${prefix}: could not run: ${oneLine(error.message)}\n${trace(error)}`,
    };
  }
  const what = error instanceof Error ? `${error.name}: ${oneLine(error.message)}` : String(error);
  return {
    exitCode: EXIT.internal,
    text: `${prefix}: internal error (a bug in vouch): ${what}` +
      (debug ? `\n${trace(error)}` : "; set VOUCH_DEBUG=1 for the stack trace\n"),
  };
}
