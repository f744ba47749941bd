/**
 * Plain typed shapes of the bundle protocol (after the idkmesh seed design):
 * a verifier-owned `WorkUnit` (the authority), a worker-written
 * `ResultManifest` (an untrusted claim), a verifier-owned `EvaluatorPlan`
 * (v0.1 exact-JSON or v0.2 unified_diff) and the `VerificationResult` the
 * evaluator emits. Adapters validate incoming bytes with zod schemas whose
 * output is assignable to these types; the kernel only ever sees typed values.
 *
 * @module
 */

/** `sha256:` followed by 64 lower-case hex digits. */
export type Sha256Digest = string;

/** Worker status values a ResultManifest may declare. */
export type WorkerStatus = "succeeded" | "failed" | "error" | "timeout" | "cancelled";

/** A validator a WorkUnit asks for. */
export interface WorkUnitValidator {
  /** Stable validator id, e.g. `result-manifest-schema`. */
  id: string;
  /** Free-form validator type (`schema`, `review`, `test`, ...). */
  type: string;
  /** Whether a VerificationResult must report this validator as a check. */
  required: boolean;
  /** Optional command (informational; the bundle evaluator never runs anything). */
  command?: string[] | undefined;
}

/** The verifier-owned description of a unit of work: its authority over paths. */
export interface WorkUnit {
  /** Protocol version of this document. */
  schema_version: "0.1";
  /** Stable WorkUnit id. */
  id: string;
  /** WorkUnit version (bumped on any change). */
  version: string;
  /** What kind of work this is. */
  kind:
    | "coding"
    | "testing"
    | "research"
    | "review"
    | "integration"
    | "documentation"
    | "governance"
    | "other";
  /** The objective in words. */
  objective: string;
  /** Inputs given to the worker. */
  inputs?:
    | { id: string; type: string; locator: string; digest?: Sha256Digest | undefined }[]
    | undefined;
  /** Outputs the worker should produce. */
  outputs?: { id: string; type: string; description?: string | undefined }[] | undefined;
  /** Other WorkUnits this one relates to. */
  dependencies?: {
    work_unit_id: string;
    relationship: "requires" | "blocks" | "informs" | "validates" | "derived_from";
  }[] | undefined;
  /** Known uncertainty, in words. */
  uncertainty?: { statement: string; confidence?: number | undefined }[] | undefined;
  /** Path authority: globs the work may touch, and globs it must never touch. */
  constraints: {
    allowed_paths: string[];
    forbidden_paths: string[];
    policies?: string[] | undefined;
  };
  /** Permissions granted to the worker; `filesystem_write` globs bound what a patch may write. */
  permissions: {
    network: "none" | "allowlist" | "unrestricted";
    network_allowlist?: string[] | undefined;
    filesystem_write: string[];
    secrets?: string[] | undefined;
    process_execution?: boolean | undefined;
  };
  /** Validators; the `required` ones are exactly the checks a VerificationResult reports. */
  validators: WorkUnitValidator[];
  /** Evidence the worker is asked to provide. */
  evidence_requirements?: { type: string; required: boolean }[] | undefined;
  /** Resource budget (informational for the bundle evaluator). */
  budget?: {
    wall_seconds?: number | undefined;
    compute_units?: number | undefined;
    human_minutes?: number | undefined;
    tokens?: number | undefined;
  } | undefined;
  /** What to do when the work fails (informational for the bundle evaluator). */
  failure_semantics?: {
    retryable: boolean;
    max_attempts: number;
    on_failure: "stop" | "retry" | "replan" | "escalate" | "continue_degraded";
  } | undefined;
  /** Provenance of the WorkUnit itself. */
  provenance?: {
    created_by: string;
    creator_type?: string | undefined;
    source?: string | undefined;
  } | undefined;
}

/** A file a worker declares inside its bundle. */
export interface DeclaredArtifact {
  /** Artifact id (unique within the manifest). */
  id: string;
  /** Artifact type (`patch`, `file`, `report`, `json`, ...). */
  type: string;
  /** Bundle-relative POSIX path of the file. */
  locator: string;
  /** The worker's claimed digest of the file bytes. */
  digest: Sha256Digest;
}

