/**
 * The documents `vouch batch` reads and writes, as zod schemas (the byte
 * boundary) and their JSON Schemas (`schemas/batch-*.schema.json`): a tasks
 * file (JSONL, one task a line), a predictions file in SWE-bench's own format
 * (a JSON array or JSONL of `{instance_id, model_name_or_path, model_patch}`)
 * and the report.
 *
 * @module
 */
import { z } from "zod";
import { type ContractFile, contractFileSchema } from "../contract/schema.ts";
import { TEST_FORMATS } from "../test_failures/parse.ts";
import { FINAL_STATES, type FinalState } from "../../kernel/lifecycle/outcome.ts";

// deno-lint-ignore no-control-regex
const printable = /^[^\x00-\x1f]+$/;
const id = z.lazy(() => z.string().min(1).max(300).regex(printable, "must be printable"));
const globs = z.lazy(() => z.array(z.string().min(1).max(1000)).max(1000));
const testIds = z.lazy(() => z.array(z.string().min(1).max(2000)).max(100_000));

/** `verify`: one test command with SWE-bench's test lists (or a plain exit-zero command). */
const verifySchema = z.lazy(() =>
  z.strictObject({
    command: z.string().min(1).max(10_000).describe(
      "shell command run as `sh -c` in the clean tree",
    ),
    tests: z.enum(TEST_FORMATS as [string, ...string[]]).optional()
      .describe("output format of the suite (needed for failToPass/passToPass)"),
    failToPass: testIds.optional().describe("tests that must fail on the base and pass after"),
    passToPass: testIds.optional().describe("tests that must pass on the base and after"),
    timeout: z.number().positive().max(600).optional().describe("seconds (default 120)"),
  })
);

/** The zod schema of one line of a tasks file. */
export const batchTaskSchema = z.lazy(() =>
  z.strictObject({
    id: id.unwrap().describe("the task id; predictions name it as instance_id"),
    repo: z.string().min(1).max(4096)
      .describe("the repository directory (relative to the tasks file's directory)"),
    base: z.string().min(1).max(256).describe("base commit (or revision) the patches apply to"),
    verify: verifySchema.optional(),
    contract: contractFileSchema.optional().describe("an outcome contract, instead of verify"),
    testPatch: z.string().max(10_000_000).optional()
      .describe("applied on top of the base before everything; its paths are protected"),
    allow: globs.optional().describe("paths a patch may touch (default: all)"),
    forbid: globs.optional().describe("paths a patch may not touch (added to the defaults)"),
  }).refine((t) => (t.verify === undefined) !== (t.contract === undefined), {
    message: "give exactly one of verify and contract",
  })
);

/** `verify` of a task line: one test command with SWE-bench's test lists. */
export interface BatchTaskVerify {
  /** Shell command run as `sh -c` in the clean tree. */
  command: string;
  /** Output format of the suite (needed for failToPass/passToPass). */
  tests?: string | undefined;
  /** Tests that must fail on the base and pass after. */
  failToPass?: string[] | undefined;
  /** Tests that must pass on the base and after. */
  passToPass?: string[] | undefined;
  /** Seconds (default 120). */
  timeout?: number | undefined;
}

/** One task line as written. */
export interface BatchTaskLine {
  /** The task id; predictions name it as instance_id. */
  id: string;
  /** The repository directory (relative to the tasks file's directory). */
  repo: string;
  /** Base commit (or revision) the patches apply to. */
  base: string;
  /** A test command (exactly one of verify and contract). */
  verify?: BatchTaskVerify | undefined;
  /** An outcome contract, instead of verify. */
  contract?: ContractFile | undefined;
  /** Applied on top of the base before everything; its paths are protected. */
  testPatch?: string | undefined;
  /** Paths a patch may touch (default: all). */
  allow?: string[] | undefined;
  /** Paths a patch may not touch (added to the defaults). */
  forbid?: string[] | undefined;
}

