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
import { tryParseGitDiff } from "../../kernel/diff/parse.ts";
import { judgeAppliedPatch } from "../../kernel/scope/judge_applied.ts";
import type { ChecksRun } from "../contract/run_checks.ts";
import { utf8Tail } from "../process/capture.ts";
import type { ProcessResult } from "../process/types.ts";
import { maskSecrets } from "../backends/transcript.ts";
import type { SetupReport } from "../deps/setup.ts";
import { receiptDigest, type ToolReceipt } from "../receipts/receipt.ts";
import { sandboxLabel } from "../sandbox/profile.ts";
import type { PatchCheckEvidence } from "../verified_patch/verified_patch.ts";
import type { CleanTree } from "../worktree/clean_tree.ts";
import { cannotStart, checkDetail } from "./check_detail.ts";
import { setupEvidence, type SetupStep } from "./_setup_step.ts";
import type { CheckSummary, VerificationRun } from "./verifier.ts";

const OUTPUT_TAIL_BYTES = 4096;

/** What summaries need to know about the run. */
interface SummaryContext {
  readonly contract: OutcomeContract;
  readonly captures: readonly BaselineCapture[];
  readonly tree: string;
  readonly sandboxed: boolean;
}

function summarize(
  judgement: CheckJudgement,
  result: ProcessResult | undefined,
  ctx: SummaryContext,
): CheckSummary {
  const check = ctx.contract.checks.find((c) => c.name === judgement.name);
  const against = check?.differential?.against;
  const capture = against === undefined ? undefined : ctx.captures.find((c) => c.name === against);
  const detail = checkDetail({
    judgement,
    ...(result !== undefined ? { result } : {}),
    timeoutMs: check?.timeoutMs ?? 0,
    ...(capture !== undefined ? { capture } : {}),
    sandboxed: ctx.sandboxed,
    tree: ctx.tree,
  });
  const passed = judgement.status === "passed" || judgement.status === "captured";
  const text = result === undefined
    ? ""
    : `${result.stdout.tail || result.stdout.head}\n${result.stderr.tail || result.stderr.head}`;
  const why = judgement.reasons.map((r) => `${r.code}: ${r.message}`).join("\n");
  return {
    name: judgement.name,
    passed,
    outcome: judgement.status === "passed" ? "pass" : judgement.status,
    exitCode: result?.exitCode ?? null,
    durationMs: Math.round(result?.durationMs ?? 0),
    outputTail: maskSecrets(
      utf8Tail(`${text.trim()}${why ? `\n${why}` : ""}`, OUTPUT_TAIL_BYTES),
    ).text,
    ...(judgement.tests !== undefined ? { tests: judgement.tests } : {}),
    ...(detail !== undefined ? { detail } : {}),
  };
}

function setupSummary(report: SetupReport): CheckSummary {
  const last = report.results.at(-1);
  const result = last?.result;
  const text = result === undefined
    ? ""
    : `${result.stdout.tail || result.stdout.head}\n${result.stderr.tail || result.stderr.head}`;
  const why = `setup_failed: ${report.failed ?? "?"} (${report.reason ?? "failed"})`;
  return {
    name: `setup: ${report.failed ?? "?"}`,
    passed: false,
    outcome: "setup_failed",
    exitCode: last !== undefined && last.command === report.failed ? last.result.exitCode : null,
    durationMs: Math.round(result?.durationMs ?? 0),
    outputTail: maskSecrets(utf8Tail(`${text.trim()}\n${why}`, OUTPUT_TAIL_BYTES)).text,
  };
}

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
  patch: Uint8Array,
  applied: CleanTree["applied"],
): VerificationRun | null {
  const parsed = tryParseGitDiff(patch);
  const judged = parsed.ok
    ? judgeAppliedPatch(parsed.diff, applied)
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
  return {
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
  const ctx = { contract, captures, tree: parts.tree, sandboxed: run.sandbox.kind === "bwrap" };
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
