import assert from "node:assert/strict";
import fc from "fast-check";
import {
  jsonEqual,
  judgeBaseline,
  judgeCheck,
  judgeContract,
  parseOutputExpectation,
  parsePointer,
  parseStrictNumber,
  resolvePointer,
} from "../../../kernel/contract/mod.ts";
import type {
  BaselineCapture,
  CheckObservation,
  ContractCheck,
  ContractJsonValue,
  OutcomeContract,
} from "../../../kernel/contract/mod.ts";

function check(partial: Partial<ContractCheck> & { name: string }): ContractCheck {
  return {
    run: { argv: ["x"] },
    expect: [{ kind: "exit-zero" }],
    timeoutMs: 1000,
    baseline: false,
    differential: null,
    tests: null,
    ...partial,
  };
}

function obs(partial: Partial<CheckObservation> & { name: string }): CheckObservation {
  return {
    cannotRun: null,
    exitCode: 0,
    timedOut: false,
    stdout: "",
    stderr: "",
    stdoutTruncated: false,
    stdoutDigest: `sha256:${partial.stdout ?? ""}`,
    stdoutTail: partial.stdout ?? "",
    testReport: null,
    ...partial,
  };
}

Deno.test("RFC 6901 pointers: escapes, arrays, missing, invalid", () => {
  const doc: ContractJsonValue = { "a/b": { "m~n": [10, 20] }, "": 1, arr: [0] };
  assert.deepEqual(resolvePointer(doc, "/a~1b/m~0n/1"), { found: true, value: 20 });
  assert.deepEqual(resolvePointer(doc, "/"), { found: true, value: 1 });
  assert.deepEqual(resolvePointer(doc, ""), { found: true, value: doc });
  assert.deepEqual(resolvePointer(doc, "/arr/01"), { found: false });
  assert.deepEqual(resolvePointer(doc, "/arr/1"), { found: false });
  assert.deepEqual(resolvePointer(doc, "/arr/-"), { found: false });
  assert.deepEqual(resolvePointer(doc, "/toString"), { found: false });
  assert.equal(parsePointer("a"), null);
  assert.equal(parsePointer("/x~2"), null);
});

Deno.test("$json expectation form and strict numbers", () => {
  assert.deepEqual(parseOutputExpectation("$json:/count=3"), {
    kind: "json-equals",
    pointer: "/count",
    value: 3,
  });
  // The first "=" after which valid JSON follows: a pointer may itself contain "=".
  assert.deepEqual(parseOutputExpectation("$json:/a=b=1"), {
    kind: "json-equals",
    pointer: "/a=b",
    value: 1,
  });
  assert.deepEqual(parseOutputExpectation('$json:={"x":[1]}'), {
    kind: "json-equals",
    pointer: "",
    value: { x: [1] },
  });
  assert.equal(parseOutputExpectation("$json:/a"), null);
  assert.equal(parseOutputExpectation("$json:a=1"), null);
  assert.deepEqual(parseOutputExpectation("json:/a=1"), {
    kind: "output-contains",
    text: "json:/a=1",
  });
  for (const [t, n] of [["3", 3], [" -2.5e3 ", -2500], ["0", 0]] as const) {
    assert.equal(parseStrictNumber(t), n);
  }
  for (
    const t of ["", "1_000", "0x10", "1e999", "NaN", "Infinity", "01", "1.", ".5", "3 files", "+1"]
  ) {
    assert.equal(parseStrictNumber(t), null, t);
  }
  assert.ok(jsonEqual({ a: [1, { b: null }] }, { a: [1, { b: null }] }));
  assert.ok(!jsonEqual({ a: 1 }, { a: 1, b: undefined } as unknown as ContractJsonValue));
  assert.ok(!jsonEqual([1], { 0: 1 }));
});