/** The zod schema of one prediction, SWE-bench's format (extra keys are kept out, not refused). */
export const predictionSchema = z.lazy(() =>
  z.object({
    instance_id: id,
    model_name_or_path: z.string().max(1000).default("unknown"),
    model_patch: z.string().max(50_000_000).nullable().default(null)
      .describe("the patch (git diff); empty or null is an empty patch"),
  })
);

/** One prediction. */
export type Prediction = z.infer<typeof predictionSchema>;

/** How a candidate ended, in SWE-bench's classes. */
export const CANDIDATE_STATUSES = ["resolved", "unresolved", "error", "empty_patch"] as const;
/** A candidate's class. */
export type CandidateStatus = "resolved" | "unresolved" | "error" | "empty_patch";

/** vouch's reason for a candidate's status (one per candidate; `reasons` has the detail codes). */
export const CANDIDATE_REASONS = [
  "verified",
  "empty_patch",
  "unparsable_patch",
  "scope_violation",
  "protected_path",
  "policy_denied",
  "artefact_dependence",
  "failed_tests",
  "checks_failed",
  "patch_does_not_apply",
  "contract_invalid",
  "could_not_run",
  "unknown_task",
] as const;
/** A reason word. */
export type CandidateReason =
  | "verified"
  | "empty_patch"
  | "unparsable_patch"
  | "scope_violation"
  | "protected_path"
  | "policy_denied"
  | "artefact_dependence"
  | "failed_tests"
  | "checks_failed"
  | "patch_does_not_apply"
  | "contract_invalid"
  | "could_not_run"
  | "unknown_task";

const listedStatus = z.lazy(() => z.enum(["passed", "failed", "skipped", "missing"]));

/** The zod schema of one judged candidate. */
export const candidateRecordSchema = z.lazy(() =>
  z.strictObject({
    id: z.string().describe("instance_id, or instance_id@model when an instance has several"),
    instance_id: z.string(),
    model_name_or_path: z.string(),
    key: z.string().describe("sha256 of task definition, base and patch digest (resume key)"),
    patch_digest: z.string(),
    base: z.string().describe("the resolved base commit (before any test patch)"),
    status: z.enum(CANDIDATE_STATUSES),
    reason: z.enum(CANDIDATE_REASONS),
    reasons: z.array(z.string()).describe("vouch's detail codes"),
    detail: z.string().describe("one line for humans"),
    tests: z.array(z.strictObject({
      id: z.string(),
      list: z.enum(["failToPass", "passToPass"]),
      before: listedStatus.nullable(),
      after: listedStatus.nullable(),
    })).describe("every listed test's status on the base and after the patch"),
    artefacts: z.strictObject({
      dir: z.string().nullable(),
      log: z.string().nullable(),
      verified_patch: z.string().nullable(),
      attestation: z.string().nullable(),
      test_output: z.string().optional()
        .describe("the whole output of the candidate's checks (SWE-bench's test_output.txt)"),
    }).describe("paths relative to the output directory"),
    duration_s: z.number().nonnegative().optional()
      .describe("wall-clock seconds judging took (junit.xml's time)"),
    verdict: z.enum(FINAL_STATES).optional()
      .describe(
        "what `vouch verify` says of this candidate (the verdict table's key: its word and exit " +
          "code); absent in records of older vouch (then read from status)",
      ),
    baseline_reused_from: z.string().min(1).max(300).optional()
      .describe(
        "the task id of the baseline run this candidate's verification reused (the task's one " +
          "run, its receipts in the candidate's log); absent: it ran its own baseline, or none",
      ),
  })
);

/** A listed test's status in one run. */
export type ListedTestStatus = "passed" | "failed" | "skipped" | "missing";

