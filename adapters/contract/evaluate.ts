import { judgeBaseline, judgeContract } from "../../kernel/contract/judge.ts";
import type {
  BaselineCapture,
  CheckObservation,
  ContractCheck,
  ContractJudgement,
  OutcomeContract,
} from "../../kernel/contract/types.ts";
import type { BaselineJudgement, BaselineOptions } from "../../kernel/contract/judge.ts";
import { utf8Tail } from "../process/capture.ts";
import { runProcess } from "../process/run.ts";
import type { ProcessResult } from "../process/types.ts";
import type { SandboxProfile } from "../sandbox/profile.ts";
import { parseFailingTests } from "../test_failures/parse.ts";

/** Bytes of output tail kept as evidence and in baseline captures. */
export const EVIDENCE_TAIL_BYTES = 4096;

/** Evidence of one stream. */
export interface StreamEvidence {
  /** `sha256:<hex>` of the full stream. */
  readonly sha256: string;
  /** Total bytes. */
  readonly totalBytes: number;
  /** Whether the capture dropped bytes. */
  readonly truncated: boolean;
  /** The last at most 4 KiB. */
  readonly tail: string;
}

/** Evidence of one check run. */
export interface CheckEvidence {
  /** The check's name. */
  readonly name: string;
  /** The command as requested. */
  readonly argv: readonly string[];
  /** Working directory. */
  readonly cwd: string;
  /** Sandbox profile used. */
  readonly sandbox: "bwrap" | "none";
  /** Exit code (124 timeout; 127/126 could not start). */
  readonly exitCode: number;
  /** Whether it timed out. */
  readonly timedOut: boolean;
  /** The timeout applied after clamping to the deadline, ms. */
  readonly timeoutMs: number;
  /** Wall-clock duration, ms. */
  readonly durationMs: number;
  /** Why it could not run, or `null`. */
  readonly cannotRun: string | null;
  /** Standard output evidence. */
  readonly stdout: StreamEvidence;
  /** Standard error evidence. */
  readonly stderr: StreamEvidence;
  /** Environment names passed. */
  readonly envNames: readonly string[];
}

/** How checks are run. */
export interface EvaluateOptions {
  /** The worktree root (checks run here). */
  readonly cwd: string;
  /** Sandbox profile for every check. */
  readonly sandbox: SandboxProfile;
  /** Absolute deadline (epoch ms): each check's timeout is clamped to what is left. */
  readonly deadline?: number;
  /** Clock (default `Date.now`). */
  readonly now?: () => number;
  /** Cancels the running check and skips the rest (they fail as not run). */
  readonly signal?: AbortSignal;
  /** Bytes kept per stream (default 1 MiB, so JSON outputs can be judged). */
  readonly maxCaptureBytes?: number;
  /** Called after each check (progress). */
  readonly onCheck?: (evidence: CheckEvidence) => void;
}

function streamEvidence(s: ProcessResult["stdout"]): StreamEvidence {
  return {
    sha256: s.sha256,
    totalBytes: s.totalBytes,
    truncated: s.truncated,
    tail: utf8Tail(s.truncated ? s.tail : s.head, EVIDENCE_TAIL_BYTES),
  };
}

function text(s: ProcessResult["stdout"]): string {
  return s.truncated ? `${s.head}\n…\n${s.tail}` : s.head;
}

