/**
 * Text rendering of a run's progress and outcome for the terminal. Pure
 * functions over {@link RunProgress} and {@link RunOutcome}; the CLI decides
 * where the text goes.
 *
 * @module
 */
import type { CheckSummary, RunOutcome, RunProgress } from "../adapters/driver/outcome.ts";

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

/**
 * One progress line: `[  3.2s] round 2 · verify · check "tests"`.
 *
 * @example
 * ```ts
 * import { renderProgressLine } from "./render.ts";
 * const line = renderProgressLine({ phase: "verify", round: 2, check: "tests", elapsedMs: 3200 });
 * if (!line.includes("round 2")) throw new Error(line);
 * ```
 */
export function renderProgressLine(progress: RunProgress): string {
  const parts = [`[${seconds(progress.elapsedMs).padStart(7)}]`];
  parts.push(progress.round > 0 ? `round ${progress.round}` : "setup");
  parts.push(progress.phase);
  if (progress.check !== null) parts.push(`check "${progress.check}"`);
  if (progress.detail !== undefined && progress.detail !== "") parts.push(progress.detail);
  return parts.join(" · ");
}

function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => widths[i] = Math.max(widths[i] ?? 0, cell.length));
  }
  return rows.map((row) => row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join("  ").trimEnd())
    .join("\n");
}

function checksCell(checks: readonly CheckSummary[]): string {
  if (checks.length === 0) return "-";
  return checks.map((c) => `${c.name}:${c.passed ? "pass" : c.outcome}`).join(", ");
}

/**
 * The final summary: verdict line, a table of rounds, and where the artefacts are.
 *
 * @example
 * ```ts
 * import { renderSummary } from "./render.ts";
 * const text = renderSummary({
 *   task: "t1", state: "rejected", exitCode: 1, reason: "max_rounds", message: "no round passed",
 *   base: "0".repeat(40), baseline: [], rounds: [], patchFile: null, patchDigest: null,
 *   artefactsDir: "/r/.vouch/runs/t1", logPath: "/r/.vouch/events.jsonl", integrated: null,
 *   elapsedMs: 1000,
 * });
 * if (!text.includes("REJECTED")) throw new Error(text);
 * ```
 */
export function renderSummary(outcome: RunOutcome): string {
  const lines: string[] = [];
  lines.push(
    `${outcome.state.toUpperCase()} (${outcome.reason}) after ${
      seconds(outcome.elapsedMs)
    }: ${outcome.message}`,
  );
  lines.push("");
  const rows: string[][] = [[
    "round",
    "backend",
    "claimed done",
    "files",
    "verdict",
    "checks / reasons",
  ]];
  rows.push(["base", "-", "-", "-", "baseline", checksCell(outcome.baseline)]);
  for (const round of outcome.rounds) {
    const detail = round.checks.length > 0
      ? checksCell(round.checks)
      : round.reasons.join(", ") || "-";
    rows.push([
      String(round.round),
      round.backendStatus,
      round.selfClaimedDone ? "yes" : "no",
      String(round.filesChanged.length),
      round.verdict,
      round.checks.length > 0 && round.reasons.length > 0
        ? `${detail}; ${round.reasons.join(", ")}`
        : detail,
    ]);
  }
  lines.push(table(rows));
  // The cause of a backend failure belongs on screen, not only in round-N/backend_result.json.
  for (const round of outcome.rounds) {
    if (round.backendFailure !== undefined) {
      lines.push(`round ${round.round} backend: ${round.backendFailure.message}`);
    }
  }
  lines.push("");
  lines.push(`task:      ${outcome.task}`);
  lines.push(`base:      ${outcome.base.slice(0, 12)}`);
  if (outcome.patchFile !== null) lines.push(`patch:     ${outcome.patchFile}`);
  if (outcome.patchDigest !== null) lines.push(`digest:    ${outcome.patchDigest}`);
  if (outcome.integrated !== null) {
    lines.push(
      `branch:    ${outcome.integrated.branch} @ ${outcome.integrated.commit.slice(0, 12)}`,
    );
  }
  lines.push(`artefacts: ${outcome.artefactsDir}`);
  lines.push(`log:       ${outcome.logPath}`);
  return lines.join("\n") + "\n";
}
