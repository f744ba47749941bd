/**
 * The test-level differential, as SWE-bench grades: the lists come from the
 * baseline run itself. Baseline-failing tests are FAIL_TO_PASS (they must
 * pass after the change), baseline-passing tests are PASS_TO_PASS (none may
 * fail, vanish or become skipped), and the number of executed tests must not
 * drop. Built on {@link gradeTestLists}; pure, fails closed.
 *
 * @module
 */
import { gradeTestLists } from "./test_lists.ts";
import type { CheckReason, ListedTest, TestListName, TestLists, TestReport } from "./types.ts";

/** A per-test outcome as a structured report (JUnit XML, a runner hook) gives it. */
export type TestOutcomeStatus = "passed" | "failed" | "skipped" | "error";

/** One test's outcome in one run. */
export interface TestOutcome {
  /** The id, as the text parser of the same runner names it. */
  readonly id: string;
  /** The repository-relative file the test lives in, when the report says. */
  readonly file?: string;
  /** What happened to it. */
  readonly status: TestOutcomeStatus;
}

/**
 * A {@link TestReport} from per-test outcomes: `failing` are failed and
 * errored tests, `passing` passed ones, `skipped` skipped ones (each id once,
 * in first-seen order; a test that failed anywhere is failing, else one that
 * passed anywhere is passing), `ran` the number of outcomes that ran (not
 * skipped).
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { reportFromOutcomes } from "./differential.ts";
 * deepEqual(
 *   reportFromOutcomes([
 *     { id: "adds", status: "failed" },
 *     { id: "subs", status: "passed" },
 *     { id: "muls", status: "skipped" },
 *   ]),
 *   { failing: ["adds"], passing: ["subs"], skipped: ["muls"], ran: 2 },
 * );
 * ```
 */
export function reportFromOutcomes(outcomes: readonly TestOutcome[]): TestReport {
  const failed = new Set<string>();
  const passed = new Set<string>();
  const order: string[] = [];
  const seen = new Set<string>();
  let ran = 0;
  for (const o of outcomes) {
    if (!seen.has(o.id)) {
      seen.add(o.id);
      order.push(o.id);
    }
    if (o.status === "skipped") continue;
    ran++;
    if (o.status === "passed") passed.add(o.id);
    else failed.add(o.id);
  }
  return {
    failing: order.filter((id) => failed.has(id)),
    passing: order.filter((id) => !failed.has(id) && passed.has(id)),
    skipped: order.filter((id) => !failed.has(id) && !passed.has(id)),
    ran,
  };
}

/**
 * How many tests a report says ran: its summary count, or, without one, the
 * number of distinct failing and passing ids (`null` when it knows neither).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { ranCount } from "./differential.ts";
 * equal(ranCount({ failing: ["a"], passing: ["b"], ran: 7 }), 7);
 * equal(ranCount({ failing: ["a"], passing: ["b", "a"], ran: null }), 2);
 * equal(ranCount({ failing: [], ran: null }), null);
 * ```
 */
export function ranCount(report: TestReport): number | null {
  if (report.ran !== null) return report.ran;
  if (report.passing === undefined && report.failing.length === 0) return null;
  return new Set([...report.failing, ...(report.passing ?? [])]).size;
}

/**
 * The SWE-bench lists derived from a baseline run: `failToPass` = the
 * baseline's failing tests, `passToPass` = its passing tests (a test shown
 * both failing and passing is failing), `minRan` = how many ran. A failed
 * mocha hook (`suite "before each" hook for "x"`) goes to `failingHooks`: it
 * must not fail after the change (a working hook is never listed, and the
 * tests it blocked never ran at baseline). `null` when the baseline does not
 * show passing ids (a parser or reporter that hides them): then no test-level
 * judgement is possible and the caller must say so.
 *
 * @example
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * import { deriveTestLists } from "./differential.ts";
 * deepEqual(
 *   deriveTestLists({ failing: ["adds"], passing: ["subs", "adds"], ran: 3 }),
 *   { failToPass: ["adds"], passToPass: ["subs"], minRan: 3 },
 * );
 * equal(deriveTestLists({ failing: ["adds"], ran: 2 }), null);
 * ```
 */
export function deriveTestLists(baseline: TestReport): TestLists | null {
  if (baseline.passing === undefined) return null;
  const failing = [...new Set(baseline.failing)];
  const failed = new Set(failing);
  const passing = [...new Set(baseline.passing)].filter((id) => !failed.has(id));
  const ran = ranCount(baseline);
  const hooks = failing.filter((id) => HOOK.test(id));
  return {
    failToPass: failing.filter((id) => !HOOK.test(id)),
    passToPass: passing,
    ...(ran !== null ? { minRan: ran } : {}),
    ...(hooks.length > 0 ? { failingHooks: hooks } : {}),
  };
}

/** mocha's title of a failed hook: `suite "before each" hook for "test"` (and `: name` forms). */
const HOOK = /"(?:before|after) (?:each|all)" hook\b/;

/** How a test fails the differential. */
export type DifferentialClass =
  | "still_failing"
  | "regressed"
  | "vanished"
  | "skipped"
  | "fewer_ran";

