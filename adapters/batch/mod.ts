/**
 * Batch evaluation: many candidate patches (SWE-bench predictions) judged
 * against tasks with test lists, each through the same verification as
 * `vouch verify`, in parallel, resumably, sharded, locally or through a queue;
 * reports in SWE-bench's JSON shape, Markdown and JUnit.
 *
 * @module
 */
export * from "./schema.ts";
export * from "./input.ts";
export * from "./plan.ts";
export * from "./classify.ts";
export * from "./spec_base.ts";
export * from "./options.ts";
export * from "./key.ts";
export * from "./prepare.ts";
export * from "./verify_candidate.ts";
export * from "./local_executor.ts";
export * from "./store.ts";
export * from "./fleet_seal.ts";
export * from "./report.ts";
export * from "./render.ts";
export * from "./run.ts";
export * from "./progress.ts";
