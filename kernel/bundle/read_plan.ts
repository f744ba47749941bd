/**
 * Which files of a bundle the evaluator reads, with which verifier-owned size
 * caps: derived purely from the plan and the (schema-valid) manifest. Every
 * locator is confined to the candidate root here, before any I/O; a locator
 * that fails is never read.
 *
 * @module
 */
import { confinePath } from "../paths/mod.ts";
import type { BundleReasonCode } from "./reasons.ts";
import type { EvaluatorPlan, ResultManifest } from "./types.ts";

/** The bundle-relative name of the worker's manifest. */
export const MANIFEST_LOCATOR = "result-manifest.json";

/** Verifier-owned cap on the manifest file, in bytes. */
export const MAX_MANIFEST_BYTES = 1024 * 1024;

/** What a declared file is to the evaluator. */
export type BundleFileRole = "candidate" | "artifact" | "log";

/** One file the adapter must read (lstat checks, streaming digest, cap). */
export interface BundleRead {
  /** Candidate (its bytes are kept), another artifact, or a log. */
  readonly role: BundleFileRole;
  /** Evidence id: the artifact id, or `log-<index>-<type>` for logs. */
  readonly id: string;
  /** Declared type (artifact type or log type). */
  readonly type: string;
  /** The confined bundle-relative path. */
  readonly path: string;
  /** The worker's claimed digest. */
  readonly declaredDigest: string;
  /** Verifier-owned byte cap for this file. */
  readonly maxBytes: number;
  /** Whether the adapter must hand back the bytes (only for the candidate). */
  readonly keepBytes: boolean;
}

/** A problem found while planning (the file is then not read). */
export interface BundleProblem {
  /** The reason code. */
  readonly code: BundleReasonCode;
  /** What exactly. */
  readonly detail: string;
  /** The locator or path concerned. */
  readonly path?: string;
}

/** The output of {@linkcode planBundleReads}. */
export interface BundleReadPlan {
  /** Files to read, in declaration order (artifacts, then logs). */
  readonly reads: readonly BundleRead[];
  /** Problems found without I/O. */
  readonly problems: readonly BundleProblem[];
}

/**
 * Plans the reads for a manifest under a plan.
 *
 * @example
 * ```ts
 * import { planBundleReads } from "./read_plan.ts";
 * import type { EvaluatorPlanV01, ResultManifest, WorkUnit } from "./types.ts";
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
 * void workUnit;
 * const manifest: ResultManifest = {
 *   schema_version: "0.1", id: "m", work_unit_id: "wu", work_unit_version: "1", attempt: 1,
 *   worker: { id: "w", type: "agent", adapter: "x" }, status: "succeeded",
 *   produced_artifacts: [{ id: "answer", type: "json", locator: "answer.json", digest }],
 *   logs: [{ type: "stdout", locator: "../stdout.txt", digest }],
 *   provenance: { work_unit_digest: digest },
 *   verification_request: { expected_validator_ids: [] },
 * };
 * const { reads, problems } = planBundleReads(plan, manifest);
 * if (reads.length !== 1 || reads[0]!.maxBytes !== 100) throw new Error("unexpected");
 * if (problems[0]?.code !== "locator_not_confined") throw new Error("unexpected");
 * ```
 */
export function planBundleReads(plan: EvaluatorPlan, manifest: ResultManifest): BundleReadPlan {
  const reads: BundleRead[] = [];
  const problems: BundleProblem[] = [];
  const artifactCap = plan.schema_version === "0.1"
    ? plan.max_candidate_bytes
    : plan.backend.max_candidate_bytes;
  const logCap = plan.schema_version === "0.1"
    ? plan.max_candidate_bytes
    : plan.backend.max_log_bytes;
  const allowed = plan.schema_version === "0.1" ? new Set(plan.allowed_files) : null;
  const seenIds = new Set<string>();
  const seenPaths = new Set<string>([MANIFEST_LOCATOR]);
  let candidateFound = false;

  const add = (
    role: BundleFileRole,
    id: string,
    type: string,
    locator: string,
    digest: string,
    maxBytes: number,
  ): void => {
    const confined = confinePath(locator);
    if (!confined.ok) {
      problems.push({
        code: "locator_not_confined",
        detail: `locator ${JSON.stringify(locator)} of ${id}: ${confined.code}: ${confined.detail}`,
        path: locator,
      });
      return;
    }
    const path = confined.path;
    if (seenPaths.has(path)) {
      problems.push({
        code: "duplicate_declaration",
        detail: `locator ${
          JSON.stringify(path)
        } of ${id} is declared twice (or names the manifest)`,
        path,
      });
      return;
    }
    seenPaths.add(path);
    if (allowed !== null && !allowed.has(path)) {
      problems.push({
        code: "locator_not_allowed",
        detail: `locator ${JSON.stringify(path)} of ${id} is not in the plan's allowed_files`,
        path,
      });
      return;
    }
    reads.push({
      role,
      id,
      type,
      path,
      declaredDigest: digest,
      maxBytes,
      keepBytes: role === "candidate",
    });
  };

  for (const artifact of manifest.produced_artifacts) {
    if (seenIds.has(artifact.id)) {
      problems.push({
        code: "duplicate_declaration",
        detail: `artifact id ${JSON.stringify(artifact.id)} is declared twice`,
        path: artifact.locator,
      });
      continue;
    }
    seenIds.add(artifact.id);
    const isCandidate = artifact.id === plan.candidate_artifact_id;
    if (isCandidate) candidateFound = true;
    add(
      isCandidate ? "candidate" : "artifact",
      artifact.id,
      artifact.type,
      artifact.locator,
      artifact.digest,
      artifactCap,
    );
  }
  manifest.logs.forEach((log, index) => {
    add("log", `log-${index}-${log.type}`, log.type, log.locator, log.digest, logCap);
  });
  if (!candidateFound) {
    problems.push({
      code: "candidate_artifact_missing",
      detail: `no produced artifact has id ${JSON.stringify(plan.candidate_artifact_id)}`,
    });
  }
  return { reads, problems };
}
