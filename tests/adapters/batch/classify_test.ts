import assert from "node:assert/strict";
import { classifyOutcome, type OutcomeFacts } from "../../../adapters/batch/mod.ts";

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
