/**
 * From a verification's outcome to SWE-bench's classes and vouch's reason:
 * `resolved` only when verified; scope, protected-path, policy, dependency and
 * test failures are `unresolved` (the candidate's fault); a patch that does not
 * apply, an invalid contract or a verification that could not run is `error`
 * (as in SWE-bench, where such instances get no report). Pure.
 *
 * @module
 */
import type { FinalState } from "../../kernel/lifecycle/outcome.ts";
import { type VerdictRow, VERDICTS } from "../driver/verdicts.ts";
import type { CandidateReason, CandidateStatus } from "./schema.ts";

/** The parts of a `vouch verify` outcome the classes depend on. */
export interface OutcomeFacts {
  /** `verified` or `rejected`. */
  readonly verdict: string;
  /** vouch's reason codes. */
  readonly reasons: readonly string[];
  /** Scope violations (code, path, detail). */
  readonly violations: readonly {
    readonly code: string;
    readonly path: string;
    readonly detail: string;
  }[];
  /** Gating check summaries after the patch, with listed tests. */
  readonly checks: readonly {
    readonly name: string;
    readonly passed: boolean;
    readonly outcome: string;
    readonly tests?: readonly {
      readonly id: string;
      readonly list: string;
      readonly status: string;
    }[];
  }[];
}

/** A candidate's class, reason and a line for humans. */
export interface Classification {
  /** SWE-bench's class. */
  readonly status: CandidateStatus;
  /** vouch's reason. */
  readonly reason: CandidateReason;
  /** One line. */
  readonly detail: string;
}

const CONTRACT_INVALID = [
  "baseline_fail_to_pass_passes",
  "baseline_pass_to_pass_fails",
  "baseline_gates_nothing",
];

const COULD_NOT_RUN = [
  "verify_command_cannot_start",
  "baseline_cannot_run",
  "baseline_failed",
  "setup_failed",
  "setup_network_not_allowed",
  "create_failed",
  "extract_failed",
  "bad_task_id",
  "inside_repo",
  "exists",
  "not_owned",
];

function shown(ids: readonly string[]): string {
  return ids.slice(0, 3).join(", ") + (ids.length > 3 ? ` and ${ids.length - 3} more` : "");
}

/**
 * Classifies a verification outcome.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { classifyOutcome } from "./classify.ts";
 * const c = classifyOutcome({
 *   verdict: "rejected", reasons: ["checks_failed"], violations: [],
 *   checks: [{ name: "tests", passed: false, outcome: "failed", tests: [{ id: "adds", list: "failToPass", status: "failed" }] }],
 * });
 * equal(c.status, "unresolved");
 * equal(c.reason, "failed_tests");
 * equal(c.detail, "failToPass not passing: adds");
 * ```
 */
export function classifyOutcome(o: OutcomeFacts): Classification {
  if (o.verdict === "verified") {
    return { status: "resolved", reason: "verified", detail: "verified" };
  }
  const has = (code: string) => o.reasons.includes(code);
  const first = o.violations[0];
  if (first !== undefined) {
    const reason: CandidateReason = first.code === "protected_path"
      ? "protected_path"
      : first.code === "unparsable_patch"
      ? "unparsable_patch"
      : "scope_violation";
    const protectedHit = o.violations.find((v) => v.code === "protected_path");
    const v = reason === "scope_violation" && protectedHit !== undefined ? protectedHit : first;
    const why = v.code === "protected_path" ? "protected_path" : reason;
    // The reason says the code already; a violation of no path (an unparsable patch) names none.
    const where = v.path === "" ? "" : `${v.path}: `;
    return {
      status: "unresolved",
      reason: why,
      detail: v.code === why ? `${where}${v.detail}` || v.code : `${v.code} ${where}${v.detail}`,
    };
  }
  const policy = o.reasons.find((r) => r.startsWith("policy_denied"));
  if (policy !== undefined) {
    return { status: "unresolved", reason: "policy_denied", detail: policy };
  }
  const invalid = o.reasons.find((r) => CONTRACT_INVALID.includes(r));
  if (invalid !== undefined) {
    return { status: "error", reason: "contract_invalid", detail: invalid };
  }
  if (has("apply_failed") || has("patch_too_large")) {
    return { status: "error", reason: "patch_does_not_apply", detail: o.reasons.join(", ") };
  }
  if (has("dependency_change_needs_setup")) {
    return {
      status: "unresolved",
      reason: "artefact_dependence",
      detail: "the patch changes dependency manifests the clean tree cannot install without setup",
    };
  }
  if (has("patch_writes_dependency_dir")) {
    return {
      status: "unresolved",
      reason: "artefact_dependence",
      detail:
        "the patch writes under an installed dependency directory the clean tree gets from the checkout",
    };
  }
  const cannot = o.reasons.find((r) => COULD_NOT_RUN.includes(r));
  if (cannot !== undefined) return { status: "error", reason: "could_not_run", detail: cannot };
  const tests = o.checks.flatMap((c) => c.tests ?? []).filter((t) => t.status !== "passed");
  if (tests.length > 0) {
    const f2p = tests.filter((t) => t.list === "failToPass").map((t) => t.id);
    const p2p = tests.filter((t) => t.list === "passToPass").map((t) => t.id);
    const parts = [
      ...(f2p.length > 0 ? [`failToPass not passing: ${shown(f2p)}`] : []),
      ...(p2p.length > 0 ? [`passToPass not passing: ${shown(p2p)}`] : []),
    ];
    return { status: "unresolved", reason: "failed_tests", detail: parts.join("; ") };
  }
  const failed = o.checks.filter((c) => !c.passed).map((c) => `${c.name} (${c.outcome})`);
  if (has("checks_failed") || failed.length > 0) {
    return {
      status: "unresolved",
      reason: "checks_failed",
      detail: `checks failed: ${shown(failed)}`,
    };
  }
  return {
    status: "error",
    reason: "could_not_run",
    detail: o.reasons.length > 0 ? o.reasons.join(", ") : "rejected without a reason",
  };
}

/** The verdict a class stands for when a record does not carry `vouch verify`'s own. */
const VERDICT_OF_STATUS: Readonly<Record<CandidateStatus, FinalState>> = {
  resolved: "verified",
  unresolved: "rejected",
  // `vouch verify` of an empty patch: REJECTED (the patch changes no file).
  empty_patch: "rejected",
  error: "could_not_run",
};

/**
 * A candidate's row of the one verdict table (adapters/driver/verdicts.ts):
 * the verdict `vouch verify` gave it (recorded as `verdict`), else the one its
 * class stands for. Batch lines, report.md and the exit code use its word and
 * code, so batch and verify say the same thing of the same outcome.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { candidateVerdict } from "./classify.ts";
 * equal(candidateVerdict({ status: "unresolved" }).word, "REJECTED");
 * equal(candidateVerdict({ status: "error" }).exitCode, 5);
 * equal(candidateVerdict({ status: "error", verdict: "rejected" }).word, "REJECTED");
 * ```
 */
export function candidateVerdict(
  c: { readonly status: CandidateStatus; readonly verdict?: FinalState | undefined },
): VerdictRow {
  return VERDICTS[c.verdict ?? VERDICT_OF_STATUS[c.status]];
}
