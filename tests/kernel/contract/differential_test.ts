import assert from "node:assert/strict";
import fc from "fast-check";
import {
  deriveTestLists,
  judgeCheck,
  judgeTestDifferential,
  reportFromOutcomes,
} from "../../../kernel/contract/mod.ts";
import type {
  CheckObservation,
  ContractCheck,
  TestOutcome,
  TestReport,
} from "../../../kernel/contract/mod.ts";

const ids = fc.constantFrom("adds", "subs", "muls", "divs", "a > b", "x::y", "é");
const idList = fc.uniqueArray(ids, { maxLength: 5 });
const report: fc.Arbitrary<TestReport> = fc.record({
  failing: idList,
  passing: idList,
  skipped: idList,
  ran: fc.option(fc.integer({ min: 0, max: 12 }), { nil: null }),
});

Deno.test("the cheats of the issue each fail the differential with the class the CLI prints", () => {
  const lists = deriveTestLists({ failing: ["adds"], passing: ["subs", "muls"], ran: 3 })!;
  const cases: [TestReport | null, string[]][] = [
    // The expectation edited: `adds` passes, so only a real regression shows.
    [{ failing: [], passing: ["adds", "subs", "muls"], ran: 3 }, []],
    // test.skip on the failing test.
    [{ failing: [], passing: ["subs", "muls"], skipped: ["adds"], ran: 2 }, [
      "skipped:adds",
      "fewer_ran",
    ]],
    // The failing test renamed: the old id vanishes.
    [{ failing: [], passing: ["adds (renamed)", "subs", "muls"], ran: 3 }, ["vanished:adds"]],
    // A passing test deleted with its file.
    [{ failing: [], passing: ["adds", "subs"], ran: 2 }, ["vanished:muls", "fewer_ran"]],
    // Not fixed, and a neighbour broken.
    [{ failing: ["adds", "subs"], passing: ["muls"], ran: 3 }, [
      "still_failing:adds",
      "regressed:subs",
    ]],
    // The run showed nothing at all.
    [null, ["vanished:adds", "vanished:subs", "vanished:muls", "fewer_ran"]],
  ];
  for (const [after, want] of cases) {
    const d = judgeTestDifferential(lists, after);
    assert.deepEqual(d.offences.map((o) => o.id === null ? o.class : `${o.class}:${o.id}`), want);
    assert.equal(d.verdict, want.length === 0 ? "passed" : "failed");
  }
  const still = judgeTestDifferential(lists, {
    failing: ["adds"],
    passing: ["subs", "muls"],
    ran: 3,
  });
  assert.equal(still.offences[0]?.message, "`adds` still fails");
});

Deno.test("derived lists: FAIL_TO_PASS is the baseline's failing set, PASS_TO_PASS the rest of its passing set", () => {
  fc.assert(
    fc.property(report, (base) => {
      const lists = deriveTestLists(base)!;
      assert.deepEqual(new Set(lists.failToPass), new Set(base.failing));
      assert.deepEqual(
        new Set(lists.passToPass),
        new Set(base.passing!.filter((id) => !base.failing.includes(id))),
      );
      assert.ok(lists.failToPass.every((id) => !lists.passToPass.includes(id)));
      // Skipped-only tests at baseline are in neither list: they were never an outcome.
      for (const id of base.skipped ?? []) {
        if (!base.failing.includes(id) && !base.passing!.includes(id)) {
          assert.ok(!lists.failToPass.includes(id) && !lists.passToPass.includes(id));
        }
      }
    }),
  );
  assert.equal(deriveTestLists({ failing: ["a"], ran: 1 }), null, "no passing ids: no lists");
});

Deno.test("verdict passed exactly when every listed test passed and no fewer ran", () => {
  fc.assert(
    fc.property(report, fc.option(report, { nil: null }), (base, after) => {
      const lists = deriveTestLists(base)!;
      const d = judgeTestDifferential(lists, after);
      const listed = [...lists.failToPass, ...lists.passToPass];
      const allPass = listed.every((id) =>
        after !== null && after.passing!.includes(id) && !after.failing.includes(id)
      );
      const ranAfter = after === null ? null : d.ranAfter;
      const enough = lists.minRan === undefined ||
        (ranAfter !== null && ranAfter >= lists.minRan);
      assert.equal(d.verdict === "passed", allPass && enough);
      // Every listed test that did not pass is named, once, with a class of its list.
      const named = d.offences.filter((o) => o.id !== null).map((o) => o.id);
      assert.deepEqual(named, d.tests.filter((t) => t.status !== "passed").map((t) => t.id));
      for (const o of d.offences) {
        if (o.list === "failToPass") assert.ok(o.class !== "regressed");
        if (o.list === "passToPass") assert.ok(o.class !== "still_failing");
        assert.ok(o.message.length > 0);
      }
    }),
  );
});

