/**
 * The bundle judgement: pure, synchronous, deterministic. It receives what the
 * adapter observed (validated documents, recomputed digests, lstat outcomes,
 * the candidate bytes, the bundle listing) and decides. It never trusts the
 * worker: declared changed paths and counters are ignored, worker success is
 * necessary but never sufficient, and every failure is a reason code.
 *
 * @module
 */
import { buildCheck, type Reason, unique } from "./_checks.ts";
import { judgeBundlePatch } from "./_patch_review.ts";
import type { BundleFacts } from "./facts.ts";
import { sameJsonValue } from "./json_equal.ts";
import { BUNDLE_REASONS, recommendationFor } from "./reasons.ts";
import { type BundleProblem, MANIFEST_LOCATOR, planBundleReads } from "./read_plan.ts";
import type {
  ResultManifest,
  VerificationEvidence,
  VerificationFinding,
  VerificationResult,
  WorkUnit,
} from "./types.ts";

/** Validator ids the bundle backends implement. */
export const BUNDLE_BACKEND_VALIDATORS: readonly string[] = [
  "result-manifest-schema",
  "independent-review",
];

/**
 * Judges a bundle from observed facts and returns the VerificationResult.
 *
 * @example
 * ```ts
 * import { judgeBundle } from "./judge.ts";
 * import type { EvaluatorPlanV01, WorkUnit } from "./types.ts";
 * const workUnit: WorkUnit = {
 *   schema_version: "0.1", id: "wu", version: "1", kind: "other", objective: "answer",
 *   constraints: { allowed_paths: [], forbidden_paths: [] },
 *   permissions: { network: "none", filesystem_write: [] },
 *   validators: [
 *     { id: "result-manifest-schema", type: "schema", required: true },
 *     { id: "independent-review", type: "review", required: true },
 *   ],
 * };
 * const digest = "sha256:" + "0".repeat(64);
 * const plan: EvaluatorPlanV01 = {
 *   schema_version: "0.1", id: "p", visibility: "public", execution_mode: "metadata_only",
 *   binding: { work_unit_id: "wu", work_unit_version: "1", work_unit_digest: digest },
 *   verifier: { id: "v", type: "system", adapter: "deterministic-json-verifier", adapter_version: "1" },
 *   required_validator_ids: ["result-manifest-schema", "independent-review"],
 *   candidate_artifact_id: "answer", allowed_files: ["answer.json"], max_candidate_bytes: 100,
 *   required_json: { answer: 42 },
 *   policy: {
 *     require_plan_outside_candidate_root: true,
 *     require_output_outside_candidate_root: true,
 *     require_verifier_distinct_from_worker: true,
 *   },
 * };
 * const result = judgeBundle({
 *   workUnit, workUnitDigest: digest, plan, planDigest: digest,
 *   manifest: { ok: false, code: "manifest_missing", detail: "no result-manifest.json" },
 *   files: new Map(),
 *   entries: { ok: true, paths: [] },
 * });
 * if (result.decision_support.recommendation !== "reject_candidate") throw new Error("unexpected");
 * ```
 */
