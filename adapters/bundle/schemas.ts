/**
 * Zod schemas for the bundle protocol: WorkUnit, ResultManifest, EvaluatorPlan
 * (v0.1 exact-JSON, v0.2 unified_diff) and VerificationResult. Objects are
 * strict (unknown keys are refused) so two readers cannot disagree about what
 * a document says. Their output types are assignable to the plain kernel types
 * in `kernel/bundle/types.ts` (checked at compile time below).
 *
 * @module
 */
import { z } from "zod";
import type {
  EvaluatorPlan,
  ResultManifest,
  VerificationResult,
  WorkUnit,
} from "../../kernel/bundle/types.ts";

/** `sha256:` followed by 64 lower-case hex digits. */
export const Sha256DigestSchema = z.lazy(() =>
  z.string().regex(/^sha256:[0-9a-f]{64}$/, {
    message: "digest must be sha256: followed by 64 lower-case hex digits",
  })
);

const Id = z.lazy(() => z.string().min(1).max(256));
const Text = z.lazy(() => z.string().max(65536));
const Glob = z.lazy(() => z.string().min(1).max(4096));
const Locator = z.lazy(() => z.string().min(1).max(4096));

/** The WorkUnit: verifier-owned authority over what a candidate may touch. */
export const WorkUnitSchema = z.lazy(() =>
  z.strictObject({
    schema_version: z.literal("0.1"),
    id: Id,
    version: Id,
    kind: z.enum([
      "coding",
      "testing",
      "research",
      "review",
      "integration",
      "documentation",
      "governance",
      "other",
    ]),
    objective: Text,
    inputs: z.array(z.strictObject({
      id: Id,
      type: Id,
      locator: Locator,
      digest: Sha256DigestSchema.optional(),
    })).max(1024).optional(),
    outputs: z.array(z.strictObject({
      id: Id,
      type: Id,
      description: Text.optional(),
    })).max(1024).optional(),
    dependencies: z.array(z.strictObject({
      work_unit_id: Id,
      relationship: z.enum(["requires", "blocks", "informs", "validates", "derived_from"]),
    })).max(1024).optional(),
    uncertainty: z.array(z.strictObject({
      statement: Text,
      confidence: z.number().min(0).max(1).optional(),
    })).max(1024).optional(),
    constraints: z.strictObject({
      allowed_paths: z.array(Glob).max(1024),
      forbidden_paths: z.array(Glob).max(1024),
      policies: z.array(Text).max(1024).optional(),
    }),
    permissions: z.strictObject({
      network: z.enum(["none", "allowlist", "unrestricted"]),
      network_allowlist: z.array(Text).max(1024).optional(),
      filesystem_write: z.array(Glob).max(1024),
      secrets: z.array(Text).max(1024).optional(),
      process_execution: z.boolean().optional(),
    }),
    validators: z.array(z.strictObject({
      id: Id,
      type: Id,
      required: z.boolean(),
      command: z.array(Text).max(1024).optional(),
    })).max(256),
    evidence_requirements: z.array(z.strictObject({ type: Id, required: z.boolean() })).max(256)
      .optional(),
    budget: z.strictObject({
      wall_seconds: z.number().min(0).optional(),
      compute_units: z.number().min(0).optional(),
      human_minutes: z.number().min(0).optional(),
      tokens: z.int().min(0).optional(),
    }).optional(),
    failure_semantics: z.strictObject({
      retryable: z.boolean(),
      max_attempts: z.int().min(1).max(1000),
      on_failure: z.enum(["stop", "retry", "replan", "escalate", "continue_degraded"]),
    }).optional(),
    provenance: z.strictObject({
      created_by: Id,
      creator_type: Id.optional(),
      source: Text.optional(),
    }).optional(),
  })
);

const DeclaredArtifactSchema = z.lazy(() =>
  z.strictObject({
    id: Id,
    type: Id,
    locator: Locator,
    digest: Sha256DigestSchema,
  })
);

const DeclaredLogSchema = z.lazy(() =>
  z.strictObject({
    type: z.enum(["stdout", "stderr", "trace", "tool_calls"]),
    locator: Locator,
    digest: Sha256DigestSchema,
  })
);

