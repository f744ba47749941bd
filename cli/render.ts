/**
 * Text rendering of a run's progress and outcome for the terminal. Pure
 * functions over {@link RunProgress} and {@link RunOutcome}; the CLI decides
 * where the text goes.
 *
 * @module
 */
import type {
  CheckSummary,
  RoundSummary,
  RunOutcome,
  RunProgress,
} from "../adapters/driver/outcome.ts";
import { VERDICTS } from "../adapters/driver/verdicts.ts";
import type { VerifyPatchReport } from "../adapters/driver/verify_patch.ts";

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
  const words = progressWords(progress);
  if (words !== null) return [...parts, words].join(" · ");
  parts.push(progress.phase);
  if (progress.check !== null) parts.push(`check "${progress.check}"`);
  if (progress.detail !== undefined && progress.detail !== "") parts.push(progress.detail);
  return parts.join(" · ");
}

/**
 * The kernel's status notifications in the words of what happened: an
 * ordinary end of rounds is "rejected after N rounds", not `paused ·
 * budget_repair_rounds` followed by `killed · killed`.
 */
function progressWords(progress: RunProgress): string | null {
  const n = progress.round;
  const rounds = `${n} round${n === 1 ? "" : "s"}`;
  if (progress.phase === "paused") {
    if (progress.detail === "budget_repair_rounds") return `rejected after ${rounds}`;
    // The state is backend_failed (the verdict table's words), not a rejection.
    if (progress.detail === "backend_failed") {
      return `${VERDICTS.backend_failed.label} in ${
        n === 1 ? "its only round" : `all ${rounds}`
      }; stopping`;
    }
    if (progress.detail === "budget_wall_time") return "out of time (--timeout); stopping";
    if (progress.detail?.startsWith("budget_")) {
      return `out of budget (${
        progress.detail.slice("budget_".length).replaceAll("_", " ")
      }); stopping`;
    }
    return `stopping${progress.detail ? ` (${progress.detail})` : ""}`;
  }
  if (progress.phase === "killed") return "stopped";
  return null;
}

function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => widths[i] = Math.max(widths[i] ?? 0, cell.length));
  }
  return rows.map((row) => row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join("  ").trimEnd())
    .join("\n");
}