Deno.test("judgeCheck: fail closed on missing observation, cannot-run, timeout", () => {
  const c = check({ name: "t" });
  assert.equal(judgeCheck(c, undefined, new Map()).reasons[0]!.code, "cannot_run");
  assert.equal(judgeCheck(c, obs({ name: "t", cannotRun: "ENOENT" }), new Map()).status, "failed");
  const t = judgeCheck(c, obs({ name: "t", timedOut: true, exitCode: 124 }), new Map());
  assert.deepEqual(t.reasons.map((r) => r.code), ["timed_out", "exit_nonzero"]);
  const j = check({ name: "j", expect: [{ kind: "json-equals", pointer: "/a", value: 1 }] });
  assert.equal(
    judgeCheck(j, obs({ name: "j", stdout: '{"a":1}', stdoutTruncated: true }), new Map())
      .reasons[0]!.code,
    "output_truncated",
  );
  assert.equal(
    judgeCheck(j, obs({ name: "j", stdout: "not json" }), new Map()).reasons[0]!.code,
    "json_unparsable",
  );
  assert.equal(judgeCheck(j, obs({ name: "j", stdout: '{"a":1}' }), new Map()).status, "passed");
  const contains = check({ name: "c", expect: [{ kind: "output-contains", text: "ok" }] });
  assert.equal(
    judgeCheck(contains, obs({ name: "c", stderr: "all ok" }), new Map()).status,
    "passed",
  );
});

Deno.test("judgeCheck: differentials against captures, numbers strict", () => {
  const cap: BaselineCapture = {
    name: "b",
    exitCode: 0,
    stdoutTail: "10\n",
    stdoutDigest: "sha256:10\n",
  };
  const caps = new Map([["b", cap]]);
  const d = (expect: ContractCheck["differential"]) =>
    check({ name: "d", expect: [], differential: expect });
  const within = d({ against: "b", expect: { kind: "delta-within", min: 1, max: null } });
  assert.equal(judgeCheck(within, obs({ name: "d", stdout: "12\n" }), caps).status, "passed");
  assert.equal(
    judgeCheck(within, obs({ name: "d", stdout: "10" }), caps).reasons[0]!.code,
    "delta_out_of_range",
  );
  assert.equal(
    judgeCheck(within, obs({ name: "d", stdout: "12 lines" }), caps).reasons[0]!.code,
    "not_a_number",
  );
  assert.equal(
    judgeCheck(within, obs({ name: "d", stdout: "12" }), new Map()).reasons[0]!.code,
    "never_captured",
  );
  const changed = d({ against: "b", expect: { kind: "changed" } });
  assert.equal(
    judgeCheck(changed, obs({ name: "d", stdout: "10\n" }), caps).reasons[0]!.code,
    "differential_unchanged",
  );
  const unchanged = d({ against: "b", expect: { kind: "unchanged" } });
  assert.equal(judgeCheck(unchanged, obs({ name: "d", stdout: "10\n" }), caps).status, "passed");
  // A baseline check at gating time: captured or failed.
  const b = check({ name: "b", baseline: true, expect: [] });
  assert.equal(judgeCheck(b, undefined, caps).status, "captured");
  assert.equal(judgeCheck(b, undefined, new Map()).reasons[0]!.code, "never_captured");
});

Deno.test("SWE-bench-like guard: exit!=0 with no failures, exit 0 with nothing ran", () => {
  const t = check({ name: "t", tests: "pytest" });
  const r1 = judgeCheck(
    t,
    obs({ name: "t", exitCode: 0, testReport: { failing: [], ran: 0 } }),
    new Map(),
  );
  assert.equal(r1.status, "inconclusive");
  const r2 = judgeCheck(
    t,
    obs({ name: "t", exitCode: 0, testReport: { failing: [], ran: null } }),
    new Map(),
  );
  assert.equal(r2.status, "inconclusive");
  const r3 = judgeCheck(
    t,
    obs({ name: "t", exitCode: 1, testReport: { failing: [], ran: 3 } }),
    new Map(),
  );
  assert.ok(r3.reasons.some((r) => r.code === "tests_exit_without_failures"));
  assert.equal(r3.status, "failed");
  const noExit = check({
    name: "t",
    tests: "pytest",
    expect: [{ kind: "output-contains", text: "x" }],
  });
  const r4 = judgeCheck(
    noExit,
    obs({ name: "t", exitCode: 1, stdout: "x", testReport: { failing: [], ran: 2 } }),
    new Map(),
  );
  assert.equal(r4.status, "inconclusive");
  const r5 = judgeCheck(
    t,
    obs({ name: "t", exitCode: 0, testReport: { failing: [], ran: 4 } }),
    new Map(),
  );
  assert.equal(r5.status, "passed");
  const r6 = judgeCheck(
    t,
    obs({ name: "t", exitCode: 1, testReport: { failing: ["a"], ran: 4 } }),
    new Map(),
  );
  assert.deepEqual([r6.status, r6.failingTests], ["failed", ["a"]]);
});