export function judgeBundle(facts: BundleFacts): VerificationResult {
  const { workUnit, plan } = facts;
  const reasons: Reason[] = [];
  const evidence: VerificationEvidence[] = [];
  let reviewRan = false;

  const requiredIds = requiredValidatorIds(workUnit);
  if (!sameSet(plan.required_validator_ids, requiredIds)) {
    reasons.push({
      code: "validator_set_mismatch",
      detail: `plan implements [${plan.required_validator_ids.join(", ")}], WorkUnit requires [${
        requiredIds.join(", ")
      }]`,
    });
  } else if (!sameSet(BUNDLE_BACKEND_VALIDATORS, requiredIds)) {
    reasons.push({
      code: "validator_set_mismatch",
      detail: `backend implements [${BUNDLE_BACKEND_VALIDATORS.join(", ")}], WorkUnit requires [${
        requiredIds.join(", ")
      }]`,
    });
  }
  const binding = plan.binding;
  const planDrift = describeDrift(
    binding.work_unit_id,
    binding.work_unit_version,
    binding.work_unit_digest,
    workUnit,
    facts.workUnitDigest,
  );
  if (planDrift !== null) reasons.push({ code: "plan_binding_mismatch", detail: planDrift });

  const m = facts.manifest;
  let manifest: ResultManifest | null = null;
  if (!m.ok) {
    reasons.push({ code: m.code, detail: m.detail, path: MANIFEST_LOCATOR });
  } else {
    manifest = m.value;
    const drift = describeDrift(
      manifest.work_unit_id,
      manifest.work_unit_version,
      manifest.provenance.work_unit_digest,
      workUnit,
      facts.workUnitDigest,
    );
    const revisionDrift = binding.source_revision !== undefined &&
      manifest.provenance.source_revision !== undefined &&
      binding.source_revision !== manifest.provenance.source_revision;
    if (drift !== null || revisionDrift) {
      // Fail closed: nothing about the candidate is judged for another WorkUnit.
      reasons.push({
        code: "binding_drift",
        detail: drift ??
          `source revision ${manifest.provenance.source_revision} != ${binding.source_revision}`,
      });
    } else {
      reviewRan = true;
      reviewManifest(facts, manifest, requiredIds, reasons, evidence);
    }
  }

  const codes = unique(reasons.map((r) => r.code));
  const recommendation = recommendationFor(codes);
  const checks = requiredIds.map((id) =>
    buildCheck(id, workUnit, reasons, evidence, manifest !== null, reviewRan)
  );
  const findings: VerificationFinding[] = reasons.map((r) => {
    const info = BUNDLE_REASONS[r.code];
    const finding: VerificationFinding = {
      severity: info.outcome === "reject_candidate" ? "high" : "medium",
      category: info.category,
      code: r.code,
      summary: r.subcode === undefined ? r.detail : `${r.subcode}: ${r.detail}`,
    };
    if (r.path !== undefined) finding.path = r.path;
    return finding;
  });

  return {
    schema_version: "0.1",
    result_manifest_id: manifest?.id ?? null,
    work_unit_id: workUnit.id,
    work_unit_version: workUnit.version,
    attempt: manifest?.attempt ?? null,
    verifier: {
      id: plan.verifier.id,
      type: "system",
      adapter: plan.verifier.adapter,
      version: plan.verifier.adapter_version,
    },
    independence: {
      independent_from_worker: manifest === null ? false : manifest.worker.id !== plan.verifier.id,
      worker_id_observed: manifest?.worker.id ?? null,
    },
    status: recommendation === "accept_candidate"
      ? "passed"
      : recommendation === "reject_candidate"
      ? "failed"
      : "inconclusive",
    checks,
    evidence,
    findings,
    provenance: {
      result_manifest_digest: m.ok ? m.digest : null,
      work_unit_digest: facts.workUnitDigest,
      source_revision: binding.source_revision ?? null,
      verifier_config_digest: facts.planDigest,
    },
    decision_support: {
      recommendation,
      confidence: recommendation === "accept_candidate" || recommendation === "reject_candidate"
        ? "high"
        : "low",
      rationale: rationale(recommendation, reasons),
      reason_codes: codes,
    },
  };
}

/**
 * The result for inputs that could not even be judged (an invalid WorkUnit or plan).
 *
 * @example
 * ```ts
 * import { unjudgeableResult } from "./judge.ts";
 * const r = unjudgeableResult("plan_invalid", "Cannot read plan: not found");
 * if (r.decision_support.recommendation !== "insufficient_evidence") throw new Error("unexpected");
 * ```
 */
export function unjudgeableResult(
  code: "work_unit_invalid" | "plan_invalid" | "evaluator_error",
  detail: string,
): VerificationResult {
  return {
    schema_version: "0.1",
    result_manifest_id: null,
    work_unit_id: null,
    work_unit_version: null,
    attempt: null,
    verifier: { id: "vouch-bundle-evaluator", type: "system", adapter: "vouch", version: "0.1.0" },
    independence: { independent_from_worker: false, worker_id_observed: null },
    status: "inconclusive",
    checks: [],
    evidence: [],
    findings: [{
      severity: "medium",
      category: BUNDLE_REASONS[code].category,
      code,
      summary: detail,
    }],
    provenance: {
      result_manifest_digest: null,
      work_unit_digest: null,
      source_revision: null,
      verifier_config_digest: null,
    },
    decision_support: {
      recommendation: "insufficient_evidence",
      confidence: "low",
      rationale: `Insufficient evidence: ${code}: ${detail}`,
      reason_codes: [code],
    },
  };
}

/**
 * The WorkUnit-required validator ids, in WorkUnit order, without repeats.
 *
 * @example
 * ```ts
 * import { requiredValidatorIds } from "./judge.ts";
 * import type { WorkUnit } from "./types.ts";
 * const workUnit: WorkUnit = {
 *   schema_version: "0.1", id: "wu", version: "1", kind: "other", objective: "x",
 *   constraints: { allowed_paths: [], forbidden_paths: [] },
 *   permissions: { network: "none", filesystem_write: [] },
 *   validators: [
 *     { id: "result-manifest-schema", type: "schema", required: true },
 *     { id: "lint", type: "static", required: false },
 *   ],
 * };
 * if (requiredValidatorIds(workUnit).join() !== "result-manifest-schema") throw new Error();
 * ```
 */
export function requiredValidatorIds(workUnit: WorkUnit): string[] {
  return unique(workUnit.validators.filter((v) => v.required).map((v) => v.id));
}

