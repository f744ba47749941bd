/**
 * The shape every CLI command has. Commands parse their own arguments with
 * `node:util` `parseArgs`, call the library, and render; they hold no logic an
 * embedder would need.
 *
 * @module
 */
import { VouchError } from "../kernel/errors/mod.ts";

/** Where a command writes. Tests pass buffers; `main.ts` passes the real streams. */
export interface CliIo {
  /** Writes text to standard output. */
  out(text: string): void;
  /** Writes text to standard error (progress, diagnostics). */
  err(text: string): void;
  /** Whether standard error is a terminal (live progress is shown only then). */
  readonly isTerminal: boolean;
}

/** A CLI subcommand. */
export interface CliCommand {
  /** The word after `vouch`. */
  readonly name: string;
  /** One line for `vouch --help`. */
  readonly summary: string;
  /** Full help text for `vouch <name> --help`, with examples. */
  readonly help: string;
  /** Runs the command; resolves to the process exit code. */
  run(args: string[], io: CliIo): Promise<number>;
}

/** Exit codes shared by all commands. */
export const EXIT = {
  /** Accepted / verified / success. */
  ok: 0,
  /** Rejected / failed / tampered. */
  rejected: 1,
  /** Usage error: bad flags or arguments. */
  usage: 2,
} as const;

/** Raised by a command for bad arguments; `main.ts` prints it and exits 2. */
export class UsageError extends VouchError<"usage"> {
  constructor(message: string) {
    super("usage", message);
  }
}
