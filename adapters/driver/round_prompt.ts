/**
 * The next round's prompt: what the previous round's real verification said
 * (failing checks' names and output tails, rejection reasons). Built only from
 * vouch's own evidence; the backend's claims are quoted nowhere.
 *
 * @module
 */
import type { CheckSummary } from "./outcome.ts";

/** The part of a round the prompt is built from. */
export interface PromptRound {
  readonly round: number;
  readonly reasons: readonly string[];
  readonly checks: readonly CheckSummary[];
  readonly backend: { readonly selfClaimedDone: boolean; readonly status: string } | null;
}

const NO_CHANGE = "backend_error_no_change";

/** Maximum characters of each check's output tail in the prompt. */
export const PROMPT_TAIL_CHARS = 2000;

/**
 * Builds the feedback text for the next round.
 *
 * @example
 * ```ts
 * import { roundPrompt } from "./round_prompt.ts";
 * const text = roundPrompt({
 *   round: 1, reasons: [], backend: { selfClaimedDone: true, status: "ok" },
 *   checks: [{ name: "tests", passed: false, outcome: "fail", exitCode: 1, durationMs: 5,
 *     outputTail: "expected 5, got -1" }],
 * }, null);
 * if (!text.includes("tests") || !text.includes("expected 5")) throw new Error(text);
 * ```
 */
export function roundPrompt(
  previous: PromptRound,
  baseline: { readonly summaries: readonly CheckSummary[] } | null,
): string {
  const lines: string[] = [];
  lines.push(`Round ${previous.round} was not verified by vouch.`);
  if (previous.backend?.selfClaimedDone) {
    lines.push("You reported the task as done, but vouch's own checks disagree.");
  }
  if (previous.backend !== null && previous.backend.status !== "ok") {
    lines.push(`Your previous run ended with status "${previous.backend.status}".`);
  }
  if (previous.reasons.includes("empty_patch") || previous.reasons.includes(NO_CHANGE)) {
    lines.push("Your previous run changed no files.");
  }
  const other = previous.reasons.filter((r) => r !== "empty_patch" && !r.startsWith("backend_"));
  if (other.length > 0) lines.push(`Rejection reasons: ${[...new Set(other)].join(", ")}.`);
  const failing = previous.checks.filter((c) => !c.passed);
  if (failing.length > 0) {
    lines.push("", "Failing checks (re-run by vouch in a clean checkout of your patch):");
    for (const c of failing) {
      lines.push("", `## ${c.name} (${c.outcome}, exit ${c.exitCode ?? "none"})`);
      const tail = c.outputTail.length > PROMPT_TAIL_CHARS
        ? c.outputTail.slice(-PROMPT_TAIL_CHARS)
        : c.outputTail;
      lines.push("```", tail.trimEnd(), "```");
    }
  }
  const baseFailing = baseline?.summaries.filter((c) => !c.passed).map((c) => c.name) ?? [];
  if (baseFailing.length > 0) {
    lines.push("", `Checks already failing before any change: ${baseFailing.join(", ")}.`);
  }
  lines.push("", "Fix the cause in the worktree; do not edit the tests that define done.");
  return lines.join("\n");
}
