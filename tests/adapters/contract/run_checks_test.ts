import assert from "node:assert/strict";
import {
  contractJsonSchema,
  loadContract,
  parseContract,
  parseContractText,
  runChecks,
  type RunChecksOptions,
} from "../../../adapters/contract/mod.ts";
import { probeSandbox } from "../../../adapters/host/sandbox_probe.ts";
import { bwrapProfile } from "../../../adapters/sandbox/bwrap.ts";
import {
  type BaselineOptions,
  judgeBaseline,
  judgeContract,
} from "../../../kernel/contract/judge.ts";
import type { BaselineCapture, OutcomeContract } from "../../../kernel/contract/types.ts";

// The one check runner the clean verifier uses for the baseline and every round,
// judged by the kernel as the verifier judges it.
type Where = Omit<RunChecksOptions, "phase">;

async function evaluateBaseline(c: OutcomeContract, where: Where, options: BaselineOptions) {
  const run = await runChecks(c, { ...where, phase: "baseline" });
  return { judgement: judgeBaseline(c, run.observations, options), records: run.records };
}

async function evaluateContract(
  c: OutcomeContract,
  captures: readonly BaselineCapture[],
  where: Where,
) {
  const run = await runChecks(c, { ...where, phase: "round" });
  return { judgement: judgeContract(c, run.observations, captures), records: run.records };
}

const NONE = { kind: "none" } as const;
const NO_RED = { requireFailingBaseline: false, allowGatesNothing: false };

function contract(value: unknown): OutcomeContract {
  const r = parseContract(value);
  if (!r.ok) throw r.error;
  return r.contract;
}

async function tree(): Promise<string> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "vouch-contract-" }));
  await Deno.writeTextFile(`${dir}/items.txt`, "a\nb\nc\n");
  await Deno.writeTextFile(
    `${dir}/report.py`,
    'import json\nlines = open("items.txt").read().splitlines()\nprint(json.dumps({"count": len(lines), "items": lines, "ok": True}))\n',
  );
  return dir;
}

