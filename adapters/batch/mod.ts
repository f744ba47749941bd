/**
 * Batch evaluation: many candidate patches (SWE-bench predictions) judged
 * against tasks with test lists, each through the same verification as
 * `vouch verify`, in parallel, resumably, sharded, locally or through a queue;
 * reports in SWE-bench's JSON shape, Markdown and JUnit.
 *
 * @module
 */
export type { SwebenchDefaults } from "./_swebench_row.ts";
export { checkReportSeal, sealReport } from "./fleet_seal.ts";
export { BatchInputError, type BatchInputErrorCode, type BatchTask } from "./input.ts";
export type { Executor, WorkItem } from "./local_executor.ts";
export type { VerifyCandidateOptions } from "./options.ts";
export type { PlannedCandidate, Shard } from "./plan.ts";
export { mergeReports } from "./report.ts";
export { type BatchEvent, type BatchOptions, type BatchResult, runBatch } from "./run.ts";
export type {
  BatchReport,
  BatchTaskLine,
  BatchTaskVerify,
  CandidateReason,
  CandidateRecord,
  CandidateStatus,
  KeyVerdict,
  ListedTestStatus,
  ReportSeal,
} from "./schema.ts";
export { type FleetKeyOptions, loadFleetKey } from "../keys/fleet_key.ts";