async function runCheck(
  check: ContractCheck,
  options: EvaluateOptions,
): Promise<{ observation: CheckObservation; evidence: CheckEvidence }> {
  const timeoutMs = clampTimeout(check.timeoutMs, options.deadline, options.now);
  const argv = "argv" in check.run ? [...check.run.argv] : ["sh", "-c", check.run.shell];
  const blocked = options.signal?.aborted
    ? "cancelled before it started"
    : timeoutMs <= 0
    ? "the run's deadline left no time"
    : null;
  if (blocked !== null) {
    const empty: StreamEvidence = { sha256: "", totalBytes: 0, truncated: false, tail: "" };
    return {
      observation: cannotRunObservation(check.name, blocked),
      evidence: {
        name: check.name,
        argv,
        cwd: options.cwd,
        sandbox: options.sandbox.kind,
        exitCode: 124,
        timedOut: false,
        timeoutMs,
        durationMs: 0,
        cannotRun: blocked,
        stdout: empty,
        stderr: empty,
        envNames: [],
      },
    };
  }
  const r = await runProcess({
    ...("argv" in check.run ? { argv: check.run.argv } : { shell: check.run.shell }),
    cwd: options.cwd,
    sandbox: options.sandbox,
    timeoutMs,
    maxCaptureBytes: options.maxCaptureBytes ?? 1024 * 1024,
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
  });
  return {
    observation: observeCheck(check, r),
    evidence: { ...evidenceOf(check, r), timeoutMs },
  };
}

/**
 * The kernel observation of a check from its process result: stdout/stderr
 * text (head and tail when truncated), digest, 4 KiB tail, and the failing
 * tests parsed when the check declares `tests` (so the inconclusive guard
 * applies). Use this when running checks with your own loop.
 *
 * @example
 * ```ts
 * import { observeCheck } from "./evaluate.ts";
 * import { runProcess } from "../process/run.ts";
 * const check = { name: "t", run: { argv: ["true"] }, expect: [], timeoutMs: 1000, baseline: false, differential: null, tests: "cargo" as const };
 * const obs = observeCheck(check, await runProcess({ argv: ["true"], cwd: "/" }));
 * if (obs.testReport?.ran !== null) throw new Error();
 * ```
 */
export function observeCheck(check: ContractCheck, r: ProcessResult): CheckObservation {
  const stdout = text(r.stdout);
  const stderr = text(r.stderr);
  const cannotRun = r.spawnError !== null ? `${r.spawnError.code}: ${r.spawnError.message}` : null;
  return {
    name: check.name,
    cannotRun,
    exitCode: r.exitCode,
    timedOut: r.timedOut || r.cancelled,
    stdout,
    stderr,
    stdoutTruncated: r.stdout.truncated,
    stdoutDigest: r.stdout.sha256,
    stdoutTail: utf8Tail(r.stdout.truncated ? r.stdout.tail : r.stdout.head, EVIDENCE_TAIL_BYTES),
    testReport: check.tests !== null && cannotRun === null
      ? parseFailingTests(check.tests, `${stdout}\n${stderr}`)
      : null,
    ...(r.limit !== null ? { limit: r.limit } : {}),
  };
}

/**
 * The observation of a check that never ran (cancelled, or no time left before
 * the deadline): it fails closed through `cannotRun`, with exit 124 and no output.
 *
 * @example
 * ```ts
 * import { cannotRunObservation } from "./evaluate.ts";
 * if (cannotRunObservation("unit", "cancelled").cannotRun !== "cancelled") throw new Error();
 * ```
 */
export function cannotRunObservation(name: string, reason: string): CheckObservation {
  return {
    name,
    cannotRun: reason,
    exitCode: 124,
    timedOut: false,
    stdout: "",
    stderr: "",
    stdoutTruncated: false,
    stdoutDigest: "",
    stdoutTail: "",
    testReport: null,
  };
}

function evidenceOf(check: ContractCheck, r: ProcessResult): Omit<CheckEvidence, "timeoutMs"> {
  return {
    name: check.name,
    argv: r.argv,
    cwd: r.cwd,
    sandbox: r.sandbox,
    exitCode: r.exitCode,
    timedOut: r.timedOut,
    durationMs: Math.round(r.durationMs),
    cannotRun: r.spawnError !== null ? `${r.spawnError.code}: ${r.spawnError.message}` : null,
    stdout: streamEvidence(r.stdout),
    stderr: streamEvidence(r.stderr),
    envNames: r.envNames,
  };
}