function reviewManifest(
  facts: BundleFacts,
  manifest: ResultManifest,
  requiredIds: readonly string[],
  reasons: Reason[],
  evidence: VerificationEvidence[],
): void {
  const { plan, workUnit } = facts;
  const requested = new Set(manifest.verification_request.expected_validator_ids);
  const missing = requiredIds.filter((id) => !requested.has(id));
  if (missing.length > 0) {
    reasons.push({
      code: "requested_validators_incomplete",
      detail: `expected_validator_ids lacks [${missing.join(", ")}]`,
    });
  }
  if (manifest.worker.id === plan.verifier.id) {
    reasons.push({
      code: "verifier_not_independent",
      detail: `verifier id ${JSON.stringify(plan.verifier.id)} is the worker id`,
    });
  }

  const readPlan = planBundleReads(plan, manifest);
  for (const p of readPlan.problems) reasons.push(problemReason(p));

  let candidateBytes: Uint8Array | null = null;
  for (const read of readPlan.reads) {
    const seen = facts.files.get(read.path);
    if (seen === undefined) {
      reasons.push({
        code: "file_unreadable",
        detail: `${read.path} was not observed by the adapter`,
        path: read.path,
      });
      continue;
    }
    if (!seen.ok) {
      reasons.push({ code: seen.code, detail: seen.detail, path: read.path });
      continue;
    }
    if (seen.size > read.maxBytes) {
      reasons.push({
        code: "file_oversize",
        detail: `${read.path} has ${seen.size} bytes, cap ${read.maxBytes}`,
        path: read.path,
      });
      continue;
    }
    if (seen.digest !== read.declaredDigest) {
      reasons.push({
        code: "digest_mismatch",
        detail: `${read.path}: declared ${read.declaredDigest}, recomputed ${seen.digest}`,
        path: read.path,
      });
    } else {
      evidence.push({ id: read.id, type: read.type, locator: read.path, digest: seen.digest });
    }
    if (read.role === "candidate") {
      if (seen.bytes === undefined) {
        reasons.push({
          code: "file_unreadable",
          detail: `${read.path}: candidate bytes were not handed over`,
          path: read.path,
        });
      } else {
        candidateBytes = seen.bytes;
      }
    }
  }

  if (!facts.entries.ok) {
    reasons.push({ code: "bundle_unreadable", detail: facts.entries.detail });
  } else {
    const declared = new Set<string>([MANIFEST_LOCATOR, ...readPlan.reads.map((r) => r.path)]);
    for (const p of readPlan.problems) if (p.path !== undefined) declared.add(p.path);
    for (const path of facts.entries.paths) {
      if (!declared.has(path)) {
        reasons.push({ code: "undeclared_file", detail: `${path} is not declared`, path });
      }
    }
  }

  if (candidateBytes !== null) {
    if (plan.schema_version === "0.2") {
      judgeBundlePatch(candidateBytes, workUnit, plan.backend.required_added_text, reasons);
    } else {
      const json = facts.candidateJson;
      if (json === undefined) {
        reasons.push({
          code: "candidate_json_invalid",
          detail: "the candidate was not parsed as JSON",
        });
      } else if (!json.ok) {
        reasons.push({ code: "candidate_json_invalid", detail: json.detail, subcode: json.code });
      } else if (!sameJsonValue(json.value, plan.required_json)) {
        reasons.push({
          code: "json_mismatch",
          detail: "the candidate JSON differs from the plan's required_json",
        });
      }
    }
  }

  if (manifest.status !== "succeeded") {
    reasons.push({
      code: "worker_status_not_succeeded",
      detail: `worker status is ${manifest.status}`,
    });
  }
}

function problemReason(p: BundleProblem): Reason {
  const r: Reason = { code: p.code, detail: p.detail };
  if (p.path !== undefined) r.path = p.path;
  return r;
}

function describeDrift(
  id: string,
  version: string,
  digest: string,
  workUnit: WorkUnit,
  workUnitDigest: string,
): string | null {
  const parts: string[] = [];
  if (id !== workUnit.id) parts.push(`id ${JSON.stringify(id)} != ${JSON.stringify(workUnit.id)}`);
  if (version !== workUnit.version) {
    parts.push(`version ${JSON.stringify(version)} != ${JSON.stringify(workUnit.version)}`);
  }
  if (digest !== workUnitDigest) parts.push(`digest ${digest} != ${workUnitDigest}`);
  return parts.length === 0 ? null : `bound to another WorkUnit: ${parts.join("; ")}`;
}

function rationale(recommendation: string, reasons: readonly Reason[]): string {
  if (reasons.length === 0) {
    return "Every required check passed on independently recomputed evidence, and the worker " +
      "reported succeeded (necessary, not sufficient).";
  }
  const all = [
    ...new Set(reasons.map((r) => {
      const code = r.subcode === undefined ? r.code : `${r.code}/${r.subcode}`;
      return r.path === undefined ? code : `${code} (${r.path})`;
    })),
  ];
  const shown = all.slice(0, 8);
  const more = all.length > 8 ? `, and ${all.length - 8} more` : "";
  return `${recommendation}: ${shown.join(", ")}${more}`;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  if (sa.size !== sb.size) return false;
  for (const x of sa) if (!sb.has(x)) return false;
  return true;
}