/** A log a worker declares inside its bundle. */
export interface DeclaredLog {
  /** Which stream the log captures. */
  type: "stdout" | "stderr" | "trace" | "tool_calls";
  /** Bundle-relative POSIX path of the file. */
  locator: string;
  /** The worker's claimed digest of the file bytes. */
  digest: Sha256Digest;
}

/** A worker's self-report about one attempt. Everything in it is a claim, not evidence. */
export interface ResultManifest {
  /** Protocol version of this document. */
  schema_version: "0.1";
  /** Manifest id. */
  id: string;
  /** The WorkUnit id the worker says it worked on. */
  work_unit_id: string;
  /** The WorkUnit version the worker says it worked on. */
  work_unit_version: string;
  /** Attempt number, from 1. */
  attempt: number;
  /** Who did the work. */
  worker: {
    id: string;
    type: string;
    adapter: string;
    adapter_version?: string | undefined;
    model?: string | undefined;
  };
  /** The worker's own status. Required to be `succeeded` for acceptance, never sufficient. */
  status: WorkerStatus;
  /** When the worker started (informational). */
  started_at?: string | undefined;
  /** When the worker finished (informational). */
  finished_at?: string | undefined;
  /** Files the worker produced. */
  produced_artifacts: DeclaredArtifact[];
  /** Logs the worker captured. */
  logs: DeclaredLog[];
  /** Worker-reported metrics (ignored as evidence). */
  metrics?: Record<string, number> | undefined;
  /** Worker-reported resource use (ignored as evidence). */
  resources?: Record<string, number> | undefined;
  /** Worker self-report (ignored as evidence). */
  self_report?: {
    summary: string;
    claims?: string[] | undefined;
    confidence?: { value: number; meaning?: string | undefined } | undefined;
  } | undefined;
  /** Binding to the WorkUnit the worker received. */
  provenance: {
    work_unit_digest: Sha256Digest;
    source_revision?: string | undefined;
    worker_config_digest?: Sha256Digest | undefined;
    environment?: string | undefined;
  };
  /** What the worker asks a verifier to check. */
  verification_request: {
    expected_validator_ids: string[];
    evidence_artifact_ids?: string[] | undefined;
  };
  /** Worker-declared changed paths: a diagnostic only, never evidence. */
  changed_paths?: string[] | undefined;
  /** Worker-declared policy violation counter: a diagnostic only, never evidence. */
  policy_violation_count?: number | undefined;
}

/** The three policy flags every EvaluatorPlan pins to `true`. */
export interface EvaluatorPolicy {
  /** The plan lives outside the candidate bundle. */
  require_plan_outside_candidate_root: true;
  /** The result is written outside the candidate bundle. */
  require_output_outside_candidate_root: true;
  /** The verifier id differs from the worker id. */
  require_verifier_distinct_from_worker: true;
}

/** Fields shared by every EvaluatorPlan version. */
export interface EvaluatorPlanCommon {
  /** Plan id. */
  id: string;
  /** The exact WorkUnit this plan is bound to. */
  binding: {
    work_unit_id: string;
    work_unit_version: string;
    work_unit_digest: Sha256Digest;
    source_revision?: string | undefined;
  };
  /** Whether the plan may be shown to workers. */
  visibility: "public" | "hidden";
  /** Always metadata-only: the evaluator never executes candidate bytes. */
  execution_mode: "metadata_only";
  /** The validator ids this plan claims to implement; must equal the WorkUnit-required set. */
  required_validator_ids: string[];
  /** Id of the produced artifact that is the candidate. */
  candidate_artifact_id: string;
  /** Fixed policy flags. */
  policy: EvaluatorPolicy;
}

/** EvaluatorPlan v0.1: the candidate artifact is JSON that must equal `required_json`. */
export interface EvaluatorPlanV01 extends EvaluatorPlanCommon {
  /** Protocol version. */
  schema_version: "0.1";
  /** The verifier identity. */
  verifier: {
    id: string;
    type: "system";
    adapter: "deterministic-json-verifier";
    adapter_version: string;
  };
  /** Bundle-relative paths the candidate bundle may contain (the manifest aside). */
  allowed_files: string[];
  /** Verifier-owned cap on each declared file, in bytes. */
  max_candidate_bytes: number;
  /** The exact JSON value the candidate must equal. */
  required_json: unknown;
}

