/**
 * Every reason code the bundle evaluator can emit, with the recommendation it
 * forces and the finding category it belongs to. The table is the single
 * source: the judge looks codes up here, and docs/bundles.md lists them.
 *
 * @module
 */
import type { Recommendation, VerificationFinding } from "./types.ts";

/** What a reason does to the recommendation. */
export type ReasonOutcome = Exclude<Recommendation, "accept_candidate">;

/** One row of {@linkcode BUNDLE_REASONS}. */
export interface ReasonInfo {
  /** The recommendation this reason forces (the worst one wins). */
  readonly outcome: ReasonOutcome;
  /** The finding category. */
  readonly category: VerificationFinding["category"];
  /** One line saying what it means. */
  readonly meaning: string;
}

/**
 * The reason table. Order of severity of outcomes: `insufficient_evidence` >
 * `escalate` > `reject_candidate` > `accept_candidate`.
 *
 * @example
 * ```ts
 * import { BUNDLE_REASONS } from "./reasons.ts";
 * if (BUNDLE_REASONS.digest_mismatch.outcome !== "reject_candidate") throw new Error("unexpected");
 * ```
 */
export const BUNDLE_REASONS = {
  // Verifier-owned inputs: nothing can be judged.
  work_unit_invalid: {
    outcome: "insufficient_evidence",
    category: "schema",
    meaning: "the WorkUnit file is unreadable or not a valid WorkUnit",
  },
  plan_invalid: {
    outcome: "insufficient_evidence",
    category: "schema",
    meaning: "the EvaluatorPlan file is unreadable or not a valid plan",
  },
  evaluator_error: {
    outcome: "insufficient_evidence",
    category: "integrity",
    meaning: "the evaluator itself failed (isolated child crashed or returned garbage)",
  },
  // Verifier configuration that a human must fix.
  plan_binding_mismatch: {
    outcome: "escalate",
    category: "policy",
    meaning: "the plan is bound to a different WorkUnit id, version or digest",
  },
  validator_set_mismatch: {
    outcome: "escalate",
    category: "policy",
    meaning: "the plan's or backend's validators differ from the WorkUnit-required set",
  },
  verifier_not_independent: {
    outcome: "escalate",
    category: "policy",
    meaning: "the verifier id equals the worker id",
  },
  // The worker's manifest.
  manifest_missing: {
    outcome: "reject_candidate",
    category: "integrity",
    meaning: "the bundle has no result-manifest.json",
  },
  manifest_json_invalid: {
    outcome: "reject_candidate",
    category: "schema",
    meaning: "the manifest is not strict JSON (syntax, BOM, bad UTF-8, unsafe number, depth)",
  },
  json_duplicate_key: {
    outcome: "reject_candidate",
    category: "schema",
    meaning: "a JSON object repeats a key",
  },
  json_forbidden_key: {
    outcome: "reject_candidate",
    category: "schema",
    meaning: "a JSON object has a __proto__, constructor or prototype key",
  },
  manifest_schema_invalid: {
    outcome: "reject_candidate",
    category: "schema",
    meaning: "the manifest does not match the ResultManifest schema",
  },
  digest_malformed: {
    outcome: "reject_candidate",
    category: "schema",
    meaning: "a declared digest is not sha256: plus 64 lower-case hex digits",
  },
  binding_drift: {
    outcome: "reject_candidate",
    category: "provenance",
    meaning: "the manifest is bound to a different WorkUnit id, version or digest",
  },
  requested_validators_incomplete: {
    outcome: "reject_candidate",
    category: "schema",
    meaning: "the manifest's expected_validator_ids do not cover the WorkUnit-required set",
  },
  duplicate_declaration: {
    outcome: "reject_candidate",
    category: "schema",
    meaning: "two declared artifacts share an id, or two declared files share a locator",
  },
  candidate_artifact_missing: {
    outcome: "reject_candidate",
    category: "integrity",
    meaning: "no declared artifact has the plan's candidate_artifact_id",
  },
  // Declared files.
  locator_not_confined: {
    outcome: "reject_candidate",
    category: "integrity",
    meaning: "a locator escapes the candidate root or is not a clean relative path",
  },
  locator_not_allowed: {
    outcome: "reject_candidate",
    category: "integrity",
    meaning: "a locator is not in the v0.1 plan's allowed_files",
  },
  file_missing: {
    outcome: "reject_candidate",
    category: "integrity",
    meaning: "a declared file does not exist",
  },
  file_symlink: {
    outcome: "reject_candidate",
    category: "integrity",
    meaning: "a declared file, or a directory on its path, is a symbolic link",
  },
  file_not_regular: {
    outcome: "reject_candidate",
    category: "integrity",
    meaning: "a declared file is a directory, FIFO, socket or device",
  },
  file_hardlinked: {
    outcome: "reject_candidate",
    category: "integrity",
    meaning: "a declared file has more than one hard link",
  },
  file_oversize: {
    outcome: "reject_candidate",
    category: "integrity",
    meaning: "a declared file exceeds the verifier-owned size cap",
  },
  file_changed: {
    outcome: "reject_candidate",
    category: "integrity",
    meaning: "a file changed identity or size while it was being read",
  },
  file_unreadable: {
    outcome: "reject_candidate",
    category: "integrity",
    meaning: "a declared file could not be read",
  },
  digest_mismatch: {
    outcome: "reject_candidate",
    category: "provenance",
    meaning: "a declared digest differs from the recomputed SHA-256",
  },
  undeclared_file: {
    outcome: "reject_candidate",
    category: "integrity",
    meaning: "the bundle holds an entry the manifest does not declare",
  },
  bundle_unreadable: {
    outcome: "reject_candidate",
    category: "integrity",
    meaning: "the bundle directory could not be listed, or holds too many entries",
  },
  // The candidate itself.
  patch_unparsable: {
    outcome: "reject_candidate",
    category: "correctness",
    meaning: "the candidate patch is not a valid git diff",
  },
  patch_empty: {
    outcome: "reject_candidate",
    category: "correctness",
    meaning: "the candidate patch touches no file",
  },
  patch_incomplete: {
    outcome: "reject_candidate",
    category: "correctness",
    meaning: "the patch states a binary change without its data (Binary files ... differ)",
  },
  scope_violation: {
    outcome: "reject_candidate",
    category: "scope",
    meaning: "the patch touches a path outside the WorkUnit's authority",
  },
  required_added_line_missing: {
    outcome: "reject_candidate",
    category: "correctness",
    meaning: "a verifier-owned required line is not an added line of the patch",
  },
  candidate_json_invalid: {
    outcome: "reject_candidate",
    category: "correctness",
    meaning: "the v0.1 candidate is not strict JSON",
  },
  json_mismatch: {
    outcome: "reject_candidate",
    category: "correctness",
    meaning: "the v0.1 candidate JSON differs from the plan's required_json",
  },
  worker_status_not_succeeded: {
    outcome: "reject_candidate",
    category: "policy",
    meaning: "the worker did not report status succeeded",
  },
} as const satisfies Record<string, ReasonInfo>;

/** A reason code of the bundle evaluator. */
export type BundleReasonCode = keyof typeof BUNDLE_REASONS;

const OUTCOME_RANK: Record<Recommendation, number> = {
  accept_candidate: 0,
  reject_candidate: 1,
  escalate: 2,
  insufficient_evidence: 3,
};

/**
 * The recommendation a set of reasons forces: the worst outcome, or
 * `accept_candidate` when there are none.
 *
 * @example
 * ```ts
 * import { recommendationFor } from "./reasons.ts";
 * if (recommendationFor([]) !== "accept_candidate") throw new Error("unexpected");
 * if (recommendationFor(["digest_mismatch", "verifier_not_independent"]) !== "escalate") {
 *   throw new Error("unexpected");
 * }
 * ```
 */
export function recommendationFor(codes: readonly BundleReasonCode[]): Recommendation {
  let worst: Recommendation = "accept_candidate";
  for (const code of codes) {
    const outcome = BUNDLE_REASONS[code].outcome;
    if (OUTCOME_RANK[outcome] > OUTCOME_RANK[worst]) worst = outcome;
  }
  return worst;
}
