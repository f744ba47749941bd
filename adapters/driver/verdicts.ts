/**
 * The one verdict vocabulary: every way a vouch judgement can end, with the
 * word every command prints for it, its process exit code and the label
 * `vouch inspect` shows. `vouch run`, `vouch verify`, their `--json` (the
 * `state` and `exitCode` keys), `vouch inspect` and the README's verdict table
 * all read this table; a test keeps them in agreement.
 *
 * The first six rows are the kernel's final states of a task
 * ({@linkcode FINAL_STATES}); the last two are verdicts about a log file.
 *
 * @module
 */
import { FINAL_STATES, type FinalState } from "../../kernel/lifecycle/outcome.ts";

/** A verdict: a task's final state, or what `vouch inspect` found a log file to be. */
export type Verdict = FinalState | "tampered" | "not_a_log";

/** One row of {@linkcode VERDICTS}. */
export interface VerdictRow {
  /** The stable key (a final state, `tampered` or `not_a_log`), as `--json` carries it. */
  readonly key: Verdict;
  /** The word a command prints first (`VERIFIED`, `COULD NOT RUN`). */
  readonly word: string;
  /** The process exit code. */
  readonly exitCode: 0 | 1 | 3 | 4 | 5 | 130;
  /** The label `vouch inspect` shows for a task (or the log) that ended so. */
  readonly label: string;
  /** What it means, for the README's table. */
  readonly meaning: string;
}

/**
 * Every verdict, in the order the README shows them.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { VERDICTS } from "./verdicts.ts";
 * equal(VERDICTS.could_not_run.word, "COULD NOT RUN");
 * equal(VERDICTS.could_not_run.exitCode, 5);
 * equal(VERDICTS.killed.label, "cancelled");
 * ```
 */
export const VERDICTS: { readonly [V in Verdict]: VerdictRow } = {
  verified: {
    key: "verified",
    word: "VERIFIED",
    exitCode: 0,
    label: "verified",
    meaning: "every check passed in a clean tree; a VerifiedPatch was minted",
  },
  rejected: {
    key: "rejected",
    word: "REJECTED",
    exitCode: 1,
    label: "rejected",
    meaning: "vouch judged the patch and it does not hold (failing checks, scope, policy)",
  },
  budget_exhausted: {
    key: "budget_exhausted",
    word: "BUDGET EXHAUSTED",
    exitCode: 3,
    label: "budget exhausted",
    meaning: "the wall-clock, output or cost budget ran out before a patch verified",
  },
  backend_failed: {
    key: "backend_failed",
    word: "BACKEND FAILED",
    exitCode: 4,
    label: "backend failed",
    meaning: "the coding agent could not start, crashed, broke its protocol or timed out",
  },
  could_not_run: {
    key: "could_not_run",
    word: "COULD NOT RUN",
    exitCode: 5,
    label: "could not run",
    meaning:
      "vouch could not judge: a check cannot start, the baseline cannot run, the sandbox or a tree is unavailable",
  },
  killed: {
    key: "killed",
    word: "CANCELLED",
    exitCode: 130,
    label: "cancelled",
    meaning: "stopped by Ctrl-C (SIGINT): nothing was verified",
  },
  tampered: {
    key: "tampered",
    word: "TAMPERED",
    exitCode: 1,
    label: "tampered",
    meaning: "`inspect`: a vouch log whose chain, receipts, patches or evidence do not verify",
  },
  not_a_log: {
    key: "not_a_log",
    word: "NOT A VOUCH LOG",
    exitCode: 1,
    label: "not a vouch log",
    meaning: "`inspect`: the file is empty or its first line is not a vouch log record",
  },
};

/** The rows of {@linkcode VERDICTS} in table order. */
export const VERDICT_ROWS: readonly VerdictRow[] = [
  ...FINAL_STATES.map((s) => VERDICTS[s]),
  VERDICTS.tampered,
  VERDICTS.not_a_log,
];

/**
 * The verdict table as Markdown (what README.md shows between its markers).
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { verdictTableMarkdown } from "./verdicts.ts";
 * ok(verdictTableMarkdown().includes("| `could_not_run` | COULD NOT RUN | `5` | could not run |"));
 * ```
 */
export function verdictTableMarkdown(): string {
  const rows = VERDICT_ROWS.map((r) =>
    `| \`${r.key}\` | ${r.word} | \`${r.exitCode}\` | ${r.label} | ${r.meaning} |`
  );
  return [
    "| state | word | exit | `inspect` label | meaning |",
    "| --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n") + "\n";
}

/**
 * One line naming the given verdicts with their exit codes, for a command's `--help`.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { renderVerdictLine } from "./verdicts.ts";
 * equal(
 *   renderVerdictLine(["verified", "rejected"]),
 *   "Verdicts: VERIFIED (exit 0), REJECTED (exit 1).\n",
 * );
 * ```
 */
export function renderVerdictLine(verdicts: readonly Verdict[]): string {
  return wrapHelpLine(
    `Verdicts: ${
      verdicts.map((v) => `${VERDICTS[v].word} (exit ${VERDICTS[v].exitCode})`).join(", ")
    }.`,
  );
}

/**
 * `text` wrapped at 78 columns for a help screen, continuation lines indented
 * by two spaces, ending in a newline.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { wrapHelpLine } from "./verdicts.ts";
 * equal(wrapHelpLine("a b"), "a b\n");
 * equal(wrapHelpLine(`${"x".repeat(70)} yyyyyyyyyy`), `${"x".repeat(70)}\n  yyyyyyyyyy\n`);
 * ```
 */
export function wrapHelpLine(text: string): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > 78) {
      lines.push(line);
      line = `  ${word}`;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  return [...lines, line].join("\n") + "\n";
}
