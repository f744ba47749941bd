/**
 * Pure judgement of outcome contracts: expectations, differentials against
 * baseline captures, the SWE-bench-like inconclusive guard, and the baseline
 * diagnostics. Fail closed: anything not shown to pass does not pass.
 *
 * @module
 */
import { jsonEqual, parseStrictNumber, resolvePointer, tryParseJson } from "./json.ts";
import { listedTestsOf, testListDiagnostics, testListReasons } from "./test_lists.ts";
import { fewerRanReasons } from "./differential.ts";
import type {
  BaselineCapture,
  BaselineDiagnostic,
  CheckJudgement,
  CheckObservation,
  CheckReason,
  CheckReasonCode,
  ContractCheck,
  ContractJudgement,
  DifferentialExpect,
  Expectation,
  OutcomeContract,
} from "./types.ts";

const INCONCLUSIVE_CODES: readonly CheckReasonCode[] = [
  "tests_exit_without_failures",
  "tests_none_ran",
];

function reason(code: CheckReasonCode, message: string): CheckReason {
  return { code, message };
}

function show(text: string, max = 80): string {
  const s = JSON.stringify(text);
  return s.length > max ? s.slice(0, max) + '…"' : s;
}

function judgeExpectation(e: Expectation, obs: CheckObservation): CheckReason | null {
  switch (e.kind) {
    case "exit-zero":
      return obs.exitCode === 0
        ? null
        : reason("exit_nonzero", `exited ${obs.exitCode}, expected 0`);
    case "output-contains": {
      if (obs.stdout.includes(e.text) || obs.stderr.includes(e.text)) return null;
      return obs.stdoutTruncated
        ? reason(
          "output_truncated",
          `output does not contain ${show(e.text)} in the captured part (output truncated)`,
        )
        : reason("output_missing", `output does not contain ${show(e.text)}`);
    }
    case "json-equals": {
      if (obs.stdoutTruncated) {
        return reason("output_truncated", `cannot judge $json:${e.pointer}: stdout was truncated`);
      }
      const parsed = tryParseJson(obs.stdout);
      if (parsed === undefined) return reason("json_unparsable", "stdout is not valid JSON");
      const found = resolvePointer(parsed, e.pointer);
      if (!found.found) {
        return reason("json_pointer_missing", `no value at JSON pointer ${show(e.pointer)}`);
      }
      return jsonEqual(found.value, e.value) ? null : reason(
        "json_mismatch",
        `value at ${show(e.pointer)} is ${show(JSON.stringify(found.value))}, expected ${
          show(JSON.stringify(e.value))
        }`,
      );
    }
  }
}

function judgeDifferential(
  expect: DifferentialExpect,
  against: string,
  obs: CheckObservation,
  capture: BaselineCapture | undefined,
): CheckReason | null {
  if (capture === undefined) {
    return reason("never_captured", `baseline ${show(against)} was never captured`);
  }
  switch (expect.kind) {
    case "changed":
      return obs.stdoutDigest !== capture.stdoutDigest
        ? null
        : reason("differential_unchanged", `output is unchanged from baseline ${show(against)}`);
    case "unchanged":
      return obs.stdoutDigest === capture.stdoutDigest
        ? null
        : reason("differential_changed", `output changed from baseline ${show(against)}`);
    case "delta-within": {
      const before = parseStrictNumber(capture.stdoutTail);
      if (before === null) {
        return reason("not_a_number", `baseline ${show(against)} output is not a number`);
      }
      if (obs.stdoutTruncated) return reason("not_a_number", "output was truncated, not a number");
      const after = parseStrictNumber(obs.stdout);
      if (after === null) {
        return reason("not_a_number", `output ${show(obs.stdout, 40)} is not a number`);
      }
      const delta = after - before;
      if (expect.min !== null && delta < expect.min) {
        return reason(
          "delta_out_of_range",
          `delta ${delta} (from ${before} to ${after}) is below ${expect.min}`,
        );
      }
      if (expect.max !== null && delta > expect.max) {
        return reason(
          "delta_out_of_range",
          `delta ${delta} (from ${before} to ${after}) is above ${expect.max}`,
        );
      }
      return null;
    }
  }
}

