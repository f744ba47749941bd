/**
 * Hand-built judge inputs for the pure kernel tests (no I/O, no adapters).
 *
 * @module
 */
import type { BundleFacts, FileObservation } from "../../../kernel/bundle/facts.ts";
import type {
  EvaluatorPlanV01,
  EvaluatorPlanV02,
  ResultManifest,
  WorkUnit,
} from "../../../kernel/bundle/types.ts";

export const WU_DIGEST = "sha256:" + "1".repeat(64);
export const PLAN_DIGEST = "sha256:" + "2".repeat(64);
export const MANIFEST_DIGEST = "sha256:" + "3".repeat(64);
export const PATCH_DIGEST = "sha256:" + "4".repeat(64);
export const STDOUT_DIGEST = "sha256:" + "5".repeat(64);
export const JSON_DIGEST = "sha256:" + "6".repeat(64);

export const GOOD_PATCH = new TextEncoder().encode([
  "diff --git a/README.md b/README.md",
  "--- a/README.md",
  "+++ b/README.md",
  "@@ -1 +1,2 @@",
  " # Project",
  "+vouch smoke marker: ok",
  "",
].join("\n"));

export function workUnit(): WorkUnit {
  return {
    schema_version: "0.1",
    id: "wu",
    version: "1",
    kind: "documentation",
    objective: "marker",
    constraints: { allowed_paths: ["README.md", "docs/**"], forbidden_paths: ["SECURITY.md"] },
    permissions: { network: "none", filesystem_write: ["README.md"] },
    validators: [
      { id: "result-manifest-schema", type: "schema", required: true },
      { id: "independent-review", type: "review", required: true },
    ],
  };
}

const POLICY = {
  require_plan_outside_candidate_root: true,
  require_output_outside_candidate_root: true,
  require_verifier_distinct_from_worker: true,
} as const;

export function planV02(): EvaluatorPlanV02 {
  return {
    schema_version: "0.2",
    id: "plan",
    binding: { work_unit_id: "wu", work_unit_version: "1", work_unit_digest: WU_DIGEST },
    visibility: "hidden",
    execution_mode: "metadata_only",
    verifier: {
      id: "verifier",
      type: "system",
      adapter: "deterministic-patch-verifier",
      adapter_version: "1",
    },
    required_validator_ids: ["independent-review", "result-manifest-schema"],
    candidate_artifact_id: "patch",
    backend: {
      type: "unified_diff",
      max_candidate_bytes: 10_000,
      max_log_bytes: 100,
      required_added_text: ["vouch smoke marker: ok"],
      require_nonempty_patch: true,
      verify_log_digests: true,
    },
    policy: POLICY,
  };
}

export function planV01(): EvaluatorPlanV01 {
  return {
    schema_version: "0.1",
    id: "plan",
    binding: { work_unit_id: "wu", work_unit_version: "1", work_unit_digest: WU_DIGEST },
    visibility: "public",
    execution_mode: "metadata_only",
    verifier: {
      id: "verifier",
      type: "system",
      adapter: "deterministic-json-verifier",
      adapter_version: "1",
    },
    required_validator_ids: ["result-manifest-schema", "independent-review"],
    candidate_artifact_id: "answer",
    allowed_files: ["answer.json", "out/stdout.txt"],
    max_candidate_bytes: 1000,
    required_json: { a: [1, 2], b: "x" },
    policy: POLICY,
  };
}

export function manifest(candidate: "patch" | "json" = "patch"): ResultManifest {
  return {
    schema_version: "0.1",
    id: "rm",
    work_unit_id: "wu",
    work_unit_version: "1",
    attempt: 1,
    worker: { id: "worker", type: "agent", adapter: "x" },
    status: "succeeded",
    produced_artifacts: [
      candidate === "patch"
        ? { id: "patch", type: "patch", locator: "changes.patch", digest: PATCH_DIGEST }
        : { id: "answer", type: "json", locator: "answer.json", digest: JSON_DIGEST },
    ],
    logs: [{ type: "stdout", locator: "out/stdout.txt", digest: STDOUT_DIGEST }],
    provenance: { work_unit_digest: WU_DIGEST },
    verification_request: {
      expected_validator_ids: ["result-manifest-schema", "independent-review"],
    },
  };
}

export function goodFacts(patch: Uint8Array = GOOD_PATCH): BundleFacts {
  const files = new Map<string, FileObservation>([
    ["changes.patch", { ok: true, digest: PATCH_DIGEST, size: patch.length, bytes: patch }],
    ["out/stdout.txt", { ok: true, digest: STDOUT_DIGEST, size: 10 }],
  ]);
  return {
    workUnit: workUnit(),
    workUnitDigest: WU_DIGEST,
    plan: planV02(),
    planDigest: PLAN_DIGEST,
    manifest: { ok: true, value: manifest(), digest: MANIFEST_DIGEST },
    files,
    entries: { ok: true, paths: ["changes.patch", "out/stdout.txt", "result-manifest.json"] },
  };
}

export function goodJsonFacts(value: unknown = { b: "x", a: [1, 2] }): BundleFacts {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  return {
    workUnit: workUnit(),
    workUnitDigest: WU_DIGEST,
    plan: planV01(),
    planDigest: PLAN_DIGEST,
    manifest: { ok: true, value: manifest("json"), digest: MANIFEST_DIGEST },
    files: new Map<string, FileObservation>([
      ["answer.json", { ok: true, digest: JSON_DIGEST, size: bytes.length, bytes }],
      ["out/stdout.txt", { ok: true, digest: STDOUT_DIGEST, size: 10 }],
    ]),
    entries: { ok: true, paths: ["answer.json", "out/stdout.txt", "result-manifest.json"] },
    candidateJson: { ok: true, value },
  };
}