/**
 * A check's timeout clamped to what the run's deadline leaves (0 = no time left).
 *
 * @example
 * ```ts
 * import { clampTimeout } from "./evaluate.ts";
 * if (clampTimeout(120_000, 1_000 + 500, () => 1_000) !== 500) throw new Error();
 * if (clampTimeout(120_000, undefined) !== 120_000) throw new Error();
 * ```
 */
export function clampTimeout(
  timeoutMs: number,
  deadline: number | undefined,
  now: () => number = Date.now,
): number {
  const remaining = deadline === undefined ? Infinity : deadline - now();
  return Math.max(0, Math.min(timeoutMs, remaining));
}

/** Result of {@linkcode evaluateContract}. */
export interface ContractEvaluation {
  /** The pure judgement. */
  readonly judgement: ContractJudgement;
  /** Evidence per check run, in contract order. */
  readonly evidence: readonly CheckEvidence[];
}

/**
 * Runs every gating check of the contract (never stopping at the first
 * failure) in the sandbox and judges them against the baseline captures.
 * Baseline (capture-only) checks are not re-run: their captures carry forward.
 *
 * @example
 * ```ts
 * import { evaluateContract } from "./evaluate.ts";
 * import { parseContract } from "./load.ts";
 * const parsed = parseContract({ checks: [{ name: "ok", run: ["true"] }] });
 * if (!parsed.ok) throw parsed.error;
 * const r = await evaluateContract(parsed.contract, [], { cwd: "/", sandbox: { kind: "none" } });
 * if (r.judgement.verdict !== "passed") throw new Error();
 * ```
 */
export async function evaluateContract(
  contract: OutcomeContract,
  captures: readonly BaselineCapture[],
  options: EvaluateOptions,
): Promise<ContractEvaluation> {
  const observations: CheckObservation[] = [];
  const evidence: CheckEvidence[] = [];
  for (const check of contract.checks) {
    if (check.baseline) continue;
    const r = await runCheck(check, options);
    observations.push(r.observation);
    evidence.push(r.evidence);
    options.onCheck?.(r.evidence);
  }
  return { judgement: judgeContract(contract, observations, captures), evidence };
}

/** Result of {@linkcode evaluateBaseline}. */
export interface BaselineEvaluation {
  /** Captures, diagnostics, refusal and before-state. */
  readonly judgement: BaselineJudgement;
  /** Evidence per check run. */
  readonly evidence: readonly CheckEvidence[];
}

/**
 * The baseline pass on the unmodified tree: runs capture-only checks (kept
 * for differentials) and plain gating checks (for the `baseline cannot run`
 * and `baseline gates nothing` diagnostics). Differential checks are skipped.
 *
 * @example
 * ```ts
 * import { evaluateBaseline } from "./evaluate.ts";
 * import { parseContract } from "./load.ts";
 * const parsed = parseContract({ checks: [{ name: "n", run: "echo 1", baseline: true }, { name: "d", run: "echo 2", differential: { against: "n", expect: "changed" } }] });
 * if (!parsed.ok) throw parsed.error;
 * const b = await evaluateBaseline(parsed.contract, { cwd: "/", sandbox: { kind: "none" } }, { requireFailingBaseline: false, allowGatesNothing: false });
 * if (b.judgement.captures.length !== 1) throw new Error();
 * ```
 */
export async function evaluateBaseline(
  contract: OutcomeContract,
  options: EvaluateOptions,
  baselineOptions: BaselineOptions,
): Promise<BaselineEvaluation> {
  const observations: CheckObservation[] = [];
  const evidence: CheckEvidence[] = [];
  for (const check of contract.checks) {
    if (check.differential !== null && !check.baseline) continue;
    const r = await runCheck(check, options);
    observations.push(r.observation);
    evidence.push(r.evidence);
    options.onCheck?.(r.evidence);
  }
  return { judgement: judgeBaseline(contract, observations, baselineOptions), evidence };
}
