/**
 * The one place a {@linkcode VerificationRun} is built: refusals, a failed
 * setup, the baseline (and its "cannot start" refusal) and a round, from the
 * runner's records, the kernel's judgement and the sealed receipts.
 *
 * @module
 */
import type {
  BaselineCapture,
  CheckJudgement,
  ContractJudgement,
  OutcomeContract,
} from "../../kernel/contract/types.ts";
import type { BaselineJudgement } from "../../kernel/contract/judge.ts";
import type { RoundCheckResult } from "../../kernel/lifecycle/events.ts";
import type { GitDiff } from "../../kernel/diff/types.ts";
import { judgeAppliedPatch } from "../../kernel/scope/judge_applied.ts";
import type { ChecksRun } from "../contract/run_checks.ts";
import { receiptDigest, type ToolReceipt } from "../receipts/receipt.ts";
import { sandboxLabel } from "../sandbox/profile.ts";
import { hostVenvsOf } from "../deps/python_env.ts";
import type { PatchCheckEvidence } from "../verified_patch/verified_patch.ts";
import type { CleanTree } from "../worktree/clean_tree.ts";
import { cannotStart } from "./check_detail.ts";
import { checksOutputText, setupSummary, summarize } from "./_summaries.ts";
import { setupEvidence, type SetupStep } from "./_setup_step.ts";
import type { CheckSummary, OracleReport, VerificationRun } from "./verifier.ts";
import type { BaseOracleJudgement } from "../../kernel/contract/two_oracles.ts";

/**
 * The kernel's outcome word of one judged check.
 *
 * @example
 * ```ts
 * import { outcomeOf } from "./_run_builder.ts";
 * if (outcomeOf({ name: "t", status: "captured", reasons: [] } as never) !== "pass") throw new Error();
 * ```
 */
export function outcomeOf(j: CheckJudgement): RoundCheckResult["outcome"] {
  return j.status === "passed" || j.status === "captured"
    ? "pass"
    : j.status === "inconclusive"
    ? "inconclusive"
    : "fail";
}

/** The kernel's view of one judged check, naming the receipt it rests on (if it ran). */
function toKernelOutcome(j: CheckJudgement, receipt: ToolReceipt | undefined): RoundCheckResult {
  return {
    id: j.name,
    outcome: outcomeOf(j),
    receipts: receipt === undefined ? [] : [receiptDigest(receipt)],
  };
}

/** A run refused before any check ran. */
export function refusedRun(code: string, message: string, sandbox = "none"): VerificationRun {
  return {
    ran: false,
    checks: [],
    summaries: [],
    passed: false,
    refusals: [code],
    diagnostics: [],
    sandbox,
    checkEvidence: [],
    receipts: [],
    setupReceipts: [],
    why: message,
    evidence: { refused: code, message },
  };
}

/**
 * Policy on git's own result of the apply (modes as git made them, symlinks,
 * gitlinks), and every mode the patch states checked against it; null when fine.
 */
export function appliedRefusal(
  diff: GitDiff | null,
  applied: CleanTree["applied"],
): VerificationRun | null {
  const judged = diff !== null
    ? judgeAppliedPatch(diff, applied)
    : { reasons: ["unparsable_patch"], violations: [] };
  if (judged.reasons.length === 0) return null;
  const detail = judged.violations.map((v) => `${v.code} ${JSON.stringify(v.path)}: ${v.detail}`);
  return {
    ...refusedRun(
      judged.reasons[0]!,
      `Cannot verify: git's result of applying the patch is refused (${
        [...judged.reasons].join(", ")
      })${detail.length > 0 ? `: ${detail.join("; ")}` : ""}`,
    ),
    refusals: [...judged.reasons],
  };
}

/** A run whose setup failed: nothing else ran. */
export function setupFailedRun(run: SetupStep, phase: "baseline" | "round"): VerificationRun {
  const summary = setupSummary(run.report);
  const why = `Cannot verify: setup command \`${run.report.failed}\` failed (${run.report.reason})`;
  return {
    ran: false,
    checks: [],
    summaries: [summary],
    passed: false,
    refusals: ["setup_failed"],
    diagnostics: [],
    sandbox: run.sandbox,
    checkEvidence: [],
    receipts: run.receipts,
    setupReceipts: run.receipts.map(receiptDigest),
    why,
    evidence: {
      phase,
      refused: "setup_failed",
      message: why,
      setup: setupEvidence(run),
      summaries: [summary],
    },
  };
}