/** What is judged per resume key (the same for every prediction with that key). */
export interface KeyVerdict {
  /** sha256 of task definition, base and patch digest (resume key). */
  key: string;
  /** Digest of the patch. */
  patch_digest: string;
  /** The resolved base commit (before any test patch). */
  base: string;
  /** SWE-bench's class. */
  status: CandidateStatus;
  /** vouch's reason word. */
  reason: CandidateReason;
  /** vouch's detail codes. */
  reasons: string[];
  /** One line for humans. */
  detail: string;
  /** Every listed test's status on the base and after the patch. */
  tests: {
    id: string;
    list: "failToPass" | "passToPass";
    before: ListedTestStatus | null;
    after: ListedTestStatus | null;
  }[];
  /** Paths relative to the output directory. */
  artefacts: {
    dir: string | null;
    log: string | null;
    verified_patch: string | null;
    attestation: string | null;
    /** The whole output of the candidate's checks (SWE-bench's `test_output.txt`), when any ran. */
    test_output?: string | undefined;
  };
  /** Wall-clock seconds judging took. */
  duration_s?: number | undefined;
  /** What `vouch verify` says of this candidate (the verdict table's key), when recorded. */
  verdict?: FinalState | undefined;
  /** The task id of the baseline run this candidate's verification reused (absent: none reused). */
  baseline_reused_from?: string | undefined;
}

/** One judged candidate. */
export interface CandidateRecord extends KeyVerdict {
  /** instance_id, or instance_id@model when an instance has several. */
  id: string;
  /** SWE-bench's instance id. */
  instance_id: string;
  /** The model that produced the prediction. */
  model_name_or_path: string;
}

/** The zod schema of a stored verdict (`results/<key>.json`: a record without its prediction's names). */
export const keyVerdictSchema = z.lazy(() =>
  candidateRecordSchema.unwrap().omit({
    id: true,
    instance_id: true,
    model_name_or_path: true,
  })
);

/** The zod schema of a report's seal. */
export const reportSealSchema = z.lazy(() =>
  z.strictObject({
    key_id: z.string().describe("the fleet key's id"),
    mac: z.string().regex(/^[0-9a-f]{64}$/)
      .describe("HMAC-SHA-256 over the report's canonical JSON without `seal`"),
  })
);

/** The zod schema of the report (SWE-bench's run-report keys plus vouch's per-candidate records). */
export const batchReportSchema = z.lazy(() =>
  z.strictObject({
    schema_version: z.literal(2).describe("SWE-bench's run-report schema version"),
    vouch_batch_report: z.literal(1),
    total_instances: z.number().int(),
    submitted_instances: z.number().int(),
    completed_instances: z.number().int(),
    resolved_instances: z.number().int(),
    unresolved_instances: z.number().int(),
    empty_patch_instances: z.number().int(),
    error_instances: z.number().int(),
    completed_ids: z.array(z.string()),
    incomplete_ids: z.array(z.string()),
    empty_patch_ids: z.array(z.string()),
    submitted_ids: z.array(z.string()),
    resolved_ids: z.array(z.string()),
    unresolved_ids: z.array(z.string()),
    error_ids: z.array(z.string()),
    failure_reasons: z.record(z.string(), z.string())
      .describe("every candidate not resolved: its reason word and detail line"),
    infra_failure_ids: z.array(z.string())
      .describe("candidates that could not run (sandbox, setup, a check that cannot start)"),
    ambiguous_failure_ids: z.array(z.string())
      .describe("failures not clearly the patch's: an invalid contract or an inconclusive run"),
    input: z.strictObject({
      tasks: z.string().describe("sha256 of the task definitions"),
      predictions: z.string().describe("sha256 of the predictions"),
      task_ids: z.array(z.string()),
      candidate_ids: z.array(z.string()),
      unpredicted_task_ids: z.array(z.string()).describe("tasks no prediction names"),
    }),
    shard: z.strictObject({ index: z.number().int(), count: z.number().int() }).nullable(),
    reasons: z.record(z.string(), z.number().int()).describe("candidates per reason"),
    candidates: z.array(candidateRecordSchema),
    seal: reportSealSchema.optional()
      .describe("the fleet key's MAC over the rest of the report (`vouch batch merge` checks it)"),
  })
);