/** One reason the after-run fails the differential. */
export interface DifferentialOffence {
  /** The class. */
  readonly class: DifferentialClass;
  /** The test, or `null` for `fewer_ran`. */
  readonly id: string | null;
  /** The test's list, or `null` for `fewer_ran`. */
  readonly list: TestListName | null;
  /** One sentence for the screen, e.g. "`adds` still fails". */
  readonly message: string;
}

/** The judgement of one after-run against derived lists. */
export interface TestDifferential {
  /** `passed` only when there is no offence. */
  readonly verdict: "passed" | "failed";
  /** Every listed test's status after the change (FAIL_TO_PASS first). */
  readonly tests: readonly ListedTest[];
  /** The offences, FAIL_TO_PASS first, then PASS_TO_PASS, then `fewer_ran`. */
  readonly offences: readonly DifferentialOffence[];
  /** Tests that ran at baseline (`lists.minRan`), or `null`. */
  readonly ranBefore: number | null;
  /** Tests that ran after the change, or `null` when unknown. */
  readonly ranAfter: number | null;
}

function offenceOf(t: ListedTest): DifferentialOffence | null {
  if (t.status === "passed") return null;
  const id = "`" + t.id + "`";
  if (t.status === "skipped" || t.status === "missing") {
    const skipped = t.status === "skipped";
    const was = t.list === "failToPass" ? "failed" : "passed";
    return {
      class: skipped ? "skipped" : "vanished",
      id: t.id,
      list: t.list,
      message: `${id} ${skipped ? "is skipped now" : "did not run"} (it ${was} at baseline)`,
    };
  }
  return t.list === "failToPass"
    ? { class: "still_failing", id: t.id, list: t.list, message: `${id} still fails` }
    : {
      class: "regressed",
      id: t.id,
      list: t.list,
      message: `${id} fails now (it passed at baseline)`,
    };
}

/**
 * Judges an after-run against lists derived from the baseline: every
 * FAIL_TO_PASS test must pass (`still_failing`, `vanished`, `skipped`
 * otherwise), no PASS_TO_PASS test may fail (`regressed`), vanish or become
 * skipped, and at least `minRan` tests must run (`fewer_ran`; an unknown
 * count after the change is fewer). A `null` report (the run showed nothing)
 * makes every listed test vanish.
 *
 * @example
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * import { deriveTestLists, judgeTestDifferential } from "./differential.ts";
 * const lists = deriveTestLists({ failing: ["adds"], passing: ["subs"], ran: 2 })!;
 * const d = judgeTestDifferential(lists, { failing: [], passing: ["subs"], skipped: ["adds"], ran: 1 });
 * equal(d.verdict, "failed");
 * deepEqual(d.offences.map((o) => o.class), ["skipped", "fewer_ran"]);
 * equal(d.offences[0]?.message, "`adds` is skipped now (it failed at baseline)");
 * equal(judgeTestDifferential(lists, { failing: [], passing: ["adds", "subs"], ran: 2 }).verdict, "passed");
 * ```
 */
export function judgeTestDifferential(
  lists: TestLists,
  after: TestReport | null,
): TestDifferential {
  const tests = gradeTestLists(lists, after);
  const offences: DifferentialOffence[] = [];
  for (const t of tests) {
    const o = offenceOf(t);
    if (o !== null) offences.push(o);
  }
  const ranBefore = lists.minRan ?? null;
  const ranAfter = after === null ? null : ranCount(after);
  const fewer = fewerRanOffence(ranBefore, ranAfter);
  if (fewer !== null) offences.push(fewer);
  return {
    verdict: offences.length === 0 ? "passed" : "failed",
    tests,
    offences,
    ranBefore,
    ranAfter,
  };
}

function fewerRanOffence(
  before: number | null,
  after: number | null,
): DifferentialOffence | null {
  if (before === null || (after !== null && after >= before)) return null;
  return {
    class: "fewer_ran",
    id: null,
    list: null,
    message: after === null
      ? `${before} tests ran at baseline; the run after the change shows no count`
      : `fewer tests ran: ${before} at baseline, ${after} now`,
  };
}

/**
 * The `tests_fewer_ran` reason of a run whose lists carry `minRan`, or none.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { fewerRanReasons } from "./differential.ts";
 * const lists = { failToPass: [], passToPass: ["a", "b"], minRan: 2 };
 * equal(fewerRanReasons(lists, { failing: [], passing: ["a"], ran: 1 })[0]?.code, "tests_fewer_ran");
 * equal(fewerRanReasons(lists, { failing: [], passing: ["a", "b"], ran: 2 }).length, 0);
 * equal(fewerRanReasons({ failToPass: [], passToPass: [] }, null).length, 0);
 * ```
 */
export function fewerRanReasons(lists: TestLists, report: TestReport | null): CheckReason[] {
  const o = fewerRanOffence(lists.minRan ?? null, report === null ? null : ranCount(report));
  return o === null ? [] : [{ code: "tests_fewer_ran", message: o.message }];
}