/** The ResultManifest: a worker's self-report, every field a claim. */
export const ResultManifestSchema = z.lazy(() =>
  z.strictObject({
    schema_version: z.literal("0.1"),
    id: Id,
    work_unit_id: Id,
    work_unit_version: Id,
    attempt: z.int().min(1).max(1_000_000),
    worker: z.strictObject({
      id: Id,
      type: Id,
      adapter: Id,
      adapter_version: Id.optional(),
      model: Id.optional(),
    }),
    status: z.enum(["succeeded", "failed", "error", "timeout", "cancelled"]),
    started_at: Id.optional(),
    finished_at: Id.optional(),
    produced_artifacts: z.array(DeclaredArtifactSchema).max(256),
    logs: z.array(DeclaredLogSchema).max(256),
    metrics: z.record(Id, z.number()).optional(),
    resources: z.record(Id, z.number()).optional(),
    self_report: z.strictObject({
      summary: Text,
      claims: z.array(Text).max(256).optional(),
      confidence: z.strictObject({ value: z.number().min(0).max(1), meaning: Text.optional() })
        .optional(),
    }).optional(),
    provenance: z.strictObject({
      work_unit_digest: Sha256DigestSchema,
      source_revision: Id.optional(),
      worker_config_digest: Sha256DigestSchema.optional(),
      environment: Text.optional(),
    }),
    verification_request: z.strictObject({
      expected_validator_ids: z.array(Id).max(256),
      evidence_artifact_ids: z.array(Id).max(256).optional(),
    }),
    changed_paths: z.array(Locator).max(100_000).optional(),
    policy_violation_count: z.int().min(0).optional(),
  })
);

const PolicySchema = z.lazy(() =>
  z.strictObject({
    require_plan_outside_candidate_root: z.literal(true),
    require_output_outside_candidate_root: z.literal(true),
    require_verifier_distinct_from_worker: z.literal(true),
  })
);

const BindingSchema = z.lazy(() =>
  z.strictObject({
    work_unit_id: Id,
    work_unit_version: Id,
    work_unit_digest: Sha256DigestSchema,
    source_revision: Id.optional(),
  })
);

/** A byte cap: a positive integer no larger than 1 GiB. */
const ByteCap = z.lazy(() => z.int().min(1).max(1024 * 1024 * 1024));

/** A JSON value (what `required_json` may hold). */
const JsonValueSchema: z.ZodType<unknown> = z.lazy(() =>
  z.union([
    z.null(),
    z.boolean(),
    z.number(),
    z.string(),
    z.array(JsonValueSchema),
    z.record(z.string(), JsonValueSchema),
  ])
);

/** The fields both EvaluatorPlan versions open with, after `schema_version`. */
const PLAN_HEAD = {
  id: Id,
  binding: BindingSchema,
  visibility: z.enum(["public", "hidden"]),
  execution_mode: z.literal("metadata_only"),
};

/** A plan's `verifier`: the system verifier of `adapter`. */
function systemVerifier<A extends string>(adapter: A) {
  return z.strictObject({
    id: Id,
    type: z.literal("system"),
    adapter: z.literal(adapter),
    adapter_version: Id,
  });
}

/**
 * An EvaluatorPlan version: `schema_version`, the head both share, the system
 * verifier of `adapter`, the validators and candidate artifact it requires,
 * then the version's own fields (in this order, as the JSON Schemas list them).
 */
function planSchema<V extends string, A extends string, R extends z.ZodRawShape>(
  version: V,
  adapter: A,
  rest: R,
) {
  return z.strictObject({
    schema_version: z.literal(version),
    ...PLAN_HEAD,
    verifier: systemVerifier(adapter),
    required_validator_ids: z.array(Id).max(256),
    candidate_artifact_id: Id,
    ...rest,
  });
}

/** EvaluatorPlan v0.1: deterministic exact-JSON backend. */
export const EvaluatorPlanV01Schema = z.lazy(() =>
  planSchema("0.1", "deterministic-json-verifier", {
    allowed_files: z.array(Locator).max(1024),
    max_candidate_bytes: ByteCap,
    required_json: JsonValueSchema,
    policy: PolicySchema,
  })
);

/** EvaluatorPlan v0.2: deterministic unified_diff backend. */
export const EvaluatorPlanV02Schema = z.lazy(() =>
  planSchema("0.2", "deterministic-patch-verifier", {
    backend: z.strictObject({
      type: z.literal("unified_diff"),
      max_candidate_bytes: ByteCap,
      max_log_bytes: ByteCap,
      required_added_text: z.array(z.string().max(65536)).max(1024),
      require_nonempty_patch: z.literal(true),
      verify_log_digests: z.literal(true),
    }),
    policy: PolicySchema,
  })
);

