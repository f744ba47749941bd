/**
 * Test-level grading, as SWE-bench does it: every test named in a check's
 * `failToPass` and `passToPass` lists gets a status from the parsed output
 * (`passed`, `failed`, or `missing` when the output does not show it, which
 * counts as failed). Pure; fails closed.
 *
 * @module
 */
import type {
  BaselineDiagnostic,
  CheckJudgement,
  CheckReason,
  ContractCheck,
  ListedTest,
  TestLists,
  TestReport,
} from "./types.ts";

/**
 * Each listed test's status in one run. A test both failing and passing in the
 * output (a retry, a duplicate name) is failed; one shown only skipped is
 * skipped; one the parser does not show at all is missing.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { gradeTestLists } from "./test_lists.ts";
 * deepEqual(
 *   gradeTestLists(
 *     { failToPass: ["adds", "gone"], passToPass: ["keeps"] },
 *     { failing: ["keeps"], passing: ["adds"], ran: 2 },
 *   ),
 *   [
 *     { id: "adds", list: "failToPass", status: "passed" },
 *     { id: "gone", list: "failToPass", status: "missing" },
 *     { id: "keeps", list: "passToPass", status: "failed" },
 *   ],
 * );
 * ```
 */
export function gradeTestLists(lists: TestLists, report: TestReport | null): ListedTest[] {
  const failing = new Set(report?.failing ?? []);
  const passing = new Set(report?.passing ?? []);
  const skipped = new Set(report?.skipped ?? []);
  const status = (id: string): ListedTest["status"] =>
    failing.has(id)
      ? "failed"
      : passing.has(id)
      ? "passed"
      : skipped.has(id)
      ? "skipped"
      : "missing";
  return [
    ...lists.failToPass.map((id): ListedTest => ({ id, list: "failToPass", status: status(id) })),
    ...(lists.failingHooks ?? []).map((id): ListedTest => ({
      id,
      list: "failToPass",
      status: failing.has(id) ? "failed" : "passed",
    })),
    ...lists.passToPass.map((id): ListedTest => ({ id, list: "passToPass", status: status(id) })),
  ];
}

function names(tests: readonly ListedTest[]): string {
  const shown = tests.slice(0, 5).map((t) => `${JSON.stringify(t.id)} (${t.status})`);
  return shown.join(", ") + (tests.length > 5 ? ` and ${tests.length - 5} more` : "");
}

/**
 * The reasons a run's listed tests fail the check after the change: a
 * `failToPass` or `passToPass` test that did not pass.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { testListReasons } from "./test_lists.ts";
 * const r = testListReasons([{ id: "a", list: "failToPass", status: "missing" }]);
 * equal(r[0]?.code, "tests_fail_to_pass_failed");
 * equal(testListReasons([{ id: "b", list: "passToPass", status: "passed" }]).length, 0);
 * ```
 */
export function testListReasons(tests: readonly ListedTest[]): CheckReason[] {
  const reasons: CheckReason[] = [];
  const f2p = tests.filter((t) => t.list === "failToPass" && t.status !== "passed");
  const p2p = tests.filter((t) => t.list === "passToPass" && t.status !== "passed");
  if (f2p.length > 0) {
    reasons.push({
      code: "tests_fail_to_pass_failed",
      message: `failToPass tests did not pass: ${names(f2p)}`,
    });
  }
  if (p2p.length > 0) {
    reasons.push({
      code: "tests_pass_to_pass_failed",
      message: `passToPass tests did not pass: ${names(p2p)}`,
    });
  }
  return reasons;
}

/**
 * What the baseline says about a contract's test lists: a `failToPass` test
 * that already passes gates nothing, a `passToPass` test that does not pass
 * cannot be kept passing. Either makes the contract invalid (a refusal).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { testListDiagnostics } from "./test_lists.ts";
 * const d = testListDiagnostics([{
 *   name: "unit", status: "passed", reasons: [], failingTests: [],
 *   tests: [{ id: "a", list: "failToPass", status: "passed" }],
 * }]);
 * equal(d[0]?.code, "baseline_fail_to_pass_passes");
 * ```
 */
export function testListDiagnostics(before: readonly CheckJudgement[]): BaselineDiagnostic[] {
  const f2p: string[] = [];
  const p2p: string[] = [];
  const checksF: string[] = [];
  const checksP: string[] = [];
  for (const j of before) {
    const tests = j.tests ?? [];
    const passing = tests.filter((t) => t.list === "failToPass" && t.status === "passed");
    const failing = tests.filter((t) => t.list === "passToPass" && t.status !== "passed");
    if (passing.length > 0) checksF.push(j.name);
    if (failing.length > 0) checksP.push(j.name);
    f2p.push(...passing.map((t) => t.id));
    p2p.push(...failing.map((t) => t.id));
  }
  const out: BaselineDiagnostic[] = [];
  if (f2p.length > 0) {
    out.push({
      code: "baseline_fail_to_pass_passes",
      checks: checksF,
      message: `contract invalid: failToPass tests already pass before the change: ${
        f2p.slice(0, 5).map((t) => JSON.stringify(t)).join(", ")
      }`,
    });
  }
  if (p2p.length > 0) {
    out.push({
      code: "baseline_pass_to_pass_fails",
      checks: checksP,
      message: `contract invalid: passToPass tests do not pass before the change: ${
        p2p.slice(0, 5).map((t) => JSON.stringify(t)).join(", ")
      }`,
    });
  }
  return out;
}

/**
 * The listed tests of a check in one run, or `undefined` when it has no lists.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { listedTestsOf } from "./test_lists.ts";
 * const check = { name: "t", run: { argv: ["true"] }, expect: [], timeoutMs: 1, baseline: false, differential: null, tests: "deno" as const, testLists: { failToPass: ["x"], passToPass: [] } };
 * equal(listedTestsOf(check, { failing: [], passing: ["x"], ran: 1 })?.[0]?.status, "passed");
 * ```
 */
export function listedTestsOf(
  check: ContractCheck,
  report: TestReport | null,
): ListedTest[] | undefined {
  return check.testLists === undefined ? undefined : gradeTestLists(check.testLists, report);
}
