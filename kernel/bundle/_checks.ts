/**
 * The bundle judgement's reasons and the check each validator reports
 * (`result-manifest-schema`, `independent-review`) from them.
 *
 * @module
 */
import { BUNDLE_REASONS, type BundleReasonCode } from "./reasons.ts";
import type {
  CheckDiagnostic,
  VerificationCheck,
  VerificationEvidence,
  WorkUnit,
} from "./types.ts";

/** Why a bundle is not accepted: one reason code, its detail and where. */
export interface Reason {
  code: BundleReasonCode;
  detail: string;
  path?: string | undefined;
  /** A finer code (a scope violation code, a confinement code, ...). */
  subcode?: string | undefined;
}

/** The reasons the manifest check (`result-manifest-schema`) reports. */
const MANIFEST_CHECK_REASONS: ReadonlySet<BundleReasonCode> = new Set<BundleReasonCode>([
  "manifest_missing",
  "manifest_json_invalid",
  "json_duplicate_key",
  "json_forbidden_key",
  "manifest_schema_invalid",
  "digest_malformed",
  "binding_drift",
  "requested_validators_incomplete",
  "duplicate_declaration",
  "candidate_artifact_missing",
]);

/** The check validator `id` reports from the judgement's reasons and evidence. */
export function buildCheck(
  id: string,
  workUnit: WorkUnit,
  reasons: readonly Reason[],
  evidence: readonly VerificationEvidence[],
  manifestValid: boolean,
  reviewRan: boolean,
): VerificationCheck {
  const validator = workUnit.validators.find((v) => v.id === id);
  const type = validator?.type ?? "unknown";
  const diag = (r: Reason): CheckDiagnostic => {
    const d: CheckDiagnostic = { code: r.subcode ?? r.code, detail: r.detail };
    if (r.path !== undefined) d.path = r.path;
    return d;
  };
  if (id === "result-manifest-schema") {
    const mine = reasons.filter((r) => MANIFEST_CHECK_REASONS.has(r.code));
    return {
      id,
      type,
      required: true,
      status: mine.length === 0 && manifestValid ? "passed" : "failed",
      summary: mine.length === 0 && manifestValid
        ? "the manifest is strict JSON, schema-valid and bound to this WorkUnit"
        : `the manifest claim is not acceptable: ${unique(mine.map((r) => r.code)).join(", ")}`,
      evidence_ids: [],
      diagnostics: mine.map(diag),
    };
  }
  if (id === "independent-review") {
    if (!reviewRan) {
      return {
        id,
        type,
        required: true,
        status: "inconclusive",
        summary: "not evaluated: the manifest is invalid or bound to another WorkUnit",
        evidence_ids: [],
        diagnostics: [],
      };
    }
    const mine = reasons.filter((r) =>
      !MANIFEST_CHECK_REASONS.has(r.code) && BUNDLE_REASONS[r.code].outcome === "reject_candidate"
    );
    const independence = reasons.filter((r) => r.code === "verifier_not_independent");
    const all = [...mine, ...independence];
    return {
      id,
      type,
      required: true,
      status: all.length === 0
        ? "passed"
        : independence.length > 0 && mine.length === 0
        ? "inconclusive"
        : "failed",
      summary: all.length === 0
        ? "files, digests, scope, semantics and worker status independently verified"
        : `independent review found: ${unique(all.map((r) => r.code)).join(", ")}`,
      evidence_ids: evidence.map((e) => e.id),
      diagnostics: all.map(diag),
    };
  }
  return {
    id,
    type,
    required: true,
    status: "inconclusive",
    summary: "this validator is not implemented by the bundle backends",
    evidence_ids: [],
    diagnostics: [{ code: "validator_set_mismatch", detail: `no backend implements ${id}` }],
  };
}

/** `xs` without repeats, in first-seen order. */
export function unique<T>(xs: readonly T[]): T[] {
  return [...new Set(xs)];
}