function statusOf(reasons: readonly CheckReason[]): CheckJudgement["status"] {
  if (reasons.length === 0) return "passed";
  return reasons.every((r) => INCONCLUSIVE_CODES.includes(r.code)) ? "inconclusive" : "failed";
}

/**
 * Judges one gating (non-baseline) check from its observation and the
 * baseline captures. A missing observation is a failure ("not run").
 *
 * @example
 * ```ts
 * import { judgeCheck } from "./judge.ts";
 * const j = judgeCheck(
 *   { name: "t", run: { argv: ["true"] }, expect: [{ kind: "exit-zero" }], timeoutMs: 1000, baseline: false, differential: null, tests: null },
 *   { name: "t", cannotRun: null, exitCode: 0, timedOut: false, stdout: "", stderr: "", stdoutTruncated: false, stdoutDigest: "sha256:x", stdoutTail: "", testReport: null },
 *   new Map(),
 * );
 * if (j.status !== "passed") throw new Error();
 * ```
 */
export function judgeCheck(
  check: ContractCheck,
  obs: CheckObservation | undefined,
  captures: ReadonlyMap<string, BaselineCapture>,
): CheckJudgement {
  if (check.baseline) {
    const captured = captures.has(check.name);
    return {
      name: check.name,
      status: captured ? "captured" : "failed",
      reasons: captured ? [] : [reason("never_captured", "baseline was never captured")],
      failingTests: [],
    };
  }
  if (obs === undefined || obs.cannotRun !== null) {
    const tests = listedTestsOf(check, null);
    return {
      name: check.name,
      status: "failed",
      reasons: [reason("cannot_run", obs?.cannotRun ?? "check was not run")],
      failingTests: [],
      ...(tests !== undefined ? { tests } : {}),
    };
  }
  const reasons: CheckReason[] = [];
  // An exceeded sandbox limit fails the check with its own code, whatever the output says.
  if (obs.limit !== undefined) reasons.push(reason(`limit_${obs.limit.kind}`, obs.limit.message));
  if (obs.timedOut) reasons.push(reason("timed_out", "timed out"));
  for (const e of check.expect) {
    const r = judgeExpectation(e, obs);
    if (r !== null) reasons.push(r);
  }
  if (check.differential !== null) {
    const r = judgeDifferential(
      check.differential.expect,
      check.differential.against,
      obs,
      captures.get(check.differential.against),
    );
    if (r !== null) reasons.push(r);
  }
  const report = check.tests !== null ? obs.testReport : null;
  if (check.tests !== null && !obs.timedOut) {
    const failing = report?.failing ?? [];
    const ran = report?.ran ?? null;
    if (obs.exitCode !== 0 && failing.length === 0) {
      reasons.push(
        reason(
          "tests_exit_without_failures",
          `exited ${obs.exitCode} but the output shows no failing test`,
        ),
      );
    }
    if (obs.exitCode === 0 && !(ran !== null && ran > 0)) {
      reasons.push(reason("tests_none_ran", "exited 0 but the output shows no test ran"));
    }
  }
  // A timed-out run shows no trustworthy per-test result: every listed test is missing.
  const tests = listedTestsOf(check, obs.timedOut ? null : report);
  if (tests !== undefined) reasons.push(...testListReasons(tests));
  if (check.testLists !== undefined) {
    reasons.push(...fewerRanReasons(check.testLists, obs.timedOut ? null : report));
  }
  return {
    name: check.name,
    status: statusOf(reasons),
    reasons,
    failingTests: report?.failing ?? [],
    ...(tests !== undefined ? { tests } : {}),
  };
}

/**
 * Judges a whole evaluation: every check, in order (never stopping at the
 * first failure). `passed` only when every gating check passed and every
 * baseline was captured; `inconclusive` when nothing failed but something was
 * inconclusive or nothing gates at all.
 *
 * @example
 * ```ts
 * import { judgeContract } from "./judge.ts";
 * const j = judgeContract({ description: "", checks: [], protect: [] }, [], []);
 * if (j.verdict !== "inconclusive") throw new Error();
 * ```
 */
