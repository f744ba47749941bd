/**
 * The summaries of judged checks (for humans and the next round's prompt):
 * outcome word, exit code, masked output tail, one-sentence detail.
 *
 * @module
 */
import type {
  BaselineCapture,
  CheckJudgement,
  OutcomeContract,
} from "../../kernel/contract/types.ts";
import { utf8Tail } from "../process/capture.ts";
import type { ProcessResult } from "../process/types.ts";
import { maskSecrets } from "../backends/transcript.ts";
import type { SetupReport } from "../deps/setup.ts";
import { checkDetail } from "./check_detail.ts";
import type { CheckSummary } from "./verifier.ts";

/** Bytes of output tail a summary keeps. */
export const OUTPUT_TAIL_BYTES = 4096;

/** What summaries need to know about the run. */
export interface SummaryContext {
  readonly contract: OutcomeContract;
  readonly captures: readonly BaselineCapture[];
  readonly tree: string;
  readonly sandboxed: boolean;
}

/** The summary of one judged check. */
export function summarize(
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

/** The summary of a failed setup. */
export function setupSummary(report: SetupReport): CheckSummary {
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
