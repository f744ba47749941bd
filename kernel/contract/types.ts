/**
 * The outcome-contract model: what "done" means for a task, as checks vouch
 * runs itself. Plain data; the adapter validates the contract file into these.
 *
 * @module
 */

/** How a check is run: an argv spawned directly, or a shell string run as `sh -c`. */
export type CheckRun =
  | { readonly argv: readonly string[] }
  | { readonly shell: string };

/** What a check's output must show. */
export type Expectation =
  | { readonly kind: "exit-zero" }
  | { readonly kind: "output-contains"; readonly text: string }
  | { readonly kind: "json-equals"; readonly pointer: string; readonly value: ContractJsonValue };

/** A JSON value. */
export type ContractJsonValue =
  | null
  | boolean
  | number
  | string
  | readonly ContractJsonValue[]
  | { readonly [key: string]: ContractJsonValue };

/** What a differential check expects of its output compared with a baseline capture. */
export type DifferentialExpect =
  | { readonly kind: "changed" }
  | { readonly kind: "unchanged" }
  | { readonly kind: "delta-within"; readonly min: number | null; readonly max: number | null };

/** Compare this check's stdout with the capture of baseline check `against`. */
export interface Differential {
  /** Name of a `baseline: true` check. */
  readonly against: string;
  /** The expected relation. */
  readonly expect: DifferentialExpect;
}

/** Test-output formats the failing-test parsers understand. */
export type TestFormat =
  | "pytest"
  | "deno"
  | "node"
  | "jest"
  | "vitest"
  | "cargo"
  | "go"
  | "go-json"
  | "mocha"
  | "tap";

/** One check of a contract. */
export interface ContractCheck {
  /** Unique name. */
  readonly name: string;
  /** The command. */
  readonly run: CheckRun;
  /** All must hold (empty only for baseline and differential checks). */
  readonly expect: readonly Expectation[];
  /** Timeout in milliseconds (clamped by the run's deadline). */
  readonly timeoutMs: number;
  /** Capture-only: run on the unmodified tree, output kept for differentials; gates nothing itself. */
  readonly baseline: boolean;
  /** Compare against a baseline capture at every later evaluation. */
  readonly differential: Differential | null;
  /** When set, the output is parsed for failing tests and the SWE-bench-like guard applies. */
  readonly tests: TestFormat | null;
  /**
   * Test-level grading (needs `tests`): the listed tests are judged one by one
   * from the parsed output instead of the exit code. Absent: no lists.
   */
  readonly testLists?: TestLists;
}

/**
 * SWE-bench's lists: `failToPass` tests must fail on the base and pass after
 * the change; `passToPass` tests must pass on both. A listed test the output
 * does not show counts as failed.
 */
export interface TestLists {
  /** Test ids (as the parser names them) that must go from failing to passing. */
  readonly failToPass: readonly string[];
  /** Test ids that must pass before and after. */
  readonly passToPass: readonly string[];
  /**
   * The number of tests that ran at baseline, when the lists were derived from
   * one: fewer tests running after the change fails the check
   * (`tests_fewer_ran`). Absent: not judged.
   */
  readonly minRan?: number;
  /**
   * Hooks that failed at baseline (mocha's `suite "before each" hook for "x"`):
   * graded with `failToPass`, but a hook passes by not failing, since a hook
   * that works is never listed. Absent: none.
   */
  readonly failingHooks?: readonly string[];
}

/** Which list a graded test belongs to. */
export type TestListName = "failToPass" | "passToPass";

/**
 * A listed test's status in one run: `missing` when the output does not show
 * it, `skipped` when it shows it skipped (both are failures).
 */
export type ListedTestStatus = "passed" | "failed" | "skipped" | "missing";

/** One listed test's status in one run. */
export interface ListedTest {
  /** The test id. */
  readonly id: string;
  /** Its list. */
  readonly list: TestListName;
  /** What the output showed. */
  readonly status: ListedTestStatus;
}

