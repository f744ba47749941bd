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
  /** Venvs bound into the tree from the host (see `hostVenvsOf`). */
  readonly hostVenvs?: readonly string[];
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
    ...(ctx.hostVenvs !== undefined ? { hostVenvs: ctx.hostVenvs } : {}),
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

/** One stream as captured: whole, or head and tail with the cut said. */
function streamText(label: string, s: ProcessResult["stdout"]): string {
  if (s.totalBytes === 0) return `--- ${label}: empty ---\n`;
  const body = !s.truncated
    ? s.head
    : `${s.head}\n[... ${
      s.totalBytes - new TextEncoder().encode(s.head + s.tail).length
    } bytes not kept (sha256 of the whole stream in the check's receipt) ...]\n${s.tail}`;
  return `--- ${label} (${s.totalBytes} bytes) ---\n${body}${body.endsWith("\n") ? "" : "\n"}`;
}

/**
 * The whole output of the checks that ran, in contract order, as one masked
 * text (SWE-bench's `test_output.txt`): each check's header (name, exit code,
 * duration), its stdout, its stderr; a stream longer than the capture keeps
 * its head and tail and says how much was cut.
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { checksOutputText } from "./_summaries.ts";
 * const text = checksOutputText([["unit", { exitCode: 1, durationMs: 12, spawnError: null,
 *   signal: null, timedOut: false, limit: null,
 *   stdout: { head: "1 failing\n", tail: "", truncated: false, totalBytes: 10, sha256: "" },
 *   stderr: { head: "", tail: "", truncated: false, totalBytes: 0, sha256: "" } } as never]]);
 * ok(text?.includes('=== check "unit": exit 1') && text.includes("1 failing"));
 * ```
 */
export function checksOutputText(
  results: Iterable<readonly [string, ProcessResult]>,
): string | undefined {
  const parts: string[] = [];
  for (const [name, r] of results) {
    const how = r.spawnError !== null
      ? `could not start: ${r.spawnError.message}`
      : `exit ${r.exitCode}${r.timedOut ? " (timed out)" : ""}`;
    parts.push(
      `=== check "${name}": ${how}, ${Math.round(r.durationMs)} ms ===\n` +
        streamText("stdout", r.stdout) + streamText("stderr", r.stderr),
    );
  }
  return parts.length === 0 ? undefined : maskSecrets(parts.join("\n")).text;
}
