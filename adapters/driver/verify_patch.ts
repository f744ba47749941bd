/**
 * `vouch verify`: the same kernel and the same clean verification `vouch run`
 * uses, for a patch that came from anywhere (CI, a colleague, another tool).
 * The supplied patch is the patch source of a one-round task
 * (`suppliedPatch`: nothing is checked out for it). The patch is judged as
 * stated by the strict parser (scope, protected paths, sensitive classes); the contract runs in one clean tree of the base (after
 * the baseline when the contract needs one), where `git apply --index`
 * applies it and git's own result is judged too (every path git changed must
 * be one the patch names, with the modes it states); and the `VerifiedPatch`
 * is minted only when the kernel says `verified`. Its log replays
 * like a run's, and `vouch inspect` shows its states and durations.
 *
 * @module
 */
import { stat } from "node:fs/promises";
import type { SandboxProbe } from "../host/sandbox_probe.ts";
import type { CheckSlots } from "../verification/check_slots.ts";
import { type CleanVerifierOptions, createCleanVerifier } from "../verification/clean_verifier.ts";
import type { CleanTreePool } from "../worktree/tree_pool.ts";
import type { PatchViolation } from "../../kernel/scope/judge_patch.ts";
import type { CheckSummary, RunFinalState, RunOutcome } from "./outcome.ts";
import { newTaskId } from "./task_defaults.ts";
import {
  cleanVerifierBase,
  openRepoState,
  type RepoTaskOptions,
  type TaskPlace,
  taskRules,
} from "./repo_task.ts";
import { locateRepo } from "../git/locate_repo.ts";
import { runTask } from "./run_task.ts";
import { suppliedPatch } from "./patch_source.ts";
import { baselineReuseOf, mintedPatchOf, scopeJudgementOf } from "./_final.ts";
import type { VerifiedPatch } from "../verified_patch/verified_patch.ts";
import type { OracleReport } from "../verification/verifier.ts";

/** Options of {@link verifyPatchInRepo}. */
export interface VerifyPatchOptions extends RepoTaskOptions {
  /** The patch bytes (`git diff --binary` format). */
  readonly patch: Uint8Array;
  /** Told each check as it runs, with its phase (`baseline` or `verify`). */
  readonly onCheck?: (phase: string, name: string) => void;
  /**
   * Run the contract on the untouched base first. It is what the verdict is
   * judged against: the baseline's failing tests must pass and its passing
   * tests must still pass (per test when the output shows test ids). Given
   * explicitly (or needed by baseline/differential checks or test lists), it
   * also gates: a contract that cannot run at the base ends the task. False
   * (`--no-baseline`): no test-level differential, only exit codes (and the
   * base's tests for a patch that touches them). @default true
   */
  readonly baseline?: boolean;
  /**
   * Where the event log (`events.jsonl`, with its lock) and `runs/<task>/`
   * artefacts live. Parallel verifications in one repository each need their
   * own (`vouch batch` gives every candidate one). @default `<top>/.vouch`
   */
  readonly stateDir?: string;
  /**
   * Cache the baseline in `<state dir>/baseline-cache/` (keyed by base tree,
   * contract digest and environment, MAC'd with the receipt key, used only
   * when this log holds its receipts). @default true
   */
  readonly baselineCache?: boolean;
  /** Told debugging lines (why the baseline cache missed), e.g. with `VOUCH_DEBUG`. */
  readonly onDebug?: (line: string) => void;
  /** Wall-time budget of the whole verification, in milliseconds. @default 6 hours */
  readonly wallTimeMs?: number;
}

/**
 * What vouch's own CLI and batch share across verifications (internal: not exported by the
 * package; an embedder verifies with {@link verifyPatchInRepo}, which shares nothing).
 */
export interface SharedVerification {
  /** Clean trees shared across verifications of the same base (`vouch batch`); see `CleanTreePool`. */
  readonly treePool?: CleanTreePool;
  /** A sandbox probe shared across verifications (`vouch batch`); see `CleanVerifierOptions`. */
  readonly sandboxProbe?: Promise<SandboxProbe>;
  /** Check slots shared across verifications (`vouch batch`); see `CleanVerifierOptions`. */
  readonly checkSlots?: CheckSlots;
}

/**
 * What `vouch verify --json` prints and the event log records (`verify.outcome`): the outcome
 * with the VerifiedPatch named by its file (`verifiedPatch`: the path of
 * `runs/<task>/verified_patch.json`, or `null`).
 */