/** A validated outcome contract. */
export interface OutcomeContract {
  /** What the contract proves, for humans. */
  readonly description: string;
  /** The checks, in order. */
  readonly checks: readonly ContractCheck[];
  /** Globs of paths a patch may not touch (e.g. the tests that define done). */
  readonly protect: readonly string[];
  /**
   * Commands run in the clean tree before the baseline and before each
   * verification (e.g. `npm ci`); absent means none. With setup, the user's
   * installed dependency directories are not linked in: setup installs them.
   */
  readonly setup?: ContractSetup;
  /** What the checks' sandbox must also show and the limits it enforces (absent: defaults). */
  readonly sandbox?: ContractSandbox;
  /**
   * `sha256:<hex>` of the RFC 8785 canonical JSON of the contract FILE this
   * contract was read from (its JSON value as given), or of the equivalent file
   * of `--verify CMD`: what a VerifiedPatch records as `contractDigest`, so a
   * consumer holding the file can recompute it. Absent for contracts built in
   * code: their digest is that of this object's canonical JSON.
   */
  readonly sourceDigest?: string;
  /**
   * The patch may redefine the tests (opt-out of the oracle rule): a patch that
   * touches test files is graded against its own tests only, and the verdict
   * and receipts say so. Absent: false (the base's tests judge it too).
   */
  readonly testsEditable?: boolean;
}

/** A contract's sandbox needs: declared read-only paths outside the tree, resource limits. */
export interface ContractSandbox {
  /** Absolute paths outside the clean tree the checks need, mounted read-only (recorded in receipts). */
  readonly readOnly: readonly string[];
  /** Per-check limits; a field left out keeps its default. */
  readonly limits: ContractLimits;
  /** Limits of the agent's sandbox (`vouch run`); a field left out keeps its default. */
  readonly agentLimits: ContractLimits;
}

/** Resource limits a contract sets (MiB or counts); absent fields keep their defaults. */
export interface ContractLimits {
  /** Resident memory of the process tree, MiB. */
  readonly memoryMb?: number;
  /** Processes alive at once. */
  readonly processes?: number;
  /** Largest file it may write, MiB. */
  readonly fileSizeMb?: number;
  /** Size of its private /tmp and /dev/shm, MiB. */
  readonly tmpMb?: number;
  /** How much it may grow its tree, MiB. */
  readonly diskMb?: number;
  /** CPU time of each process, seconds (absent: only the timeout bounds it). */
  readonly cpuSeconds?: number;
}

/** A contract's setup step: commands run in order; the first failure fails the verification. */
export interface ContractSetup {
  /** The commands, in order (argv spawned directly, or a shell string run as `sh -c`). */
  readonly commands: readonly CheckRun[];
  /** Timeout of each command in milliseconds (clamped by the run's deadline). */
  readonly timeoutMs: number;
  /**
   * `allow`: setup needs the network (e.g. a package registry); used only when
   * the caller's policy also allows it (`--allow-setup-network`), else refused.
   * Checks never get the network.
   */
  readonly network: "deny" | "allow";
}

/** What the adapter observed when running one check. */
export interface CheckObservation {
  /** The check's name. */
  readonly name: string;
  /** Why the command could not execute at all, or `null`. */
  readonly cannotRun: string | null;
  /** Exit code (124 on timeout). */
  readonly exitCode: number;
  /** Whether the check timed out. */
  readonly timedOut: boolean;
  /** Stdout text available for matching (the whole stream unless truncated). */
  readonly stdout: string;
  /** Stderr text available for matching. */
  readonly stderr: string;
  /** Whether stdout was truncated (then `$json` checks cannot be judged). */
  readonly stdoutTruncated: boolean;
  /** `sha256:<hex>` of the full stdout. */
  readonly stdoutDigest: string;
  /** The last at most 4 KiB of stdout, cut on a UTF-8 boundary (what a baseline capture keeps). */
  readonly stdoutTail: string;
  /** Failing tests parsed from the output, when the check declares `tests`. */
  readonly testReport: TestReport | null;
  /** The sandbox limit the check exceeded, with its sentence (absent: none). */
  readonly limit?: {
    readonly kind: "memory" | "processes" | "file_size" | "tmp" | "disk" | "cpu";
    readonly message: string;
  };
}