/** EvaluatorPlan v0.2: the candidate artifact is a unified diff. */
export interface EvaluatorPlanV02 extends EvaluatorPlanCommon {
  /** Protocol version. */
  schema_version: "0.2";
  /** The verifier identity. */
  verifier: {
    id: string;
    type: "system";
    adapter: "deterministic-patch-verifier";
    adapter_version: string;
  };
  /** The unified_diff backend. */
  backend: {
    type: "unified_diff";
    /** Verifier-owned cap on the patch and other artifacts, in bytes. */
    max_candidate_bytes: number;
    /** Verifier-owned cap on each log, in bytes. */
    max_log_bytes: number;
    /** Lines that must each equal one whole added line of the patch. */
    required_added_text: string[];
    /** Always true: an empty patch is rejected. */
    require_nonempty_patch: true;
    /** Always true: log digests are recomputed. */
    verify_log_digests: true;
  };
}

/** Either plan version. */
export type EvaluatorPlan = EvaluatorPlanV01 | EvaluatorPlanV02;

/** The evaluator's recommendation; never an acceptance on its own authority. */
export type Recommendation =
  | "accept_candidate"
  | "reject_candidate"
  | "escalate"
  | "insufficient_evidence";

/** Status of one emitted check. */
export type VerificationCheckStatus = "passed" | "failed" | "inconclusive";

/** One diagnostic under a check: a reason code plus detail. */
export interface CheckDiagnostic {
  /** Stable reason code. */
  code: string;
  /** Human-readable detail. */
  detail: string;
  /** Path concerned, when there is one. */
  path?: string | undefined;
}

/** One check of a VerificationResult; its id is a WorkUnit-required validator id. */
export interface VerificationCheck {
  /** The validator id. */
  id: string;
  /** The validator's type. */
  type: string;
  /** Whether the WorkUnit requires this validator. */
  required: boolean;
  /** How the check ended. */
  status: VerificationCheckStatus;
  /** One line for humans. */
  summary: string;
  /** Ids of the evidence the check rests on. */
  evidence_ids: string[];
  /** Why, code by code. */
  diagnostics: CheckDiagnostic[];
}

/** A piece of evidence the verifier observed itself (with its recomputed digest). */
export interface VerificationEvidence {
  /** Evidence id. */
  id: string;
  /** Evidence type. */
  type: string;
  /** Bundle-relative POSIX path of the file. */
  locator: string;
  /** The digest the verifier recomputed. */
  digest: Sha256Digest;
}

/** A finding: why the recommendation is what it is. */
export interface VerificationFinding {
  /** How serious the finding is. */
  severity: "info" | "low" | "medium" | "high" | "critical";
  /** What the finding is about. */
  category: "correctness" | "scope" | "provenance" | "integrity" | "policy" | "schema";
  /** Stable reason code. */
  code: string;
  /** One line for humans. */
  summary: string;
  /** Path concerned, when there is one. */
  path?: string | undefined;
}

/** What the evaluator concluded. Deterministic: no clocks, no random ids. */
export interface VerificationResult {
  /** Protocol version of this document. */
  schema_version: "0.1";
  /** The ResultManifest's id (null when unavailable). */
  result_manifest_id: string | null;
  /** The WorkUnit's id (null when unavailable). */
  work_unit_id: string | null;
  /** The WorkUnit's version (null when unavailable). */
  work_unit_version: string | null;
  /** The attempt the manifest claims (null when unavailable). */
  attempt: number | null;
  /** Who verified. */
  verifier: { id: string; type: "system"; adapter: string; version: string };
  /** Whether the verifier is independent of the worker. */
  independence: {
    independent_from_worker: boolean;
    worker_id_observed: string | null;
  };
  /** The overall status. */
  status: "passed" | "failed" | "inconclusive";
  /** One check per WorkUnit-required validator. */
  checks: VerificationCheck[];
  /** The evidence the verifier observed itself. */
  evidence: VerificationEvidence[];
  /** Why the recommendation is what it is. */
  findings: VerificationFinding[];
  /** Digests of the inputs the result rests on. */
  provenance: {
    result_manifest_digest: Sha256Digest | null;
    work_unit_digest: Sha256Digest | null;
    source_revision: string | null;
    verifier_config_digest: Sha256Digest | null;
  };
  /** The recommendation, with its confidence and reasons. */
  decision_support: {
    recommendation: Recommendation;
    confidence: "high" | "medium" | "low";
    rationale: string;
    reason_codes: string[];
  };
}