export interface VerifyPatchReport {
  /** The verification task's id. */
  readonly task: string;
  /** Whether the patch was verified. */
  readonly verdict: "verified" | "rejected";
  /**
   * The kernel's final state of the verification task (`verified`, `rejected`,
   * `could_not_run` when vouch could not judge, `budget_exhausted`, `killed`).
   */
  readonly state: RunFinalState;
  /** The process exit code for this state (see `RUN_EXIT_CODES`). */
  readonly exitCode: number;
  /** Why it did not verify, most specific first (empty when verified). */
  readonly reasons: readonly string[];
  /** Digest of the patch bytes. */
  readonly patchDigest: string;
  /** The resolved base commit. */
  readonly base: string;
  /** Scope and protected-path violations of the patch. */
  readonly violations: readonly PatchViolation[];
  /** Sensitive classes the patch touches. */
  readonly sensitive: readonly string[];
  /** The checks' results on the untouched base. */
  readonly baseline: readonly CheckSummary[];
  /** The checks' results with the patch applied. */
  readonly checks: readonly CheckSummary[];
  /** Path of the VerifiedPatch's JSON form (`runs/<task>/verified_patch.json`), when verified. */
  readonly verifiedPatch: string | null;
  /** Path of the event log the verification was recorded in. */
  readonly logPath: string;
  /**
   * Why it was rejected, one sentence each, in order: scope violations (path and
   * rule), the refusal (`git apply` error, dependency change needing setup, a
   * check that cannot start), each failing check's detail. Empty when verified.
   */
  readonly details: readonly string[];
  /**
   * Path of the round's `test_output.txt`: the whole output of every check
   * (stdout and stderr, masked; bounded per stream by the capture, a cut
   * middle said so). Absent when no check ran on the patch.
   */
  readonly testOutput?: string;
  /**
   * How the oracle rule graded the patch (absent when no round ran checks):
   * once (it touches no test), by its own tests and the base's, or (tests
   * editable) by its own only; per test or by exit code; every decision in words.
   */
  readonly oracle?: OracleReport;
}

/** The result of {@link verifyPatchInRepo}: the report, with the VerifiedPatch itself. */
export interface VerifyPatchOutcome extends Omit<VerifyPatchReport, "verifiedPatch"> {
  /**
   * The VerifiedPatch the kernel minted, when verified (else `null`). Check it with
   * `assertVerifiedPatch(outcome.verifiedPatch, key)` before any consequential use.
   */
  readonly verifiedPatch: VerifiedPatch | null;
  /** Path of its JSON form (`runs/<task>/verified_patch.json`), when verified. */
  readonly verifiedPatchPath: string | null;
  /**
   * The baseline came from the baseline cache: the base tree, when it ran
   * (ms since epoch) and the task whose receipts it cites. Null: it ran now
   * (or none ran: `--no-baseline`).
   */
  readonly baselineCached:
    | { readonly tree: string; readonly at: number; readonly task: string }
    | null;
}

/**
 * The JSON report of an outcome (what `vouch verify --json` prints): `verifiedPatch` is the
 * path of the VerifiedPatch's JSON form.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { type VerifyPatchOutcome, verifyPatchReport } from "./verify_patch.ts";
 * const rejected = { verdict: "rejected", verifiedPatch: null, verifiedPatchPath: null };
 * const report = verifyPatchReport(rejected as unknown as VerifyPatchOutcome);
 * equal(report.verifiedPatch, null);
 * equal("verifiedPatchPath" in report, false);
 * ```
 */
export function verifyPatchReport(outcome: VerifyPatchOutcome): VerifyPatchReport {
  const { verifiedPatchPath: _path, baselineCached: _cached, ...rest } = {
    ...outcome,
    verifiedPatch: outcome.verifiedPatchPath,
  };
  return rest;
}

/**
 * Verifies a patch in a clean tree of the base, through the kernel.
 *
 * @example
 * ```ts ignore
 * import { verifyPatchInRepo } from "./verify_patch.ts";
 * const r = await verifyPatchInRepo({ dir: ".", patch, contract });
 * console.log(r.verdict, r.exitCode);
 * ```
 */
export function verifyPatchInRepo(opts: VerifyPatchOptions): Promise<VerifyPatchOutcome> {
  return verifyPatchSharing(opts);
}

/**
 * {@link verifyPatchInRepo} with resources shared across verifications (a batch's tree pool,
 * sandbox probe and check slots; the CLI's probe): what `vouch verify` and `vouch batch` call.
 */