/** A report's seal. */
export interface ReportSeal {
  /** The fleet key's id. */
  key_id: string;
  /** HMAC-SHA-256 over the report's canonical JSON without `seal`. */
  mac: string;
}

/** The report (SWE-bench's run-report keys plus vouch's per-candidate records). */
export interface BatchReport {
  /** SWE-bench's run-report schema version. */
  schema_version: 2;
  /** vouch's report version. */
  vouch_batch_report: 1;
  /** Tasks in the run. */
  total_instances: number;
  /** Candidates submitted. */
  submitted_instances: number;
  /** Candidates completed. */
  completed_instances: number;
  /** Candidates resolved. */
  resolved_instances: number;
  /** Candidates unresolved. */
  unresolved_instances: number;
  /** Candidates with an empty patch. */
  empty_patch_instances: number;
  /** Candidates in error. */
  error_instances: number;
  /** Ids of completed candidates. */
  completed_ids: string[];
  /** Ids of incomplete candidates. */
  incomplete_ids: string[];
  /** Ids of empty-patch candidates. */
  empty_patch_ids: string[];
  /** Ids of submitted candidates. */
  submitted_ids: string[];
  /** Ids of resolved candidates. */
  resolved_ids: string[];
  /** Ids of unresolved candidates. */
  unresolved_ids: string[];
  /** Ids of candidates in error. */
  error_ids: string[];
  /** Every candidate not resolved: its reason word and detail line. */
  failure_reasons: Record<string, string>;
  /** Candidates that could not run. */
  infra_failure_ids: string[];
  /** Failures not clearly the patch's. */
  ambiguous_failure_ids: string[];
  /** Digests and ids of the input. */
  input: {
    tasks: string;
    predictions: string;
    task_ids: string[];
    candidate_ids: string[];
    unpredicted_task_ids: string[];
  };
  /** This shard, if sharded. */
  shard: { index: number; count: number } | null;
  /** Candidates per reason. */
  reasons: Record<string, number>;
  /** Every judged candidate. */
  candidates: CandidateRecord[];
  /** The fleet key's MAC over the rest of the report. */
  seal?: ReportSeal | undefined;
}

// The hand-written types above are exactly what the schemas parse to (checked by the compiler).
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true
  : false;
type AssertTrue<T extends true> = T;
type _BatchTypesAreExact = [
  AssertTrue<Same<typeof CANDIDATE_STATUSES[number], CandidateStatus>>,
  AssertTrue<Same<typeof CANDIDATE_REASONS[number], CandidateReason>>,
  AssertTrue<Same<z.infer<typeof batchTaskSchema>, BatchTaskLine>>,
  AssertTrue<Same<z.infer<typeof candidateRecordSchema>, CandidateRecord>>,
  AssertTrue<Same<z.infer<typeof keyVerdictSchema>, KeyVerdict>>,
  AssertTrue<Same<z.infer<typeof reportSealSchema>, ReportSeal>>,
  AssertTrue<Same<z.infer<typeof batchReportSchema>, BatchReport>>,
];

/**
 * The JSON Schemas (draft 2020-12) of the batch documents, by file name.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { batchJsonSchemas } from "./schema.ts";
 * equal(batchJsonSchemas()["batch-task.schema.json"]?.type, "object");
 * ```
 */
export function batchJsonSchemas(): Record<string, Record<string, unknown>> {
  const json = (s: z.ZodType) => z.toJSONSchema(s, { io: "input" }) as Record<string, unknown>;
  return {
    "batch-task.schema.json": json(batchTaskSchema),
    "batch-prediction.schema.json": json(predictionSchema),
    "batch-report.schema.json": json(batchReportSchema),
  };
}