/** Either EvaluatorPlan version, told apart by `schema_version`. */
export const EvaluatorPlanSchema = z.lazy(() =>
  z.discriminatedUnion("schema_version", [
    EvaluatorPlanV01Schema,
    EvaluatorPlanV02Schema,
  ])
);

const NullableDigest = Sha256DigestSchema.nullable();

/** The VerificationResult the evaluator emits (and the CLI parent re-validates). */
export const VerificationResultSchema = z.lazy(() =>
  z.strictObject({
    schema_version: z.literal("0.1"),
    result_manifest_id: Id.nullable(),
    work_unit_id: Id.nullable(),
    work_unit_version: Id.nullable(),
    attempt: z.int().min(1).nullable(),
    verifier: z.strictObject({
      id: Id,
      type: z.literal("system"),
      adapter: Id,
      version: Id,
    }),
    independence: z.strictObject({
      independent_from_worker: z.boolean(),
      worker_id_observed: Id.nullable(),
    }),
    status: z.enum(["passed", "failed", "inconclusive"]),
    checks: z.array(z.strictObject({
      id: Id,
      type: Id,
      required: z.boolean(),
      status: z.enum(["passed", "failed", "inconclusive"]),
      summary: Text,
      evidence_ids: z.array(Id),
      diagnostics: z.array(z.strictObject({
        code: Id,
        detail: Text,
        path: z.string().optional(),
      })),
    })),
    evidence: z.array(z.strictObject({
      id: Id,
      type: Id,
      locator: Locator,
      digest: Sha256DigestSchema,
    })),
    findings: z.array(z.strictObject({
      severity: z.enum(["info", "low", "medium", "high", "critical"]),
      category: z.enum(["correctness", "scope", "provenance", "integrity", "policy", "schema"]),
      code: Id,
      summary: Text,
      path: z.string().optional(),
    })),
    provenance: z.strictObject({
      result_manifest_digest: NullableDigest,
      work_unit_digest: NullableDigest,
      source_revision: Id.nullable(),
      verifier_config_digest: NullableDigest,
    }),
    decision_support: z.strictObject({
      recommendation: z.enum([
        "accept_candidate",
        "reject_candidate",
        "escalate",
        "insufficient_evidence",
      ]),
      confidence: z.enum(["high", "medium", "low"]),
      rationale: Text,
      reason_codes: z.array(Id),
    }),
  })
);

// Compile-time proof that validated values are the kernel's plain types.
type Assignable<A, B> = [A] extends [B] ? true : false;
const _workUnit: Assignable<z.infer<typeof WorkUnitSchema>, WorkUnit> = true;
const _manifest: Assignable<z.infer<typeof ResultManifestSchema>, ResultManifest> = true;
const _plan: Assignable<z.infer<typeof EvaluatorPlanSchema>, EvaluatorPlan> = true;
const _result: Assignable<z.infer<typeof VerificationResultSchema>, VerificationResult> = true;
const _resultBack: Assignable<VerificationResult, z.infer<typeof VerificationResultSchema>> = true;
void [_workUnit, _manifest, _plan, _result, _resultBack];

/**
 * Every schema by the file name it is exported under in `schemas/`.
 *
 * @example
 * ```ts
 * import { BUNDLE_SCHEMAS } from "./schemas.ts";
 * if (!("work-unit-v0.1" in BUNDLE_SCHEMAS)) throw new Error("unexpected");
 * ```
 */
export const BUNDLE_SCHEMAS = {
  "work-unit-v0.1": WorkUnitSchema,
  "result-manifest-v0.1": ResultManifestSchema,
  "evaluator-plan-v0.1": EvaluatorPlanV01Schema,
  "evaluator-plan-v0.2": EvaluatorPlanV02Schema,
  "verification-result-v0.1": VerificationResultSchema,
} as const;

/**
 * The JSON Schema (draft 2020-12) of one bundle schema, via zod's `z.toJSONSchema`.
 *
 * @example
 * ```ts
 * import { bundleJsonSchema } from "./schemas.ts";
 * const schema = bundleJsonSchema("result-manifest-v0.1");
 * if (schema.type !== "object") throw new Error("unexpected");
 * ```
 */
export function bundleJsonSchema(name: keyof typeof BUNDLE_SCHEMAS): Record<string, unknown> {
  const schema = z.toJSONSchema(BUNDLE_SCHEMAS[name], { target: "draft-2020-12" });
  return { ...schema, $id: `urn:vouch:schema:${name}`, title: name };
}