/** What a test-output parser learned. An empty `failing` means "learned nothing". */
export interface TestReport {
  /** Failing test ids, in order, deduplicated. */
  readonly failing: readonly string[];
  /**
   * Passing test ids, in order, deduplicated, when the parser knows them
   * (absent: unknown). Test-level grading needs them.
   */
  readonly passing?: readonly string[];
  /**
   * Skipped (pending, ignored, todo) test ids, in order, deduplicated, when the
   * parser knows them (absent: unknown). A skipped test did not run.
   */
  readonly skipped?: readonly string[];
  /** How many tests ran according to a summary line, or `null` when unknown. */
  readonly ran: number | null;
}

/** What a baseline pass keeps of a capture-only check. */
export interface BaselineCapture {
  /** The check's name. */
  readonly name: string;
  /** Exit code on the unmodified tree. */
  readonly exitCode: number;
  /** Last at most 4 KiB of stdout. */
  readonly stdoutTail: string;
  /** `sha256:<hex>` of the full stdout. */
  readonly stdoutDigest: string;
}

/** Stable codes of check-judgement reasons. */
export type CheckReasonCode =
  | "cannot_run"
  | "timed_out"
  | "exit_nonzero"
  | "output_missing"
  | "json_unparsable"
  | "json_pointer_missing"
  | "json_mismatch"
  | "output_truncated"
  | "never_captured"
  | "differential_unchanged"
  | "differential_changed"
  | "not_a_number"
  | "delta_out_of_range"
  | "tests_exit_without_failures"
  | "tests_none_ran"
  | "tests_fail_to_pass_failed"
  | "tests_pass_to_pass_failed"
  | "tests_fewer_ran"
  | "limit_memory"
  | "limit_processes"
  | "limit_file_size"
  | "limit_tmp"
  | "limit_disk"
  | "limit_cpu";

/** One reason a check did not pass. */
export interface CheckReason {
  /** Stable code. */
  readonly code: CheckReasonCode;
  /** Human-readable detail. */
  readonly message: string;
}

/** Outcome of one check. */
export type CheckStatus = "passed" | "failed" | "inconclusive" | "captured";

/** Judgement of one check. */
export interface CheckJudgement {
  /** The check's name. */
  readonly name: string;
  /** The outcome. */
  readonly status: CheckStatus;
  /** Why it did not pass (empty when passed or captured). */
  readonly reasons: readonly CheckReason[];
  /** Failing tests parsed from its output, when known. */
  readonly failingTests: readonly string[];
  /** Every listed test's status in this run, when the check has `testLists`. */
  readonly tests?: readonly ListedTest[];
}

/** Judgement of a whole contract evaluation. */
export interface ContractJudgement {
  /** `passed` only when every gating check passed. */
  readonly verdict: "passed" | "failed" | "inconclusive";
  /** Per check, in contract order. */
  readonly checks: readonly CheckJudgement[];
}

/** Stable codes of baseline diagnostics. */
export type BaselineDiagnosticCode =
  | "baseline_cannot_run"
  | "baseline_gates_nothing"
  | "baseline_fail_to_pass_passes"
  | "baseline_pass_to_pass_fails";

/** A finding about the contract itself from the baseline pass. */
export interface BaselineDiagnostic {
  /** Stable code. */
  readonly code: BaselineDiagnosticCode;
  /** The checks concerned. */
  readonly checks: readonly string[];
  /** Human-readable detail. */
  readonly message: string;
}
