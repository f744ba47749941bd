import assert from "node:assert/strict";
import fc from "fast-check";
import { judgeBaseOracle } from "../../../kernel/contract/two_oracles.ts";
import { deriveTestLists } from "../../../kernel/contract/differential.ts";
import type { TestReport } from "../../../kernel/contract/types.ts";

const baseline: TestReport = {
  failing: ["adds"],
  passing: ["adds zero", "adds negatives"],
  ran: 3,
};
const lists = deriveTestLists(baseline)!;

Deno.test("base oracle: the base's failing test still failing there rejects, whatever the patch's tests say", () => {
  const j = judgeBaseOracle({
    lists,
    base: { failing: ["adds"], passing: ["adds zero", "adds negatives"], ran: 3 },
    patch: { failing: [], passing: ["adds", "adds zero", "adds negatives"], ran: 3 },
    exitPassed: false,
    rewritten: () => true, // even a rewritten file never excuses a FAIL_TO_PASS test
  });
  assert.equal(j.verdict, "failed");
  assert.equal(j.level, "test");
  assert.deepEqual(j.offences.map((o) => [o.class, o.id]), [["still_failing", "adds"]]);
  assert.deepEqual(j.sentences, ["`adds` still fails there"]);
});

Deno.test("base oracle: a corrected test (rewritten file, passes in the patch's grading) is excused and said", () => {
  const j = judgeBaseOracle({
    lists,
    base: { failing: ["adds negatives"], passing: ["adds", "adds zero"], ran: 3 },
    patch: { failing: [], passing: ["adds", "adds zero", "adds negatives"], ran: 3 },
    exitPassed: false,
    rewritten: (id) => id === "adds negatives",
  });
  assert.equal(j.verdict, "passed");
  assert.deepEqual(j.excused.map((e) => e.id), ["adds negatives"]);
  assert.match(j.sentences.join("\n"), /`adds negatives` fails against the base's version/);
  // Not rewritten (a support file made it pass in the patch's grading): not excused.
  const harness = judgeBaseOracle({
    lists,
    base: { failing: ["adds negatives"], passing: ["adds", "adds zero"], ran: 3 },
    patch: { failing: [], passing: ["adds", "adds zero", "adds negatives"], ran: 3 },
    exitPassed: false,
    rewritten: () => false,
  });
  assert.equal(harness.verdict, "failed");
  assert.deepEqual(harness.offences.map((o) => o.class), ["regressed"]);
  // Rewritten but failing in the patch's own grading too: not excused.
  const stillBroken = judgeBaseOracle({
    lists,
    base: { failing: ["adds negatives"], passing: ["adds", "adds zero"], ran: 3 },
    patch: { failing: ["adds negatives"], passing: ["adds", "adds zero"], ran: 3 },
    exitPassed: false,
    rewritten: () => true,
  });
  assert.equal(stillBroken.verdict, "failed");
});

Deno.test("base oracle: without ids it is graded by exit code, and says so", () => {
  for (const exitPassed of [true, false]) {
    const j = judgeBaseOracle({
      lists: null,
      base: null,
      patch: null,
      exitPassed,
      rewritten: () => false,
    });
    assert.equal(j.level, "exit-code");
    assert.equal(j.verdict, exitPassed ? "passed" : "failed");
    assert.match(j.sentences[0]!, /no per-test results could be read/);
    assert.doesNotMatch(j.sentences.join(" "), /per test:/);
  }
  // Lists but an unreadable run: exit code too.
  const j = judgeBaseOracle({
    lists,
    base: { failing: [], ran: null },
    patch: null,
    exitPassed: true,
    rewritten: () => false,
  });
  assert.equal(j.level, "exit-code");
});

Deno.test("base oracle: a non-zero exit with no failing test (a crash after the tests) fails", () => {
  const j = judgeBaseOracle({
    lists,
    base: { failing: [], passing: ["adds", "adds zero", "adds negatives"], ran: 3 },
    patch: null,
    exitPassed: false,
    rewritten: () => false,
  });
  assert.equal(j.verdict, "failed");
  assert.match(j.sentences.join(" "), /exit non-zero there although none of its tests failed/);
});

const id: fc.Arbitrary<string> = fc.constantFrom("a", "b", "c", "d", "e");
const report = fc.record({
  failing: fc.uniqueArray(id),
  passing: fc.uniqueArray(id),
  ran: fc.nat(6),
}).map((r) => ({ ...r, passing: r.passing.filter((x) => !r.failing.includes(x)) }));

Deno.test("base oracle (property): passed implies every baseline-failing test passes there, and no unexcused baseline-passing test fails", () => {
  fc.assert(
    fc.property(
      report,
      report,
      report,
      fc.boolean(),
      fc.func<[string], boolean>(fc.boolean()),
      (b, base, patch, exitPassed, rw) => {
        const l = deriveTestLists(b)!;
        const j = judgeBaseOracle({ lists: l, base, patch, exitPassed, rewritten: (x) => rw(x) });
        if (j.verdict !== "passed") {
          return true;
        }
        const passing = new Set(base.passing);
        const excused = new Set(j.excused.map((e) => e.id));
        return l.failToPass.every((t) => passing.has(t)) &&
          l.passToPass.every((t) =>
            passing.has(t) || (excused.has(t) && patch.passing.includes(t) && rw(t))
          );
      },
    ),
  );
});
