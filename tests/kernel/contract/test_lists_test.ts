import assert from "node:assert/strict";
import fc from "fast-check";
import {
  gradeTestLists,
  judgeBaseline,
  judgeCheck,
  judgeContract,
} from "../../../kernel/contract/mod.ts";
import type {
  CheckObservation,
  ContractCheck,
  OutcomeContract,
  TestReport,
} from "../../../kernel/contract/mod.ts";

const LISTED: ContractCheck = {
  name: "unit",
  run: { argv: ["x"] },
  expect: [],
  timeoutMs: 1000,
  baseline: false,
  differential: null,
  tests: "node",
  testLists: { failToPass: ["fixes bug"], passToPass: ["keeps add"] },
};

function observed(report: TestReport, exitCode: number, timedOut = false): CheckObservation {
  return {
    name: "unit",
    cannotRun: null,
    exitCode,
    timedOut,
    stdout: "",
    stderr: "",
    stdoutTruncated: false,
    stdoutDigest: "sha256:x",
    stdoutTail: "",
    testReport: report,
  };
}

const contract: OutcomeContract = { description: "", checks: [LISTED], protect: [] };
const opts = { requireFailingBaseline: false, allowGatesNothing: true };

Deno.test("both lists pass after the change: the check passes whatever else fails", () => {
  const j = judgeCheck(
    LISTED,
    observed({ failing: ["unrelated"], passing: ["fixes bug", "keeps add"], ran: 3 }, 1),
    new Map(),
  );
  assert.equal(j.status, "passed");
  assert.deepEqual(j.tests, [
    { id: "fixes bug", list: "failToPass", status: "passed" },
    { id: "keeps add", list: "passToPass", status: "passed" },
  ]);
});

Deno.test("a failToPass test still failing, a passToPass test broken, a missing test: failed", () => {
  const still = judgeCheck(
    LISTED,
    observed({ failing: ["fixes bug"], passing: ["keeps add"], ran: 2 }, 1),
    new Map(),
  );
  assert.equal(still.status, "failed");
  assert.deepEqual(still.reasons.map((r) => r.code), ["tests_fail_to_pass_failed"]);
  const broke = judgeCheck(
    LISTED,
    observed({ failing: ["keeps add"], passing: ["fixes bug"], ran: 2 }, 1),
    new Map(),
  );
  assert.deepEqual(broke.reasons.map((r) => r.code), ["tests_pass_to_pass_failed"]);
  // The suite only ran one test: the other listed one did not run, which counts as failed.
  const missing = judgeCheck(
    LISTED,
    observed({ failing: [], passing: ["fixes bug"], ran: 1 }, 0),
    new Map(),
  );
  assert.equal(missing.status, "failed");
  assert.equal(missing.tests?.[1]?.status, "missing");
});

Deno.test("a timed-out or unrunnable suite shows every listed test missing", () => {
  const timedOut = judgeCheck(
    LISTED,
    observed({ failing: [], passing: ["fixes bug", "keeps add"], ran: 2 }, 124, true),
    new Map(),
  );
  assert.equal(timedOut.status, "failed");
  assert.ok(timedOut.tests?.every((t) => t.status === "missing"));
  const notRun = judgeContract(contract, [], []);
  assert.equal(notRun.verdict, "failed");
  assert.ok(notRun.checks[0]?.tests?.every((t) => t.status === "missing"));
});

Deno.test("baseline: failToPass already passing or passToPass failing makes the contract invalid", () => {
  const good = judgeBaseline(
    contract,
    [observed({ failing: ["fixes bug"], passing: ["keeps add"], ran: 2 }, 1)],
    opts,
  );
  assert.equal(good.refusal, null);
  assert.deepEqual(good.before[0]?.tests?.map((t) => t.status), ["failed", "passed"]);
  const gatesNothing = judgeBaseline(
    contract,
    [observed({ failing: [], passing: ["fixes bug", "keeps add"], ran: 2 }, 0)],
    opts,
  );
  assert.equal(gatesNothing.refusal?.code, "baseline_fail_to_pass_passes");
  const brokenBase = judgeBaseline(
    contract,
    [observed({ failing: ["fixes bug", "keeps add"], passing: [], ran: 2 }, 1)],
    opts,
  );
  assert.equal(brokenBase.refusal?.code, "baseline_pass_to_pass_fails");
});

Deno.test("property: a check with lists passes only if every listed test is shown passing and not failing", () => {
  const ids = fc.constantFrom("a", "b", "c", "d", "e");
  fc.assert(
    fc.property(
      fc.uniqueArray(ids, { maxLength: 3 }),
      fc.uniqueArray(ids, { maxLength: 3 }),
      fc.array(ids),
      fc.array(ids),
      fc.integer({ min: 0, max: 2 }),
      (f2p, p2p, failing, passing, exitCode) => {
        const lists = { failToPass: f2p, passToPass: p2p.filter((x) => !f2p.includes(x)) };
        const c: ContractCheck = { ...LISTED, testLists: lists };
        const report = { failing, passing, ran: failing.length + passing.length };
        const j = judgeCheck(c, observed(report, exitCode), new Map());
        const all = [...lists.failToPass, ...lists.passToPass];
        const shownPassing = all.every((id) => passing.includes(id) && !failing.includes(id));
        if (j.status === "passed") assert.ok(shownPassing);
        const graded = gradeTestLists(lists, report);
        assert.equal(graded.length, all.length);
        assert.deepEqual(j.tests, graded);
      },
    ),
  );
});