function checksCell(checks: readonly CheckSummary[], cancelled = false): string {
  if (checks.length === 0) return "-";
  return checks.map((c) =>
    `${c.name}:${
      c.passed ? "pass" : cancelled && c.detail === "cancelled" ? "cancelled" : c.outcome
    }`
  ).join(", ");
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
  const n = outcome.rounds.length;
  const headline = outcome.state === "rejected" && outcome.reason === "max_rounds"
    ? `REJECTED after ${n} round${n === 1 ? "" : "s"} (${seconds(outcome.elapsedMs)})`
    : outcome.state === "killed" && outcome.reason === "killed"
    ? `${VERDICTS.killed.word} after ${seconds(outcome.elapsedMs)}`
    : `${VERDICTS[outcome.state].word} (${outcome.reason}) after ${seconds(outcome.elapsedMs)}`;
  lines.push(`${headline}: ${outcome.message}`);
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
      ? checksCell(round.checks, round.verdict === "cancelled")
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
  // How the oracle rule graded the last judged round, in words (which test files the patch
  // changed, whether the base's tests judged it too), as `vouch verify` prints it.
  const graded = outcome.rounds.findLast((r) => r.oracle !== undefined)?.oracle;
  const [first, ...rest] = graded?.sentences ?? [];
  if (first !== undefined) lines.push(`tests: ${first}`, ...rest.map((s) => `  ${s}`));
  // The cause of a backend failure belongs on screen, not only in round-N/backend_result.json.
  for (const round of outcome.rounds) {
    if (round.backendFailure !== undefined) {
      lines.push(`round ${round.round} backend: ${round.backendFailure.message}`);
    }
  }
  const used = outcome.rounds.filter((r) => r.usage !== undefined);
  if (used.length > 0) {
    const sum = (f: (u: NonNullable<RoundSummary["usage"]>) => number) =>
      used.reduce((n, r) => n + f(r.usage!), 0);
    const cost = used.some((r) => r.usage!.costUsd !== undefined)
      ? ` · $${sum((u) => u.costUsd ?? 0).toFixed(4)}`
      : "";
    lines.push(
      `tokens: in ${sum((u) => u.inputTokens)} · out ${sum((u) => u.outputTokens)}${cost}`,
    );
  }
  lines.push("");
  // Why, for the last round that was judged (earlier rounds are in the artefacts).
  const last = outcome.state === "verified" ? undefined : outcome.rounds.at(-1);
  const why = [
    ...outcome.baseline.filter((c) => !c.passed && c.detail !== undefined && n === 0)
      .map((c) => `baseline check "${c.name}": ${c.detail}`),
    ...(last?.details ?? []),
    ...(last?.refusals ?? []).map((r) => `vouch ${r}`),
  ];
  if (why.length > 0) {
    lines.push(n > 0 ? `why (round ${n}):` : "why:");
    for (const d of why) lines.push(...d.split("\n").map((l) => `  ${l}`));
    for (const c of last?.checks ?? []) {
      if (!c.passed && c.outputTail.trim() !== "") {
        lines.push(`  output of "${c.name}" (last lines):`, ...tailLines(c.outputTail, 12, "    "));
      }
    }
    // A check that ran and failed left the round's whole output beside its evidence.
    if (n > 0 && (last?.checks ?? []).some((c) => !c.passed && c.exitCode !== null)) {
      lines.push(`  whole output: ${outcome.artefactsDir}/round-${n}/test_output.txt`);
    }
    lines.push("");
  }
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

/** The lines of `text` after the last `keep` non-empty ones, indented for a summary. */
function tailLines(text: string, keep: number, indent: string): string[] {
  const lines = text.trimEnd().split("\n");
  return lines.slice(Math.max(0, lines.length - keep)).map((l) => `${indent}| ${l}`.trimEnd());
}

/**
 * What {@linkcode renderVerifyOutcome} shows: the fields of a `vouch verify`
 * report it reads (the kernel's final state, when given, heads the result with
 * its word from the verdict table; the check output is named when the patch did
 * not verify; the oracle's grading is said in words).
 */
export type VerifyOutcomeView =
  & Pick<
    VerifyPatchReport,
    "verdict" | "patchDigest" | "reasons" | "details" | "baseline" | "checks" | "verifiedPatch"
  >
  & Partial<Pick<VerifyPatchReport, "state" | "testOutput" | "oracle">>;

/**
 * The human result of `vouch verify`: verdict, reason codes, WHY (each
 * detail sentence), every check with its detail, and the output tail of each
 * failing one.
 *
 * @example
 * ```ts
 * import { match } from "node:assert/strict";
 * import { renderVerifyOutcome } from "./render.ts";
 * const text = renderVerifyOutcome({
 *   verdict: "rejected", patchDigest: "sha256:ab", reasons: ["apply_failed"],
 *   details: ["Cannot apply patch in the clean tree: error: patch failed: a.js:1"],
 *   baseline: [], checks: [], verifiedPatch: null,
 * });
 * match(text, /why:\n  Cannot apply patch in the clean tree: error: patch failed: a\.js:1/);
 * ```
 */
export function renderVerifyOutcome(outcome: VerifyOutcomeView): string {
  const word = outcome.state !== undefined
    ? VERDICTS[outcome.state].word
    : outcome.verdict.toUpperCase();
  const lines = [`${word} ${outcome.patchDigest}`];
  if (outcome.reasons.length > 0) lines.push(`reasons: ${outcome.reasons.join(", ")}`);
  if (outcome.details.length > 0) {
    lines.push("why:");
    for (const d of outcome.details) lines.push(...d.split("\n").map((l) => `  ${l}`));
  }
  const show = (phase: string, checks: readonly CheckSummary[], tails: boolean) => {
    for (const c of checks) {
      const detail = c.passed || c.detail === undefined ? "" : `: ${c.detail}`;
      lines.push(
        `  ${phase}${c.passed ? "pass" : c.outcome} ${c.name} (${c.durationMs} ms)${detail}`,
      );
      if (tails && !c.passed && c.outputTail.trim() !== "") {
        lines.push(...tailLines(c.outputTail, 15, "    "));
      }
    }
  };
  // A base that fails is what a fix is for: under VERIFIED one line each, no output (the
  // receipts and artefacts keep it); when the patch did not verify, its tail may say why.
  const verified = outcome.verdict === "verified";
  show(
    verified ? "baseline (before the patch) " : "baseline ",
    outcome.baseline.filter((c) => !c.passed),
    !verified,
  );
  show("", outcome.checks, true);
  const [first, ...rest] = outcome.oracle?.sentences ?? [];
  if (first !== undefined) lines.push(`tests: ${first}`, ...rest.map((s) => `  ${s}`));
  if (outcome.verifiedPatch !== null) lines.push(`verified patch: ${outcome.verifiedPatch}`);
  if (!verified && outcome.testOutput !== undefined) {
    lines.push(`whole output: ${outcome.testOutput}`);
  }
  return lines.join("\n") + "\n";
}
