/**
 * The run's outcome: the kernel's final state of the task
 * ({@linkcode taskOutcome}, a pure function of its record) with a human
 * message and the summaries the driver collected. No decision is made here:
 * the state and the stop reason come from the kernel; this only says them.
 *
 * @module
 */
import { type StopReason, taskOutcome } from "../../kernel/lifecycle/outcome.ts";
import type { PatchViolation } from "../../kernel/scope/judge_patch.ts";
import type { VerifiedPatch } from "../verified_patch/verified_patch.ts";
import type { VerificationRun } from "../verification/verifier.ts";
import type { RoundSummary, RunOutcome } from "./outcome.ts";
import { RUN_EXIT_CODES } from "./outcome.ts";
import type { RoundState, TaskRun } from "./_task_run.ts";
import { roundChecks, roundDetails, roundReasons } from "./_round_words.ts";

const unique = (xs: readonly string[]) => [...new Set(xs)];

function lastReasons(run: TaskRun): string {
  const last = run.rounds.at(-1);
  const reasons = last === undefined ? [] : roundReasons(last);
  return reasons.length > 0 ? `: ${unique(reasons).join(", ")}` : "";
}

function baselineWhy(run: TaskRun): string {
  const b = run.baseline;
  if (b === null) return "not run";
  return [...b.refusals, ...b.diagnostics].join(", ") ||
    (b.ran ? "unusable" : "baseline_cannot_run");
}

/** The backend's own cause of the last round it failed, for a `backend_failed` outcome. */
function lastFailureOf(
  run: TaskRun,
): { backendFailure: { code: string; message: string } } | Record<never, never> {
  const f = [...run.rounds].reverse().find((r) => r.backend?.failure !== undefined)?.backend
    ?.failure ?? run.startFailure ?? undefined;
  return f === undefined ? {} : { backendFailure: { code: f.code, message: f.message } };
}

function lastFailure(run: TaskRun): string {
  const f = [...run.rounds].reverse().find((r) => r.backend?.failure !== undefined)?.backend
    ?.failure;
  return f === undefined ? "" : `: ${f.message}`;
}

/** The message of each stop reason. */
const MESSAGE: { readonly [R in StopReason]: (run: TaskRun) => string } = {
  integrated: (run) => `verified and committed on ${run.integrated?.branch ?? "?"}`,
  verified_not_integrated: () => "every check passed in a clean tree",
  scope_violation: (run) => `the patch breaks the task's scope${lastReasons(run)}`,
  policy_denied: (run) => `the patch touches files policy denies${lastReasons(run)}`,
  approval_denied: () => "verified, but integration was not approved",
  contract_unusable: (run) =>
    `the contract cannot judge this task (${baselineWhy(run)}); nothing was sent to the backend`,
  integrate_failed: (run) => `verified, but integration failed: ${run.effectError ?? "error"}`,
  budget_repair_rounds: (run) => `no round passed verification within ${run.o.maxRounds} round(s)`,
  budget_wall_time: (run) =>
    `out of time: the --timeout of ${Math.round(run.o.wallTimeMs / 1000)} s passed${
      run.rounds.length === 0 ? " before any backend round (the baseline took it)" : ""
    }; nothing more was started`,
  budget_output_bytes: () =>
    "the task ran out of budget (budget_output_bytes); the backend was stopped",
  budget_cost_units: () =>
    "the task ran out of budget (budget_cost_units); the backend was stopped",
  backend_failed: (run) =>
    run.record?.backendFatal === true
      ? `the backend failed and retrying cannot help${lastFailure(run)}`
      : `the backend failed in every round (${run.rounds.length})${lastFailure(run)}`,
  backend_unavailable: (run) =>
    `the backend cannot start: ${run.startFailure?.message ?? "it did not answer"}`,
  backend_cancelled: () => "the backend stopped on its own (cancelled)",
  worktree_failed: (run) => `vouch could not create the worktree: ${run.effectError ?? "error"}`,
  baseline_unavailable: (run) =>
    run.baseline?.why ??
      `the contract cannot run on the base (${baselineWhy(run)}); nothing was sent to the backend`,
  effect_failed: (run) => `vouch could not go on: ${run.effectError ?? "an effect failed"}`,
  contradictory_event: () => "the task's event stream contradicted itself; nothing was verified",
  killed: () => "stopped by the user (Ctrl-C)",
};

/**
 * The run's `reason` where it is not the stop reason itself: a more specific
 * stable code from the evidence, or the word `vouch run` has always printed.
 */
const DETAIL: { readonly [R in StopReason]?: (run: TaskRun) => string | undefined } = {
  verified_not_integrated: () => "verified",
  budget_repair_rounds: () => "max_rounds",
  baseline_unavailable: (run) =>
    run.baseline?.refusals[0] ?? run.baseline?.diagnostics[0] ?? "baseline_cannot_run",
  contract_unusable: (run) => run.baseline?.diagnostics[0],
  effect_failed: (run) => run.effectCode ?? undefined,
};