Deno.test("judgeBaseline: captures, cannot-run, gates-nothing refusal", () => {
  const contract: OutcomeContract = {
    description: "",
    protect: [],
    checks: [
      check({ name: "b", baseline: true, expect: [] }),
      check({ name: "t" }),
      check({ name: "d", expect: [], differential: { against: "b", expect: { kind: "changed" } } }),
    ],
  };
  const green = judgeBaseline(contract, [obs({ name: "b", stdout: "5" }), obs({ name: "t" })], {
    requireFailingBaseline: true,
    allowGatesNothing: false,
  });
  assert.deepEqual(green.captures.map((c) => c.name), ["b"]);
  assert.equal(green.refusal?.code, "baseline_gates_nothing");
  const red = judgeBaseline(contract, [obs({ name: "b" }), obs({ name: "t", exitCode: 1 })], {
    requireFailingBaseline: true,
    allowGatesNothing: false,
  });
  assert.equal(red.refusal, null);
  const broken = judgeBaseline(contract, [obs({ name: "t", exitCode: 1 })], {
    requireFailingBaseline: false,
    allowGatesNothing: false,
  });
  assert.deepEqual(broken.diagnostics.map((d) => [d.code, d.checks]), [["baseline_cannot_run", [
    "b",
  ]]]);
  assert.deepEqual(broken.captures, []);
});

const arbObs = (name: string) =>
  fc.record({
    name: fc.constant(name),
    cannotRun: fc.option(fc.string(), { nil: null }),
    exitCode: fc.integer({ min: 0, max: 255 }),
    timedOut: fc.boolean(),
    stdout: fc.oneof(fc.string(), fc.constantFrom('{"a":1}', "12", "ok")),
    stderr: fc.string(),
    stdoutTruncated: fc.boolean(),
    stdoutDigest: fc.constantFrom("sha256:a", "sha256:b"),
    stdoutTail: fc.constantFrom("10", "x", ""),
    testReport: fc.option(
      fc.record({
        failing: fc.array(fc.string(), { maxLength: 3 }),
        ran: fc.option(fc.nat(), { nil: null }),
      }),
      { nil: null },
    ),
  });

Deno.test("judgement properties: never throws, passed only if every gating check passed", () => {
  const checks: ContractCheck[] = [
    check({ name: "b", baseline: true, expect: [] }),
    check({ name: "e" }),
    check({ name: "j", expect: [{ kind: "json-equals", pointer: "/a", value: 1 }], tests: "go" }),
    check({
      name: "d",
      expect: [],
      differential: { against: "b", expect: { kind: "delta-within", min: 0, max: 5 } },
    }),
  ];
  const contract: OutcomeContract = { description: "", protect: [], checks };
  fc.assert(
    fc.property(
      fc.tuple(arbObs("e"), arbObs("j"), arbObs("d")),
      fc.subarray([0, 1, 2]),
      fc.option(fc.constantFrom("10", "x"), { nil: null }),
      (all, keep, tail) => {
        const observations = keep.map((i) => all[i]!);
        const captures: BaselineCapture[] = tail === null
          ? []
          : [{ name: "b", exitCode: 0, stdoutTail: tail, stdoutDigest: "sha256:a" }];
        const j = judgeContract(contract, observations, captures);
        assert.equal(j.checks.length, checks.length);
        if (j.verdict === "passed") {
          assert.ok(j.checks.every((c) => c.status === "passed" || c.status === "captured"));
          assert.equal(keep.length, 3);
          assert.ok(
            observations.every((o) => o.cannotRun === null && !o.timedOut && o.exitCode === 0),
          );
        }
        if (j.checks.some((c) => c.status === "failed")) assert.equal(j.verdict, "failed");
        for (const c of j.checks) {
          assert.equal(c.status === "passed" || c.status === "captured", c.reasons.length === 0);
        }
        judgeBaseline(contract, observations, {
          requireFailingBaseline: true,
          allowGatesNothing: false,
        });
      },
    ),
    { numRuns: 300 },
  );
});