export function judgeContract(
  contract: OutcomeContract,
  observations: readonly CheckObservation[],
  captures: readonly BaselineCapture[],
): ContractJudgement {
  const byName = new Map(observations.map((o) => [o.name, o]));
  const captureMap = new Map(captures.map((c) => [c.name, c]));
  const checks = contract.checks.map((c) => judgeCheck(c, byName.get(c.name), captureMap));
  const gating = checks.filter((_, i) => !contract.checks[i]!.baseline);
  let verdict: ContractJudgement["verdict"];
  if (checks.some((c) => c.status === "failed")) verdict = "failed";
  else if (gating.length === 0 || checks.some((c) => c.status === "inconclusive")) {
    verdict = "inconclusive";
  } else verdict = "passed";
  return { verdict, checks };
}

/** Options for {@linkcode judgeBaseline}. */
export interface BaselineOptions {
  /** The task is "make the failing tests pass": a contract that gates nothing is refused. */
  readonly requireFailingBaseline: boolean;
  /** Accept a contract that gates nothing anyway. */
  readonly allowGatesNothing: boolean;
}

/** Result of the baseline pass on the unmodified tree. */
export interface BaselineJudgement {
  /** Captures of the `baseline: true` checks that ran. */
  readonly captures: readonly BaselineCapture[];
  /** Diagnostics about the contract. */
  readonly diagnostics: readonly BaselineDiagnostic[];
  /** Set when the contract must not be used. */
  readonly refusal: BaselineDiagnostic | null;
  /** Judgements of the plain gating checks on the unmodified tree (before-state). */
  readonly before: readonly CheckJudgement[];
}

/**
 * Judges the baseline pass: keeps captures of capture-only checks, reports
 * `baseline_cannot_run` (checks that could not execute at all before any
 * change) and `baseline_gates_nothing` (every plain gating check already
 * passes before the change), and refuses the latter when the task requires a
 * failing baseline unless explicitly allowed.
 *
 * @example
 * ```ts
 * import { judgeBaseline } from "./judge.ts";
 * const b = judgeBaseline({ description: "", checks: [], protect: [] }, [], { requireFailingBaseline: false, allowGatesNothing: false });
 * if (b.refusal !== null) throw new Error();
 * ```
 */
export function judgeBaseline(
  contract: OutcomeContract,
  observations: readonly CheckObservation[],
  options: BaselineOptions,
): BaselineJudgement {
  const byName = new Map(observations.map((o) => [o.name, o]));
  const captures: BaselineCapture[] = [];
  const cannotRun: string[] = [];
  const before: CheckJudgement[] = [];
  for (const check of contract.checks) {
    const obs = byName.get(check.name);
    if (check.differential !== null && !check.baseline) continue;
    if (obs === undefined || obs.cannotRun !== null) {
      cannotRun.push(check.name);
      continue;
    }
    if (check.baseline) {
      if (!obs.timedOut) {
        captures.push({
          name: check.name,
          exitCode: obs.exitCode,
          stdoutTail: obs.stdoutTail,
          stdoutDigest: obs.stdoutDigest,
        });
      }
      continue;
    }
    before.push(judgeCheck(check, obs, new Map()));
  }
  const diagnostics: BaselineDiagnostic[] = [];
  if (cannotRun.length > 0) {
    diagnostics.push({
      code: "baseline_cannot_run",
      checks: cannotRun,
      message: `baseline cannot run: ${cannotRun.join(", ")} could not execute before any change`,
    });
  }
  let refusal: BaselineDiagnostic | null = null;
  // Test lists the base contradicts make the contract invalid, whatever the options say.
  const invalid = testListDiagnostics(before);
  diagnostics.push(...invalid);
  if (invalid.length > 0) refusal = invalid[0]!;
  const plain = contract.checks.filter((c) => !c.baseline && c.differential === null);
  if (
    plain.length > 0 && before.length === plain.length && before.every((j) => j.status === "passed")
  ) {
    const d: BaselineDiagnostic = {
      code: "baseline_gates_nothing",
      checks: before.map((j) => j.name),
      message: "baseline gates nothing: every gating check already passes before the change",
    };
    diagnostics.push(d);
    if (options.requireFailingBaseline && !options.allowGatesNothing) refusal ??= d;
  }
  return { captures, diagnostics, refusal, before };
}