function summary(run: TaskRun, r: RoundState, cancelled: boolean): RoundSummary {
  const failure = r.backend?.failure;
  const verdict = r.ended ?? "not_verified";
  return {
    round: r.round,
    backendStatus: r.backend?.status ?? "not_run",
    selfClaimedDone: r.backend?.selfClaimedDone ?? false,
    filesChanged: r.files,
    // Ctrl-C stopped the round before it was judged: it was cancelled, not rejected.
    verdict: cancelled && verdict !== "verified" ? "cancelled" : verdict,
    reasons: unique(roundReasons(r)),
    details: verdict === "verified" ? [] : unique(roundDetails(run, r)),
    checks: roundChecks(r),
    ...(r.run?.oracle !== undefined ? { oracle: r.run.oracle } : {}),
    ...(failure !== undefined
      ? { backendFailure: { code: failure.code, message: failure.message } }
      : {}),
    ...usageOf(r.backend?.usage),
    ...refusalsOf(r.backend?.risks),
  };
}

/** The round's reported usage, when there is any. */
function usageOf(
  u: { inputTokens?: number; outputTokens?: number; costUsd?: number } | undefined,
): Pick<RoundSummary, "usage"> {
  if (u === undefined) return {};
  const input = u.inputTokens ?? 0;
  const output = u.outputTokens ?? 0;
  if (input === 0 && output === 0 && u.costUsd === undefined) return {};
  return {
    usage: {
      inputTokens: input,
      outputTokens: output,
      ...(u.costUsd !== undefined ? { costUsd: u.costUsd } : {}),
    },
  };
}

/** The refusals among the backend's risks (`refused …`), bounded. */
function refusalsOf(risks: readonly string[] | undefined): Pick<RoundSummary, "refusals"> {
  const refused = (risks ?? []).filter((r) => r.startsWith("refused ")).slice(0, 20)
    .map((r) => r.length > 300 ? `${r.slice(0, 300)}…` : r);
  return refused.length > 0 ? { refusals: refused } : {};
}

/** What the driver held for an outcome and keeps out of its JSON. */
interface Held {
  /** The VerifiedPatch the kernel minted (verified outcomes only). */
  readonly minted: VerifiedPatch | null;
  /** The first round's scope check: its violations and sensitive classes. */
  readonly scope: ScopeJudgement;
  /** Where the baseline came from when the baseline cache answered (null: it ran, or none did). */
  readonly baselineReused: BaselineReuse | null;
}

/** The cached baseline a task used: the base tree, when it ran (ms since epoch), whose receipts. */
type BaselineReuse = NonNullable<VerificationRun["reusedFrom"]>;

/** A round's scope check, as {@link scopeJudgementOf} gives it. */
export interface ScopeJudgement {
  readonly violations: readonly PatchViolation[];
  readonly sensitive: readonly string[];
}

const HELD = new WeakMap<RunOutcome, Held>();

/** The VerifiedPatch minted for `outcome` (by {@link outcomeOf}), or `null` when none was. */
export function mintedPatchOf(outcome: RunOutcome): VerifiedPatch | null {
  return HELD.get(outcome)?.minted ?? null;
}

/** The first round's scope check (`vouch verify` runs one round); empty when none ran. */
export function scopeJudgementOf(outcome: RunOutcome): ScopeJudgement {
  return HELD.get(outcome)?.scope ?? { violations: [], sensitive: [] };
}

/** The baseline cache's answer the task used, or null when its baseline ran (or none did). */
export function baselineReuseOf(outcome: RunOutcome): BaselineReuse | null {
  return HELD.get(outcome)?.baselineReused ?? null;
}

/** The outcome of a finished run (a live task here is a driver bug: it reads `could_not_run`). */
export function outcomeOf(run: TaskRun): RunOutcome {
  const outcome = outcomeFields(run);
  const first = run.rounds[0];
  HELD.set(outcome, {
    minted: outcome.state === "verified" ? run.verified : null,
    scope: first === undefined
      ? { violations: [], sensitive: [] }
      : { violations: first.violations, sensitive: first.sensitive },
    baselineReused: run.baseline?.reusedFrom ?? null,
  });
  return outcome;
}

function outcomeFields(run: TaskRun): RunOutcome {
  const o = run.o;
  const final = run.record === null ? null : taskOutcome(run.record);
  const state = final?.state ?? "could_not_run";
  const stop: StopReason = final?.reason ?? "contradictory_event";
  return {
    task: o.taskId,
    state,
    exitCode: RUN_EXIT_CODES[state],
    reason: DETAIL[stop]?.(run) ?? stop,
    message: MESSAGE[stop](run),
    base: o.base,
    baseline: run.baseline?.summaries ?? [],
    rounds: run.rounds.map((r, i) =>
      summary(run, r, state === "killed" && stop === "killed" && i === run.rounds.length - 1)
    ),
    patchFile: state === "verified" ? run.patchFile : null,
    patchDigest: state === "verified" ? (run.verified?.patchDigest ?? null) : null,
    artefactsDir: o.artefactsDir,
    logPath: o.log.path,
    integrated: run.integrated,
    elapsedMs: run.now() - run.startedAt,
    ...(state === "backend_failed" ? lastFailureOf(run) : {}),
  };
}
