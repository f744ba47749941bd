import assert from "node:assert/strict";
import { classifyOutcome, type OutcomeFacts } from "../../../adapters/batch/classify.ts";

const rejected = (partial: Partial<OutcomeFacts>): OutcomeFacts => ({
  verdict: "rejected",
  reasons: [],
  violations: [],
  checks: [],
  ...partial,
});

Deno.test("classification: each kind of rejection gets SWE-bench's class and vouch's reason", () => {
  const cases: [OutcomeFacts, string, string][] = [
    [{ ...rejected({}), verdict: "verified" }, "resolved", "verified"],
    [
      rejected({
        reasons: ["forbidden", "protected_path"],
        violations: [
          { code: "forbidden", path: ".github/x.yml", detail: "forbidden" },
          { code: "protected_path", path: "test/a.js", detail: "protected" },
        ],
      }),
      "unresolved",
      "protected_path",
    ],
    [
      rejected({ violations: [{ code: "outside_allow", path: "x", detail: "" }] }),
      "unresolved",
      "scope_violation",
    ],
    [
      rejected({ violations: [{ code: "unparsable_patch", path: "", detail: "" }] }),
      "unresolved",
      "unparsable_patch",
    ],
    [rejected({ reasons: ["policy_denied:ci_config"] }), "unresolved", "policy_denied"],
    [rejected({ reasons: ["baseline_fail_to_pass_passes"] }), "error", "contract_invalid"],
    [rejected({ reasons: ["apply_failed", "checks_failed"] }), "error", "patch_does_not_apply"],
    [
      rejected({ reasons: ["dependency_change_needs_setup"] }),
      "unresolved",
      "artefact_dependence",
    ],
    [
      rejected({ reasons: ["patch_writes_dependency_dir"] }),
      "unresolved",
      "artefact_dependence",
    ],
    [rejected({ reasons: ["baseline_cannot_run"] }), "error", "could_not_run"],
    [rejected({ reasons: ["verify_command_cannot_start"] }), "error", "could_not_run"],
    [
      rejected({
        reasons: ["checks_failed"],
        checks: [{
          name: "t",
          passed: false,
          outcome: "failed",
          tests: [{ id: "b", list: "passToPass", status: "missing" }],
        }],
      }),
      "unresolved",
      "failed_tests",
    ],
    [
      rejected({
        reasons: ["checks_failed"],
        checks: [{ name: "lint", passed: false, outcome: "failed" }],
      }),
      "unresolved",
      "checks_failed",
    ],
    [rejected({}), "error", "could_not_run"],
  ];
  for (const [facts, status, reason] of cases) {
    const c = classifyOutcome(facts);
    assert.deepEqual([c.status, c.reason], [status, reason], JSON.stringify(facts));
    assert.ok(c.detail.length > 0);
  }
});

Deno.test("batch words and exit codes are the verdict table's: what vouch verify says of the same outcome", async () => {
  const { candidateVerdict } = await import("../../../adapters/batch/classify.ts");
  const { candidateLine } = await import("../../../adapters/batch/progress.ts");
  const { reportMarkdown } = await import("../../../adapters/batch/render.ts");
  const { buildReport } = await import("../../../adapters/batch/report.ts");
  const { VERDICTS } = await import("../../../adapters/driver/verdicts.ts");
  const { FINAL_STATES } = await import("../../../kernel/lifecycle/outcome.ts");
  // The state vouch verify ended in, recorded: its word and code, whatever the class.
  for (const state of FINAL_STATES) {
    for (const status of ["resolved", "unresolved", "error", "empty_patch"] as const) {
      assert.equal(candidateVerdict({ status, verdict: state }), VERDICTS[state]);
    }
  }
  // Records without it (older vouch): the class's verdict, as verify words it.
  assert.equal(candidateVerdict({ status: "resolved" }).word, "VERIFIED");
  assert.equal(candidateVerdict({ status: "unresolved" }).word, "REJECTED");
  assert.equal(candidateVerdict({ status: "empty_patch" }).word, "REJECTED");
  assert.equal(candidateVerdict({ status: "error" }).word, "COULD NOT RUN");
  assert.equal(candidateVerdict({ status: "error" }).exitCode, 5);
  // A verify outcome classified: the word its class stands for is verify's own word.
  const pairs: [OutcomeFacts, (typeof FINAL_STATES)[number]][] = [
    [{ ...rejected({}), verdict: "verified" }, "verified"],
    [
      rejected({
        reasons: ["checks_failed"],
        checks: [{ name: "t", passed: false, outcome: "failed" }],
      }),
      "rejected",
    ],
    [rejected({ reasons: ["verify_command_cannot_start"] }), "could_not_run"],
    [rejected({ reasons: ["baseline_cannot_run"] }), "could_not_run"],
  ];
  for (const [facts, state] of pairs) {
    assert.equal(candidateVerdict(classifyOutcome(facts)), VERDICTS[state], state);
  }
  const line = candidateLine(
    { id: "t1", status: "error", reason: "could_not_run", detail: "x", verdict: "could_not_run" },
    1,
    2,
  );
  assert.equal(line, "[1/2] t1: COULD NOT RUN, error (could_not_run: x)");
  const record = {
    id: "t1",
    instance_id: "t1",
    model_name_or_path: "m",
    key: "k",
    patch_digest: "d",
    base: "b",
    status: "unresolved" as const,
    reason: "failed_tests" as const,
    reasons: [],
    detail: "failToPass not passing: adds",
    tests: [],
    artefacts: { dir: null, log: null, verified_patch: null, attestation: null },
    verdict: "rejected" as const,
  };
  const md = reportMarkdown(
    buildReport(
      {
        tasks: "t",
        predictions: "p",
        task_ids: ["t1"],
        candidate_ids: ["t1"],
        unpredicted_task_ids: [],
      },
      [record],
      null,
    ),
  );
  assert.match(
    md,
    /\| t1 \| m \| REJECTED \| unresolved \| failed_tests \| failToPass not passing: adds \|/,
  );
});

Deno.test("classification: a violation's detail names its path once and never repeats the reason", () => {
  const detail = (v: OutcomeFacts["violations"][number]) =>
    classifyOutcome(rejected({ violations: [v] })).detail;
  // It was "unparsable_patch : no_diff ..." (the code again and an empty path).
  assert.equal(
    detail({ code: "unparsable_patch", path: "", detail: "no_diff at line 0" }),
    "no_diff at line 0",
  );
  assert.equal(
    detail({ code: "protected_path", path: "test/a.js", detail: "protected" }),
    "test/a.js: protected",
  );
  // A scope violation keeps its own code: the reason (scope_violation) does not say which.
  assert.equal(
    detail({ code: "outside_allow", path: "x.js", detail: "not under src/**" }),
    "outside_allow x.js: not under src/**",
  );
});