Deno.test("baseline + differentials on real commands: wc -l delta, changed, unchanged", async () => {
  const dir = await tree();
  try {
    const c = contract({
      checks: [
        { name: "lines-before", run: "wc -l < items.txt", baseline: true },
        { name: "readme-before", run: ["cat", "items.txt"], baseline: true },
        {
          name: "lines-grew",
          run: "wc -l < items.txt",
          differential: { against: "lines-before", expect: { deltaWithin: [1, 2] } },
        },
        {
          name: "items-changed",
          run: ["cat", "items.txt"],
          differential: { against: "readme-before", expect: "changed" },
        },
        {
          name: "count-unchanged",
          run: ["echo", "fixed"],
          differential: { against: "readme-before", expect: "unchanged" },
        },
      ],
    });
    const base = await evaluateBaseline(c, { cwd: dir, sandbox: NONE }, NO_RED);
    assert.deepEqual(base.judgement.captures.map((x) => [x.name, x.stdoutTail.trim()]), [
      ["lines-before", "3"],
      ["readme-before", "a\nb\nc"],
    ]);
    assert.deepEqual(base.judgement.diagnostics, []);
    // The unmodified tree: the delta is 0, so it fails; nothing changed.
    const before = await evaluateContract(c, base.judgement.captures, { cwd: dir, sandbox: NONE });
    assert.equal(before.judgement.verdict, "failed");
    const byName = (j: typeof before) =>
      Object.fromEntries(j.judgement.checks.map((x) => [x.name, x]));
    assert.equal(byName(before)["lines-grew"]!.reasons[0]!.code, "delta_out_of_range");
    assert.equal(byName(before)["items-changed"]!.reasons[0]!.code, "differential_unchanged");
    assert.equal(byName(before)["count-unchanged"]!.reasons[0]!.code, "differential_changed");
    // The change: one line added.
    await Deno.writeTextFile(`${dir}/items.txt`, "a\nb\nc\nd\n");
    const after = await evaluateContract(c, base.judgement.captures, { cwd: dir, sandbox: NONE });
    assert.equal(byName(after)["lines-grew"]!.status, "passed");
    assert.equal(byName(after)["items-changed"]!.status, "passed");
    assert.equal(byName(after)["lines-before"]!.status, "captured");
    // Three lines added is outside [1, 2].
    await Deno.writeTextFile(`${dir}/items.txt`, "a\nb\nc\nd\ne\nf\n");
    const tooMany = await evaluateContract(c, base.judgement.captures, { cwd: dir, sandbox: NONE });
    assert.match(byName(tooMany)["lines-grew"]!.reasons[0]!.message, /delta 3 .* above 2/);
    // Fail closed: no captures at all.
    const uncaptured = await evaluateContract(c, [], { cwd: dir, sandbox: NONE });
    assert.equal(uncaptured.judgement.verdict, "failed");
    assert.ok(uncaptured.judgement.checks.every((x) => x.status === "failed"));
    assert.equal(byName(uncaptured)["lines-grew"]!.reasons[0]!.code, "never_captured");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("$json pointer checks and output-contains on a JSON-printing script; all checks run", async () => {
  const dir = await tree();
  try {
    const c = contract({
      checks: [
        {
          name: "count",
          run: ["python3", "report.py"],
          expect: { outputContains: "$json:/count=3" },
        },
        {
          name: "second",
          run: ["python3", "report.py"],
          expect: { outputContains: ['$json:/items/1="b"', "$json:/ok=true"] },
        },
        {
          name: "wrong",
          run: ["python3", "report.py"],
          expect: { outputContains: "$json:/count=4" },
        },
        {
          name: "missing",
          run: ["python3", "report.py"],
          expect: { outputContains: "$json:/nope=1" },
        },
        { name: "text", run: ["python3", "report.py"], expect: { outputContains: '"items"' } },
        { name: "fails-first-but-later-run", run: "exit 3" },
        { name: "cannot_run", run: ["./does-not-exist.sh"] },
      ],
    });
    const r = await evaluateContract(c, [], { cwd: dir, sandbox: NONE });
    const s = Object.fromEntries(r.judgement.checks.map((x) => [x.name, x]));
    assert.equal(s.count!.status, "passed");
    assert.equal(s.second!.status, "passed");
    assert.equal(s.wrong!.reasons[0]!.code, "json_mismatch");
    assert.equal(s.missing!.reasons[0]!.code, "json_pointer_missing");
    assert.equal(s.text!.status, "passed");
    assert.equal(s["fails-first-but-later-run"]!.reasons[0]!.code, "exit_nonzero");
    assert.equal(s["cannot_run"]!.reasons[0]!.code, "cannot_run");
    assert.equal(r.records.length, 7);
    const ev = r.records[0]!;
    assert.deepEqual(ev.result!.argv, ["python3", "report.py"]);
    assert.equal(ev.result!.sandbox, "none");
    assert.match(ev.result!.stdout.sha256, /^sha256:[0-9a-f]{64}$/);
    assert.match(ev.observation.stdoutTail, /"count": 3/);
    assert.equal(r.judgement.verdict, "failed");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("baseline diagnostics: cannot run, gates nothing (refused for failing-test tasks)", async () => {
  const dir = await tree();
  try {
    const green = contract({
      checks: [{ name: "t", run: "true" }, { name: "gone", run: ["no-such-program-xyz"] }],
    });
    const b1 = await evaluateBaseline(green, { cwd: dir, sandbox: NONE }, {
      requireFailingBaseline: true,
      allowGatesNothing: false,
    });
    assert.deepEqual(b1.judgement.diagnostics.map((d) => d.code), ["baseline_cannot_run"]);
    assert.deepEqual(b1.judgement.diagnostics[0]!.checks, ["gone"]);
    const onlyGreen = contract({ checks: [{ name: "t", run: "true" }] });
    const b2 = await evaluateBaseline(onlyGreen, { cwd: dir, sandbox: NONE }, {
      requireFailingBaseline: true,
      allowGatesNothing: false,
    });
    assert.equal(b2.judgement.refusal?.code, "baseline_gates_nothing");
    const b3 = await evaluateBaseline(onlyGreen, { cwd: dir, sandbox: NONE }, {
      requireFailingBaseline: true,
      allowGatesNothing: true,
    });
    assert.equal(b3.judgement.refusal, null);
    assert.deepEqual(b3.judgement.diagnostics.map((d) => d.code), ["baseline_gates_nothing"]);
    const red = contract({ checks: [{ name: "t", run: "false" }] });
    const b4 = await evaluateBaseline(red, { cwd: dir, sandbox: NONE }, {
      requireFailingBaseline: true,
      allowGatesNothing: false,
    });
    assert.deepEqual(b4.judgement.diagnostics, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("inconclusive guard on a real test runner: fake PASSED output with exit 1, and no tests ran", async () => {
  const dir = await tree();
  try {
    const c = contract({
      checks: [
        { name: "fake", run: "echo 'PASSED test_x.py::test_a'; exit 1", tests: "pytest" },
        {
          name: "none-ran",
          run: "echo '============ no tests ran in 0.01s ============'",
          tests: "pytest",
        },
        {
          name: "real-fail",
          run: "echo 'FAILED t.py::test_b - boom'; echo '== 1 failed in 0.1s =='; exit 1",
          tests: "pytest",
        },
      ],
    });
    const r = await evaluateContract(c, [], { cwd: dir, sandbox: NONE });
    const s = Object.fromEntries(r.judgement.checks.map((x) => [x.name, x]));
    assert.equal(s.fake!.status, "failed"); // exit-nonzero plus the guard
    assert.ok(s.fake!.reasons.some((x) => x.code === "tests_exit_without_failures"));
    assert.equal(s["none-ran"]!.status, "inconclusive");
    assert.deepEqual(s["real-fail"]!.failingTests, ["t.py::test_b"]);
    const onlyNoneRan = contract({
      checks: [c.checks[1]!].map((x) => ({
        name: x.name,
        run: "echo '== no tests ran in 0.01s =='",
        tests: "pytest",
      })),
    });
    const r2 = await evaluateContract(onlyNoneRan, [], { cwd: dir, sandbox: NONE });
    assert.equal(r2.judgement.verdict, "inconclusive");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deadline clamping: each timeout is what the deadline leaves; exhausted = timed out, not started", async () => {
  const dir = await tree();
  try {
    const c = contract({
      checks: [{ name: "slow", run: "sleep 120", timeout: 60 }, { name: "after", run: "true" }],
    });
    const start = Date.now();
    const r = await evaluateContract(c, [], { cwd: dir, sandbox: NONE, deadline: start + 400 });
    // Half the check's own 60 s timeout: the deadline cut it, whatever the machine's load.
    assert.ok(Date.now() - start < 30_000);
    assert.ok(r.records[0]!.timeoutMs <= 400);
    assert.equal(r.records[0]!.result!.timedOut, true);
    assert.equal(r.judgement.checks[0]!.reasons[0]!.code, "timed_out");
    // No time left: never started, and fails as timed out (the wall budget ran out, so the
    // run ends budget_exhausted; the deleted test-only runner called it "cannot run").
    assert.equal(r.judgement.verdict, "failed");
    assert.equal(r.judgement.checks[1]!.reasons[0]!.code, "timed_out");
    assert.equal(r.records[1]!.result, null);
    assert.equal(r.records[1]!.timeoutMs, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const bwrap = await probeSandbox();
Deno.test({
  name: "evaluation inside bwrap records the profile and cannot write outside the worktree",
  ignore: !bwrap.bwrap.available,
  fn: async () => {
    const dir = await tree();
    try {
      const c = contract({
        checks: [{
          name: "w",
          run: "echo x > /var/tmp/vouch-escape-$$ && echo escaped; wc -l < items.txt",
        }],
      });
      const r = await evaluateContract(c, [], {
        cwd: dir,
        sandbox: bwrapProfile({ worktree: dir }),
      });
      assert.equal(r.records[0]!.result!.sandbox, "bwrap");
      assert.ok(!r.records[0]!.observation.stdout.includes("escaped"));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("contract file validation: stable codes and path-addressed issues", async () => {
  const bad = parseContract({
    checks: [
      { name: "a", run: [] },
      { name: "a", run: "x", expect: { exitZero: false } },
      {
        name: "d",
        run: "x",
        differential: { against: "a", expect: { deltaWithin: [null, null] } },
      },
      { name: "j", run: "x", expect: { outputContains: "$json:nope" } },
      { name: "b", run: "x", baseline: true, expect: { exitZero: true } },
    ],
    extra: 1,
  });
  assert.equal(bad.ok, false);
  if (bad.ok) return;
  assert.equal(bad.error.code, "contract_invalid");
  const issues = bad.error.issues.join("\n");
  for (
    const needle of [
      "checks.0.run",
      'duplicate check name "a"',
      "checks.1.expect: check asserts nothing",
      'checks.2.differential.against: "a" is not the name of a baseline check',
      "deltaWithin needs at least one bound",
      "checks.3.expect.outputContains: malformed $json",
      "checks.4.expect: a baseline check is capture-only",
      'Unrecognized key: "extra"',
    ]
  ) assert.ok(issues.includes(needle), `missing: ${needle}\n${issues}`);
  assert.equal(parseContract({ checks: [{ name: "b", run: "x", baseline: true }] }).ok, false);
  const notJson = parseContractText("{checks:");
  assert.equal(!notJson.ok && notJson.error.code, "contract_not_json");
  await assert.rejects(
    () => loadContract("/nonexistent/contract.json"),
    (e) => (e as { code: string }).code === "contract_unreadable",
  );
  const schema = contractJsonSchema();
  assert.equal(schema.type, "object");
  assert.ok(JSON.stringify(schema).includes("deltaWithin"));
});

Deno.test("cancellation: the running check is killed, later checks fail as not run", async () => {
  const dir = await tree();
  try {
    const c = contract({
      checks: [{ name: "slow", run: "sleep 600" }, { name: "next", run: "true" }],
    });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 150);
    const started = Date.now();
    const r = await evaluateContract(c, [], { cwd: dir, sandbox: NONE, signal: ac.signal });
    // Far below the check's 600 s sleep: killed on abort, whatever the machine's load.
    assert.ok(Date.now() - started < 60_000);
    assert.equal(r.judgement.verdict, "failed");
    assert.equal(r.records[0]!.result!.exitCode, 124);
    assert.equal(r.records[0]!.result!.cancelled, true);
    // Stopped by Ctrl-C (not the deadline): cancelled, it proves nothing (the deleted
    // test-only runner called it "timed out").
    assert.equal(r.judgement.checks[0]!.reasons[0]!.code, "cannot_run");
    assert.match(r.records[0]!.observation.cannotRun ?? "", /cancelled/);
    assert.equal(r.judgement.checks[1]!.reasons[0]!.code, "cannot_run");
    assert.match(r.records[1]!.observation.cannotRun ?? "", /cancelled/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("contract sandbox field: readOnly paths and check/agent limits are parsed; bad ones refused", async () => {
  const { contractFileSchema, toOutcomeContract } = await import(
    "../../../adapters/contract/schema.ts"
  );
  const c = toOutcomeContract(contractFileSchema.parse({
    checks: [{ name: "t", run: "true" }],
    sandbox: {
      readOnly: ["/opt/sdk"],
      limits: { memoryMb: 512, processes: 64 },
      agentLimits: { tmpMb: 128 },
    },
  }));
  assert.deepEqual(c.sandbox, {
    readOnly: ["/opt/sdk"],
    limits: { memoryMb: 512, processes: 64 },
    agentLimits: { tmpMb: 128 },
  });
  for (
    const bad of [
      { readOnly: ["relative"] },
      { limits: { memoryMb: 0 } },
      { limits: { processes: 1.5 } },
      { agentLimits: { cpu: 1 } },
    ]
  ) {
    assert.equal(
      contractFileSchema.safeParse({ checks: [{ name: "t", run: "true" }], sandbox: bad }).success,
      false,
      JSON.stringify(bad),
    );
  }
});