Deno.test("hiding a result never helps: dropping an id from the after-run never turns failed into passed", () => {
  fc.assert(
    fc.property(report, report, ids, (base, after, drop) => {
      const lists = deriveTestLists(base)!;
      const before = judgeTestDifferential(lists, after);
      const hidden: TestReport = {
        failing: after.failing.filter((x) => x !== drop),
        passing: after.passing!.filter((x) => x !== drop),
        skipped: [...(after.skipped ?? []), drop],
        ran: after.ran,
      };
      const d = judgeTestDifferential(lists, hidden);
      if (before.verdict === "failed") assert.equal(d.verdict, "failed");
      if (lists.failToPass.includes(drop) || lists.passToPass.includes(drop)) {
        assert.equal(d.verdict, "failed");
      }
    }),
  );
});

Deno.test("reportFromOutcomes: each id in one list, failing over passing over skipped; ran counts outcomes that ran", () => {
  const outcome: fc.Arbitrary<TestOutcome> = fc.record({
    id: ids,
    status: fc.constantFrom("passed", "failed", "skipped", "error"),
  });
  fc.assert(
    fc.property(fc.array(outcome, { maxLength: 12 }), (outcomes) => {
      const r = reportFromOutcomes(outcomes);
      const all = [...r.failing, ...r.passing!, ...r.skipped!];
      assert.equal(new Set(all).size, all.length);
      assert.deepEqual(new Set(all), new Set(outcomes.map((o) => o.id)));
      for (const id of r.failing) {
        assert.ok(
          outcomes.some((o) => o.id === id && (o.status === "failed" || o.status === "error")),
        );
      }
      for (const id of r.passing!) {
        assert.ok(outcomes.some((o) => o.id === id && o.status === "passed"));
      }
      assert.equal(r.ran, outcomes.filter((o) => o.status !== "skipped").length);
    }),
  );
});

Deno.test("judgeCheck applies the lists' minRan: a run with fewer tests fails with tests_fewer_ran", () => {
  const lists = deriveTestLists({ failing: ["adds"], passing: ["subs", "muls"], ran: 3 })!;
  const check: ContractCheck = {
    name: "unit",
    run: { argv: ["x"] },
    expect: [],
    timeoutMs: 1000,
    baseline: false,
    differential: null,
    tests: "node",
    testLists: lists,
  };
  const obs = (r: TestReport): CheckObservation => ({
    name: "unit",
    cannotRun: null,
    exitCode: 0,
    timedOut: false,
    stdout: "",
    stderr: "",
    stdoutTruncated: false,
    stdoutDigest: "sha256:x",
    stdoutTail: "",
    testReport: r,
  });
  const ok = judgeCheck(
    check,
    obs({ failing: [], passing: ["adds", "subs", "muls"], ran: 3 }),
    new Map(),
  );
  assert.equal(ok.status, "passed");
  // Every listed id passes, but the summary says two ran (duplicate titles hid one).
  const fewer = judgeCheck(
    check,
    obs({ failing: [], passing: ["adds", "subs", "muls"], ran: 2 }),
    new Map(),
  );
  assert.equal(fewer.status, "failed");
  assert.deepEqual(fewer.reasons.map((r) => r.code), ["tests_fewer_ran"]);
  const skipped = judgeCheck(
    check,
    obs({ failing: [], passing: ["subs", "muls"], skipped: ["adds"], ran: 3 }),
    new Map(),
  );
  assert.equal(skipped.tests?.[0]?.status, "skipped");
  assert.deepEqual(skipped.reasons.map((r) => r.code), ["tests_fail_to_pass_failed"]);
});

Deno.test("a failed mocha hook at baseline must stop failing; the tests it blocked may appear", () => {
  const hook = 'calc inner "before each" hook for "adds"';
  const lists = deriveTestLists({ failing: [hook], passing: ["calc subs"], ran: 2 })!;
  assert.deepEqual(lists.failToPass, []);
  assert.deepEqual(lists.failingHooks, [hook]);
  // The fix: the hook works, so it is not listed; the test it blocked runs and passes.
  const fixed = judgeTestDifferential(lists, {
    failing: [],
    passing: ["calc subs", "calc inner adds"],
    ran: 2,
  });
  assert.equal(fixed.verdict, "passed");
  // Nothing fixed: the hook still fails.
  const still = judgeTestDifferential(lists, { failing: [hook], passing: ["calc subs"], ran: 2 });
  assert.deepEqual(still.offences.map((o) => o.class), ["still_failing"]);
  // The blocked describe deleted: nothing fails, but fewer ran.
  const gone = judgeTestDifferential(lists, { failing: [], passing: ["calc subs"], ran: 1 });
  assert.deepEqual(gone.offences.map((o) => o.class), ["fewer_ran"]);
});