/** What both the baseline and a round are built from. */
export interface RunParts {
  readonly contract: OutcomeContract;
  readonly base: string;
  readonly run: ChecksRun;
  readonly setup: SetupStep | null;
  /** The sealed receipt of each check that ran, by name. */
  readonly receipts: ReadonlyMap<string, ToolReceipt>;
  /** The tree the checks ran in. */
  readonly tree: string;
}

function commonOf(parts: RunParts) {
  const testOutput = checksOutputText(parts.run.results);
  return {
    output: testOutput === undefined ? {} : { testOutput },
    sandbox: sandboxLabel(parts.run.sandbox),
    receipts: [...(parts.setup?.receipts ?? []), ...parts.receipts.values()],
    setupReceipts: (parts.setup?.receipts ?? []).map(receiptDigest),
  };
}

/**
 * The baseline's run: refused (`verify_command_cannot_start`) when a check's
 * command cannot even start at the base (it proves nothing: stop before any
 * agent time is spent, saying which and why).
 */
export function baselineRun(parts: RunParts, judgement: BaselineJudgement): VerificationRun {
  const { run, setup } = parts;
  const ctx = {
    contract: parts.contract,
    captures: judgement.captures,
    tree: parts.tree,
    sandboxed: run.sandbox.kind === "bwrap",
    hostVenvs: run.sandbox.kind === "bwrap" ? hostVenvsOf(run.sandbox) : [],
  };
  const summaries = judgement.before.map((j) => summarize(j, run.results.get(j.name), ctx));
  const checks = judgement.before.map((j) => toKernelOutcome(j, parts.receipts.get(j.name)));
  const unstartable = [...run.results].filter(([, r]) => cannotStart(r)).map(([n]) => n);
  if (unstartable.length > 0) {
    const name = unstartable[0]!;
    const result = run.results.get(name)!;
    const cause = result.spawnError !== null
      ? `cannot start: ${result.spawnError.message}`
      : summaries.find((x) => x.name === name)?.detail ?? `exited ${result.exitCode}`;
    const why = `Cannot run the contract: check \`${name}\` cannot start at the base ` +
      `revision (${cause}); nothing was sent to the backend`;
    const common = commonOf(parts);
    return {
      ran: false,
      checks,
      summaries,
      passed: false,
      refusals: ["verify_command_cannot_start"],
      diagnostics: [],
      sandbox: common.sandbox,
      checkEvidence: [],
      receipts: common.receipts,
      setupReceipts: common.setupReceipts,
      ...common.output,
      why,
      cannotStart: unstartable,
      evidence: {
        phase: "baseline",
        refused: "verify_command_cannot_start",
        message: why,
        summaries,
      },
    };
  }
  const cannotRun = judgement.diagnostics.some((d) => d.code === "baseline_cannot_run") &&
    judgement.before.length === 0 && judgement.captures.length === 0;
  const common = commonOf(parts);
  return {
    ran: !cannotRun,
    checks,
    summaries,
    passed: judgement.before.every((j) => j.status === "passed"),
    refusals: [],
    diagnostics: judgement.refusal !== null ? [judgement.refusal.code] : [],
    sandbox: common.sandbox,
    checkEvidence: [],
    receipts: common.receipts,
    setupReceipts: common.setupReceipts,
    ...common.output,
    evidence: {
      phase: "baseline",
      base: parts.base,
      sandbox: common.sandbox,
      ...(setup !== null ? { setup: setupEvidence(setup) } : {}),
      diagnostics: judgement.diagnostics,
      refusal: judgement.refusal,
      checks: judgement.before,
      captures: judgement.captures,
      summaries,
    },
  };
}

