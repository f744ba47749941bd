/**
 * A deno check's per-test results come from the junit report vouch has deno
 * write, never from its text when that report was asked for and is missing:
 * the code under test can print `adds ... ok` and a summary line, and deno
 * 2.9 writes no report when the run ends early. Then every listed test is
 * missing (rejected), and without lists an exit 0 shows no test ran.
 */
import assert from "node:assert/strict";
import { parseContract } from "../../../adapters/contract/load.ts";
import type { CheckRecord, ChecksRun } from "../../../adapters/contract/run_checks.ts";
import { parseFailingTests } from "../../../adapters/test_failures/mod.ts";
import { readTests, withDerivedLists } from "../../../adapters/verification/_oracle_grading.ts";
import { testReportOf } from "../../../adapters/verification/_test_reports.ts";
import {
  type CheckObservation,
  judgeContract,
  type OutcomeContract,
  reportFromOutcomes,
} from "../../../kernel/contract/mod.ts";

function contract(): OutcomeContract {
  const r = parseContract({
    description: "d",
    checks: [{ name: "tests", run: "deno test", tests: "deno" }],
  });
  if (!r.ok) throw r.error;
  return r.contract;
}

/** What a patch that prints a fake run of `adds` (and exits 0 before deno's report) shows. */
const FORGED = [
  "running 1 test from ./calc_test.ts",
  "adds ... ok (1ms)",
  "running 1 test from ./mul_test.ts",
  "multiplies ... ok (1ms)",
  "",
  "ok | 2 passed | 0 failed (9ms)",
  "",
].join("\n");

function observation(): CheckObservation {
  return {
    name: "tests",
    cannotRun: null,
    exitCode: 0,
    timedOut: false,
    stdout: FORGED,
    stderr: "",
    stdoutTruncated: false,
    stdoutDigest: "sha256:x",
    stdoutTail: FORGED,
    testReport: parseFailingTests("deno", FORGED),
  };
}

function run(c: OutcomeContract, record: Partial<CheckRecord>): ChecksRun {
  const r: CheckRecord = {
    check: c.checks[0]!,
    timeoutMs: 1000,
    observation: observation(),
    result: null,
    startedAt: 0,
    structured: null,
    ...record,
  };
  return {
    records: [r],
    observations: [r.observation],
    results: new Map(),
    started: new Map(),
    sandbox: { kind: "none" },
  };
}

const BASELINE = reportFromOutcomes([
  { id: "adds", file: "calc_test.ts", status: "failed" },
  { id: "multiplies", file: "mul_test.ts", status: "passed" },
]);

Deno.test("deno: a missing junit report is no tests, its text is not read instead", () => {
  const c = contract();
  const derived = withDerivedLists(c, new Map([["tests", BASELINE]]), new Map());
  assert.deepEqual(derived.checks[0]!.testLists, {
    failToPass: ["adds"],
    passToPass: ["multiplies"],
    minRan: 2,
  });
  const missing = run(derived, { reportPlanned: true });
  const j = judgeContract(derived, readTests(derived, missing), []);
  assert.equal(j.verdict, "failed");
  const why = j.checks[0]!.reasons.map((r) => r.message).join("; ");
  assert.match(why, /"adds" \(missing\)/);
  assert.match(why, /no count/);
  // Without lists (a declared `tests: "deno"` only), exit 0 with no report shows no test ran:
  // inconclusive, never passed.
  const plain = judgeContract(c, readTests(c, run(c, { reportPlanned: true })), []);
  assert.equal(plain.verdict, "inconclusive");
  assert.equal(plain.checks[0]!.reasons[0]!.code, "tests_none_ran");
  // The junit report, when deno wrote it, is what is read.
  const report = run(derived, {
    reportPlanned: true,
    structured: {
      outcomes: [
        { id: "adds", file: "calc_test.ts", status: "passed" },
        { id: "multiplies", file: "mul_test.ts", status: "passed" },
      ],
      note: "n",
    },
  });
  assert.equal(judgeContract(derived, readTests(derived, report), []).verdict, "passed");
});

Deno.test("deno: the baseline's text output gives no lists (only a junit report does)", () => {
  const c = contract();
  const r = run(c, {}).records[0]!;
  assert.equal(testReportOf(c.checks[0]!, r.observation, null), null);
  assert.deepEqual(
    testReportOf(c.checks[0]!, r.observation, {
      outcomes: [{ id: "adds", status: "failed" }],
      note: "n",
    }),
    { failing: ["adds"], passing: [], skipped: [], ran: 1 },
  );
});
