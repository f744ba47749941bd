/**
 * What the driver needs from contract verification: a baseline on the clean
 * base revision and a clean re-verification of a patch. `clean_verifier.ts`
 * implements it; tests may pass their own. It lives here, not in the driver,
 * so that verification never imports the driver (adapters/ is acyclic).
 *
 * @module
 */
import type { ListedTest } from "../../kernel/contract/types.ts";
import type { GitDiff } from "../../kernel/diff/types.ts";
import type { RoundCheckResult } from "../../kernel/lifecycle/events.ts";
import type { ToolReceipt } from "../receipts/receipt.ts";
import type { PatchCheckEvidence } from "../verified_patch/verified_patch.ts";

/** The result of one check in one evaluation, reduced to what a summary shows. */
export interface CheckSummary {
  /** The check's name from the contract. */
  readonly name: string;
  /** Whether it passed. */
  readonly passed: boolean;
  /** Stable outcome word from the contract evaluator (e.g. `pass`, `fail`, `inconclusive`). */
  readonly outcome: string;
  /** Exit code of the check's command, null if it never ran. */
  readonly exitCode: number | null;
  /** Duration in milliseconds. */
  readonly durationMs: number;
  /** The last few KiB of the check's output (masked), fed back to the next round on failure. */
  readonly outputTail: string;
  /** Every listed test's status in this run, when the check has test lists (failToPass/passToPass). */
  readonly tests?: readonly ListedTest[];
  /**
   * Why it did not pass, in one sentence (absent when it passed): "cannot start: ...",
   * "timed out after 600 s", the failing tests, a differential's delta, a path hidden
   * from the sandbox and the `--sandbox-ro` flag that shows it.
   */
  readonly detail?: string;
}

/** One oracle path a patch changed, and why it is the oracle. */
export interface OracleTouch {
  /** The changed path. */
  readonly path: string;
  /** `file`: the whole file is the oracle; `test-keys`: its test keys; `tests-inside`: doctests. */
  readonly scope: "file" | "test-keys" | "tests-inside";
  /** Why the path is the oracle. */
  readonly reasons: readonly string[];
}

/**
 * How a patch was graded under the oracle rule (the patch never defines the
 * test that judges it), every decision in words.
 */
export interface OracleReport {
  /**
   * `once`: the patch touches no oracle file (its tests are the base's);
   * `patch-and-base-tests`: it does, and it was graded by its own tests AND by
   * the base's (VERIFIED needs both); `patch-tests-only`: it does, and tests
   * were declared editable (`--tests-editable`), so only its own tests judged it.
   */
  readonly grading: "once" | "patch-and-base-tests" | "patch-tests-only";
  /** The oracle files the patch changed. */
  readonly touched: readonly OracleTouch[];
  /** Whether tests were declared editable (`--tests-editable` or the contract's `testsEditable`). */
  readonly testsEditable: boolean;
  /** `test`: judged per test (ids read from the output); `exit-code`: no ids could be read. */
  readonly level: "test" | "exit-code";
  /** Every decision, one sentence each. */
  readonly sentences: readonly string[];
}

/** The result of one contract evaluation. */
export interface VerificationRun {
  /** Whether the contract could run at all (a baseline that cannot run fails closed). */
  readonly ran: boolean;
  /** Per-check results for the kernel. */
  readonly checks: readonly RoundCheckResult[];
  /** Per-check summaries for humans and the next round's prompt. */
  readonly summaries: readonly CheckSummary[];
  /** Whether every gating check passed. */
  readonly passed: boolean;
  /** Reason codes when the run was refused before checks ran (e.g. `apply_failed`). */
  readonly refusals: readonly string[];
  /** Diagnostics about the contract itself (e.g. `baseline_gates_nothing`). */
  readonly diagnostics: readonly string[];
  /** The sandbox profile the checks ran in. */
  readonly sandbox: string;
  /** Evidence per check, citing its receipt (what a `VerifiedPatch` carries). */
  readonly checkEvidence: readonly PatchCheckEvidence[];
  /** Receipts of every command this run performed for the verdict. */
  readonly receipts: readonly ToolReceipt[];
  /**
   * `receiptDigest`s of the setup commands' receipts (in order; also in
   * `receipts`). Each check's own receipts are named by its `RoundCheckResult`.
   */
  readonly setupReceipts: readonly string[];
  /**
   * Why the run was refused or could not run, in one sentence (the `git apply`
   * error, the dependency change that needs setup, the check that cannot start).
   */
  readonly why?: string;
  /**
   * The whole output of the run's checks as captured (stdout then stderr of
   * each, masked; bounded by the capture: a middle cut out past
   * `CHECK_CAPTURE_BYTES` per stream is said so), written as the round's
   * `test_output.txt`. Absent when no check ran.
   */
  readonly testOutput?: string;
  /** Checks whose command could not start at all (not found, not executable: exit 126/127). */
  readonly cannotStart?: readonly string[];
  /** How the oracle rule graded the patch (a round that ran checks). */
  readonly oracle?: OracleReport;
  /**
   * A baseline taken from the baseline cache: the task whose baseline ran (the
   * receipts cited are its, in the same log), the base tree and when it ran.
   */
  readonly reusedFrom?: { readonly task: string; readonly tree: string; readonly at: number };
  /** JSON evidence to store as an artefact. */
  readonly evidence: unknown;
}

/** Clean verification, as the driver sees it. */
export interface Verifier {
  /** `sha256:` digest of the contract. */
  readonly contractDigest: string;
  /** Runs the contract on the untouched base revision. */
  baseline(signal: AbortSignal, onCheck: (name: string) => void): Promise<VerificationRun>;
  /**
   * Applies `patch` to a fresh tree of the base and runs the contract there;
   * `diff` is its parsed diff when the caller has it (the driver parsed the
   * round's patch once), else the verifier parses the bytes.
   */
  verify(
    round: number,
    patch: Uint8Array,
    signal: AbortSignal,
    onCheck: (name: string) => void,
    diff?: GitDiff,
  ): Promise<VerificationRun>;
  /** Waits for background cleanup (removal of verification trees) to finish. */
  settle(): Promise<void>;
}
