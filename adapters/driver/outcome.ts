/**
 * The public result of one `vouch run`: its explicit final state, the exit code
 * the CLI maps it to, and a summary of every round.
 *
 * @module
 */
import { FINAL_STATES, type FinalState } from "../../kernel/lifecycle/outcome.ts";
import type { CheckSummary, OracleReport } from "../verification/verifier.ts";
import { VERDICTS } from "./verdicts.ts";

export type { CheckSummary };

/**
 * How a run ended: the kernel's final state of the task (`taskOutcome`).
 * Stable strings: they are persisted in logs and `--json` output.
 */
export type RunFinalState = FinalState;

/** Every final state, in a fixed order (for docs and exhaustiveness tests). */
export const RUN_FINAL_STATES: readonly RunFinalState[] = FINAL_STATES;

/**
 * The distinct process exit code of each final state, from the one verdict
 * table ({@linkcode VERDICTS}; 2 is reserved for usage errors): 0 verified,
 * 1 rejected, 3 budget exhausted, 4 backend failed, 5 could not run (vouch
 * could not judge: the baseline could not run, an effect failed), 130
 * cancelled (killed).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { RUN_EXIT_CODES } from "./outcome.ts";
 * equal(RUN_EXIT_CODES.verified, 0);
 * equal(RUN_EXIT_CODES.could_not_run, 5);
 * ```
 */
export const RUN_EXIT_CODES: Readonly<Record<RunFinalState, number>> = Object.fromEntries(
  FINAL_STATES.map((state) => [state, VERDICTS[state].exitCode]),
) as Record<RunFinalState, number>;

/** What happened in one backend round. */
export interface RoundSummary {
  /** 1-based round number. */
  readonly round: number;
  /** The backend's own status word (`ok`, `error`, `cancelled`, `timed_out`). */
  readonly backendStatus: string;
  /** Whether the backend claimed it was done (a claim, never trusted). */
  readonly selfClaimedDone: boolean;
  /** Files the real diff changes (from the supervisor's extraction, not the worker). */
  readonly filesChanged: readonly string[];
  /**
   * `verified` when this round's patch passed everything, `cancelled` when
   * Ctrl-C stopped the run before the round was judged, `not_verified` when
   * the run stopped (a budget) before the kernel judged it, else `rejected`.
   */
  readonly verdict: "verified" | "rejected" | "not_verified" | "cancelled";
  /** Stable reason codes for a rejection (scope violations, outside writes, failing checks...). */
  readonly reasons: readonly string[];
  /**
   * Why the round was rejected, one sentence each: a scope violation's path and
   * rule, the `git apply` error, the dependency change needing setup, each
   * failing check's detail ("timed out after 600 s", failing tests, a
   * differential's delta). Empty when verified.
   */
  readonly details: readonly string[];
  /**
   * How the oracle rule graded this round's patch (absent when no checks ran):
   * every decision in words (which test files changed, whether the base's
   * tests judged it too, per test or by exit code).
   */
  readonly oracle?: OracleReport;
  /** Per-check results of this round's clean re-verification (empty if it never got there). */
  readonly checks: readonly CheckSummary[];
  /** The backend's own failure report for this round, when it gave one (a claim). */
  readonly backendFailure?: { readonly code: string; readonly message: string };
  /** Tokens (and cost) the backend reported for this round, when it reported any (a claim). */
  readonly usage?: {
    readonly inputTokens: number;
    readonly outputTokens: number;
    readonly costUsd?: number;
  };
  /** Tool requests vouch refused this round, each with its reason (at most 20). */
  readonly refusals?: readonly string[];
}

/** The result of `runTask`. */
export interface RunOutcome {
  /** Task id (also the artefacts directory name under `.vouch/runs/`). */
  readonly task: string;
  /** How it ended. */
  readonly state: RunFinalState;
  /** Exit code for the CLI (see {@link RUN_EXIT_CODES}). */
  readonly exitCode: number;
  /** Stable reason code for the final state. */
  readonly reason: string;
  /** Human-readable explanation. */
  readonly message: string;
  /** Base revision (full commit id) every round started from. */
  readonly base: string;
  /** Baseline results (the unmodified tree). */
  readonly baseline: readonly CheckSummary[];
  /** Every round, in order. */
  readonly rounds: readonly RoundSummary[];
  /** Absolute path of the verified patch file, when verified. */
  readonly patchFile: string | null;
  /** `sha256:<hex>` of the verified patch, when verified. */
  readonly patchDigest: string | null;
  /** Directory with this run's artefacts. */
  readonly artefactsDir: string;
  /** Path of the event log. */
  readonly logPath: string;
  /** Set when the verified patch was committed on a new branch. */
  readonly integrated: { readonly branch: string; readonly commit: string } | null;
  /** Wall time of the whole run, in milliseconds. */
  readonly elapsedMs: number;
  /**
   * When the run ended `backend_failed`: the backend's own cause (e.g.
   * `claude: not found on PATH`, "claude: authentication failed (HTTP 401)").
   */
  readonly backendFailure?: { readonly code: string; readonly message: string };
}

/** Live progress, reported while a run proceeds (the CLI renders it on a terminal). */
export interface RunProgress {
  /** Current phase word: `baseline`, `backend`, `validate`, `verify`, `integrate`, `cleanup`, `done`. */
  readonly phase: string;
  /** Current round (0 before the first backend round). */
  readonly round: number;
  /** The check being run, if any. */
  readonly check: string | null;
  /** Milliseconds since the run started. */
  readonly elapsedMs: number;
  /** Optional short detail. */
  readonly detail?: string;
}