export async function verifyPatchSharing(
  opts: VerifyPatchOptions & SharedVerification,
): Promise<VerifyPatchOutcome> {
  const rules = taskRules(opts);
  // Only the top level, the git dir and the base are needed (a dirty checkout is irrelevant here).
  const state = await openRepoState({
    repo: await locateRepo(opts.dir, opts.base ?? "HEAD"),
    ...(opts.stateDir !== undefined ? { stateDir: opts.stateDir } : {}),
    ...(opts.keyEnv !== undefined ? { keyEnv: opts.keyEnv } : {}),
    ...(opts.onNote !== undefined ? { onNote: opts.onNote } : {}),
  });
  const { stateDir, key, log, receipts } = state;
  const task = newTaskId();
  try {
    // The supplied bytes are the round's patch: hashed and parsed once (once the repository is
    // found), judged as stated, applied by git in the clean tree.
    const source = suppliedPatch(opts.patch, "patch");
    const patchDigest = source.digest;
    const verifier = createCleanVerifier(
      cleanVerifierOptions(opts, { top: state.top, base: state.base, taskId: task, receipts }, {
        dir: `${stateDir}/baseline-cache`,
        key,
        logPath: log.path,
        ...(opts.onDebug !== undefined ? { onDebug: opts.onDebug } : {}),
      }),
    );
    const artefactsDir = `${stateDir}/runs/${task}`;
    const run = await runTask({
      repo: state.top,
      base: state.base,
      goal: `verify the supplied patch ${patchDigest}`,
      source,
      verifier,
      rules,
      maxRounds: 1,
      wallTimeMs: opts.wallTimeMs ?? 6 * 3_600_000,
      log,
      key,
      artefactsDir,
      taskId: task,
      baseline: opts.baseline ?? true,
      ...(opts.treeRemoval !== undefined ? { treeRemoval: opts.treeRemoval } : {}),
      onProgress: (p) => {
        if (p.check !== null && (p.phase === "baseline" || p.phase === "verify")) {
          opts.onCheck?.(p.phase, p.check);
        }
      },
    });
    const outcome = await outcomeOfRun(run, artefactsDir, {
      patchDigest,
      logPath: log.path,
    });
    await log.append({
      task,
      kind: "verify.outcome",
      body: JSON.parse(JSON.stringify(verifyPatchReport(outcome))),
    });
    return outcome;
  } finally {
    await log.close();
  }
}

/**
 * The clean verifier's options for one supplied patch: one round, whose tree is
 * used by the baseline (when there is one) and each grading.
 */
function cleanVerifierOptions(
  opts: VerifyPatchOptions & SharedVerification,
  at: TaskPlace,
  cache: NonNullable<CleanVerifierOptions["baselineCache"]>,
): CleanVerifierOptions {
  const contract = opts.contract;
  // Test lists need the base's statuses (failToPass must fail there, passToPass pass).
  const needsCaptures = contract.checks.some((c) =>
    c.baseline || c.differential !== null || c.testLists !== undefined
  );
  return {
    ...cleanVerifierBase(opts, at),
    ...(opts.treePool !== undefined ? { pool: opts.treePool } : {}),
    ...(opts.sandboxProbe !== undefined ? { sandboxProbe: opts.sandboxProbe } : {}),
    ...(opts.checkSlots !== undefined ? { checkSlots: opts.checkSlots } : {}),
    rounds: 1,
    // An implicit baseline is only the reference the round is judged against.
    baselineGates: opts.baseline === true || needsCaptures,
    ...(opts.baselineCache ?? true ? { baselineCache: cache } : {}),
  };
}

/** The outcome of a verification's run, with the scope judgement the driver held. */
async function outcomeOfRun(
  run: RunOutcome,
  artefactsDir: string,
  known: Pick<VerifyPatchOutcome, "patchDigest" | "logPath">,
): Promise<VerifyPatchOutcome> {
  const scope = scopeJudgementOf(run);
  const testOutput = `${artefactsDir}/round-1/test_output.txt`;
  const hasTestOutput = await stat(testOutput).then(() => true, () => false);
  const verified = run.state === "verified";
  const round = run.rounds[0];
  return {
    task: run.task,
    verdict: verified ? "verified" : "rejected",
    state: run.state,
    exitCode: run.exitCode,
    reasons: verifyReasons(run),
    patchDigest: known.patchDigest,
    base: run.base,
    violations: scope.violations,
    sensitive: scope.sensitive,
    baseline: run.baseline,
    checks: round?.checks ?? [],
    verifiedPatch: verified ? mintedPatchOf(run) : null,
    logPath: known.logPath,
    details: verified ? [] : (round?.details ?? [run.message]),
    verifiedPatchPath: verified ? `${artefactsDir}/verified_patch.json` : null,
    baselineCached: baselineReuseOf(run),
    ...(hasTestOutput ? { testOutput } : {}),
    ...(round?.oracle !== undefined ? { oracle: round.oracle } : {}),
  };
}

/**
 * Why a verification did not verify, most specific first: what ended the task
 * before any round (a baseline that cannot run or gates nothing), the round's
 * own reasons (violations, `policy_denied:<class>`, refusals such as
 * `apply_failed` or `setup_failed`), then `checks_failed` when a check ran and failed.
 */
function verifyReasons(run: RunOutcome): string[] {
  if (run.state === "verified") return [];
  const round = run.rounds[0];
  const reasons = [
    ...(round === undefined ? [run.reason] : round.reasons),
    ...(round !== undefined && round.checks.some((c) => !c.passed) ? ["checks_failed"] : []),
  ];
  if (reasons.length === 0) reasons.push(run.reason);
  return [...new Set(reasons)];
}
