/**
 * The shape every CLI command has. Commands parse their own arguments with
 * `node:util` `parseArgs`, call the library, and render; they hold no logic an
 * embedder would need.
 *
 * @module
 */
import { VouchError } from "../kernel/errors/mod.ts";
import { type Verdict, wrapHelpLine } from "../adapters/driver/verdicts.ts";

/** Where a command writes. Tests pass buffers; `main.ts` passes the real streams. */
export interface CliIo {
  /** Writes text to standard output. */
  out(text: string): void;
  /** Writes text to standard error (progress, diagnostics). */
  err(text: string): void;
  /** Whether standard error is a terminal (live progress is shown only then). */
  readonly isTerminal: boolean;
  /** Print stack traces for errors (`VOUCH_DEBUG=1`); off by default. */
  readonly debug?: boolean;
}

/** A CLI subcommand. */
export interface CliCommand {
  /** The word after `vouch`. */
  readonly name: string;
  /** One line for `vouch --help`. */
  readonly summary: string;
  /** Full help text for `vouch <name> --help`, with examples. */
  readonly help: string;
  /**
   * What this command's outcome codes mean for it (0, 1 and, for `run`, 3 and
   * 4). The codes every command shares (2, 5, 70, 130) come from
   * {@link EXIT_CODES}; `vouch <name> --help` renders both.
   */
  readonly exits: CommandExits;
  /**
   * The verdicts (rows of the one verdict table, `adapters/driver/verdicts.ts`)
   * this command prints; `vouch <name> --help` lists them with their words and
   * exit codes. Empty for commands that print no verdict (`gc`, `doctor`).
   */
  readonly verdicts: readonly Verdict[];
  /** Runs the command; resolves to the process exit code. */
  run(args: string[], io: CliIo): Promise<number>;
}

/** Per-command wording of the outcome exit codes. */
export type CommandExits = Readonly<Partial<Record<0 | 1 | 3 | 4, string>>>;

/**
 * The exit codes of every `vouch` command: the one table README.md and
 * docs/architecture.md show. "Could not run" (5) is distinct from "rejected"
 * (1) so CI can tell "your patch is bad" from "vouch could not judge it".
 */
export const EXIT = {
  /** Verified / accepted / success. */
  ok: 0,
  /** Rejected: the patch, bundle, log or attestation does not verify. */
  rejected: 1,
  /** Usage error: bad flags, arguments, or an invalid contract file. */
  usage: 2,
  /** `run` only: the round or wall-clock budget ran out before a verified patch. */
  budget: 3,
  /** The coding backend failed (could not start, crashed, protocol error, timed out). */
  backendFailed: 4,
  /** vouch could not run: log lock held, log unreadable or tampered, sandbox unavailable, key unreadable, verify command cannot start, state directory unusable. */
  couldNotRun: 5,
  /** An internal error (a bug in vouch): one line on stderr; `VOUCH_DEBUG=1` adds the stack trace. */
  internal: 70,
  /** Cancelled (Ctrl-C / SIGINT): the verdict table's `killed` state. */
  killed: 130,
} as const;

/** One of the {@link EXIT} codes. */
export type ExitCode = typeof EXIT[keyof typeof EXIT];

/** One row of the exit-code table. */
export interface ExitCodeRow {
  /** The code. */
  readonly code: ExitCode;
  /** A few words, as help texts show it after the number. */
  readonly label: string;
  /** What it means, for the documentation table. */
  readonly meaning: string;
  /** Whether every command can exit with it (otherwise only the commands that say so). */
  readonly shared: boolean;
}

/** The exit-code table: README.md shows exactly this (a test renders and compares it). */
export const EXIT_CODES: readonly ExitCodeRow[] = [
  {
    code: EXIT.ok,
    label: "verified",
    meaning: "verified / accepted: the patch, bundle, log or attestation holds",
    shared: false,
  },
  {
    code: EXIT.rejected,
    label: "rejected",
    meaning: "rejected: vouch judged it and it does not hold (your patch is bad)",
    shared: false,
  },
  {
    code: EXIT.usage,
    label: "usage",
    meaning: "usage error: unknown flag, bad argument, invalid contract file",
    shared: true,
  },
  {
    code: EXIT.budget,
    label: "budget exhausted",
    meaning: "`run`: the rounds or wall-clock budget ran out before a patch verified",
    shared: false,
  },
  {
    code: EXIT.backendFailed,
    label: "backend failed",
    meaning: "`run`: the coding agent could not start, crashed, broke its protocol or timed out",
    shared: false,
  },
  {
    code: EXIT.couldNotRun,
    label: "could not run",
    meaning:
      "vouch could not judge: log lock held, log unreadable or tampered, `.vouch` unusable, sandbox unavailable, key unreadable, verify command cannot start",
    shared: true,
  },
  {
    code: EXIT.internal,
    label: "internal error",
    meaning: "a bug in vouch: one line on stderr; `VOUCH_DEBUG=1` adds the stack trace",
    shared: true,
  },
  {
    code: EXIT.killed,
    label: "cancelled",
    meaning:
      "cancelled (Ctrl-C / SIGINT); `run` first stops the agent and cleans up (a second Ctrl-C leaves at once)",
    shared: true,
  },
];

/**
 * The "Exit codes:" paragraph of a command's help: its own outcome codes in
 * its words, then the codes every command shares.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { renderExitCodes } from "./command.ts";
 * equal(
 *   renderExitCodes({ 0: "accept", 1: "reject" }),
 *   "Exit codes: 0 accept, 1 reject; any command: 2 usage, 5 could not run, 70\n" +
 *     "  internal error, 130 cancelled.\n",
 * );
 * ```
 */
export function renderExitCodes(exits: CommandExits): string {
  const own = (Object.entries(exits) as [string, string][])
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([code, words]) => `${code} ${words}`);
  const shared = EXIT_CODES.filter((r) => r.shared).map((r) => `${r.code} ${r.label}`);
  return wrapHelpLine(`Exit codes: ${own.join(", ")}; any command: ${shared.join(", ")}.`);
}

/**
 * The exit-code table as Markdown (what README.md shows).
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { exitCodeTableMarkdown } from "./command.ts";
 * ok(exitCodeTableMarkdown().includes("| `5` | could not run |"));
 * ```
 */
export function exitCodeTableMarkdown(): string {
  const rows = EXIT_CODES.map((r) => `| \`${r.code}\` | ${r.label} | ${r.meaning} |`);
  return ["| code | name | meaning |", "| --- | --- | --- |", ...rows].join("\n") + "\n";
}

/** Raised by a command for bad arguments; `main.ts` prints it and exits 2. */
export class UsageError extends VouchError<"usage"> {
  constructor(message: string) {
    super("usage", message);
  }
}