/** A round's run: the gating checks judged on the patched clean tree. */
export function roundRun(
  parts: RunParts,
  round: number,
  judgement: ContractJudgement,
  captures: readonly BaselineCapture[],
  clean: CleanTree,
): VerificationRun {
  const { contract, run, setup } = parts;
  const gating = judgement.checks.filter((j) =>
    !(contract.checks.find((c) => c.name === j.name)?.baseline ?? false)
  );
  const ctx = {
    contract,
    captures,
    tree: parts.tree,
    sandboxed: run.sandbox.kind === "bwrap",
    hostVenvs: run.sandbox.kind === "bwrap" ? hostVenvsOf(run.sandbox) : [],
  };
  const summaries = gating.map((j) => summarize(j, run.results.get(j.name), ctx));
  const unstartable = gating.map((j) => j.name).filter((n) => {
    const r = run.results.get(n);
    return r !== undefined && cannotStart(r);
  });
  const checkEvidence: PatchCheckEvidence[] = gating.map((j) => {
    const receipt = parts.receipts.get(j.name);
    return {
      id: j.name,
      outcome: outcomeOf(j),
      receipt: receipt === undefined ? "sha256:" + "0".repeat(64) : receiptDigest(receipt),
    };
  });
  const common = commonOf(parts);
  return {
    ran: true,
    checks: gating.map((j) => toKernelOutcome(j, parts.receipts.get(j.name))),
    summaries,
    passed: judgement.verdict === "passed",
    refusals: [],
    diagnostics: [],
    sandbox: common.sandbox,
    checkEvidence,
    receipts: common.receipts,
    setupReceipts: common.setupReceipts,
    ...common.output,
    ...(unstartable.length > 0 ? { cannotStart: unstartable } : {}),
    evidence: {
      phase: "round",
      round,
      base: parts.base,
      sandbox: common.sandbox,
      ...(setup !== null ? { setup: setupEvidence(setup) } : {}),
      restoredProtected: clean.restored,
      changed: clean.changed,
      verdict: judgement.verdict,
      checks: judgement.checks,
      summaries,
    },
  };
}

/** The id prefix (and receipt tool infix) of the base-oracle grading's checks. */
export const BASE_TESTS = "base-tests:";

/** The second grading of a round: the patch's non-oracle part against the base's tests. */
export interface BaseGrading {
  readonly parts: RunParts;
  readonly judged: ReadonlyMap<string, BaseOracleJudgement>;
}

/** A round's run with its oracle report, and the base grading's checks when there was one. */
export function withOracle(
  round: VerificationRun,
  oracle: OracleReport,
  second: BaseGrading | null,
): VerificationRun {
  if (second === null) {
    return { ...round, oracle, evidence: { ...(round.evidence as object), oracle } };
  }
  const { parts, judged } = second;
  const entries = [...judged].map(([name, j]) => {
    const receipt = parts.receipts.get(name);
    const result = parts.run.results.get(name);
    const passed = j.verdict === "passed";
    const summary: CheckSummary = {
      name: `${name} (base's tests)`,
      passed,
      outcome: passed ? "pass" : "fail",
      exitCode: result?.exitCode ?? null,
      durationMs: Math.round(result?.durationMs ?? 0),
      outputTail: "",
      ...(passed ? {} : { detail: `graded against the base's tests: ${j.sentences.join("; ")}` }),
    };
    const check: RoundCheckResult = {
      id: `${BASE_TESTS}${name}`,
      outcome: passed ? "pass" : "fail",
      receipts: receipt === undefined ? [] : [receiptDigest(receipt)],
    };
    return { summary, check, passed, receipt };
  });
  const common = commonOf(parts);
  return {
    ...round,
    checks: [...round.checks, ...entries.map((e) => e.check)],
    summaries: [...round.summaries, ...entries.map((e) => e.summary)],
    passed: round.passed && entries.length > 0 && entries.every((e) => e.passed),
    checkEvidence: [
      ...round.checkEvidence,
      ...entries.map((e) => ({
        id: e.check.id,
        outcome: e.check.outcome,
        receipt: e.receipt === undefined ? "sha256:" + "0".repeat(64) : receiptDigest(e.receipt),
      })),
    ],
    receipts: [...round.receipts, ...common.receipts],
    setupReceipts: [...round.setupReceipts, ...common.setupReceipts],
    // Graded against the base's tests too: both runs' outputs, the patched tree's first.
    ...(round.testOutput !== undefined || common.output.testOutput !== undefined
      ? {
        testOutput: [round.testOutput, common.output.testOutput].filter((t) => t !== undefined)
          .join("\n=== graded against the base's tests ===\n"),
      }
      : {}),
    oracle,
    evidence: {
      ...(round.evidence as object),
      oracle,
      baseTests: {
        sandbox: common.sandbox,
        ...(parts.setup !== null ? { setup: setupEvidence(parts.setup) } : {}),
        judged: Object.fromEntries(judged),
      },
    },
  };
}
