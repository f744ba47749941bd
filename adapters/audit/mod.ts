/**
 * Inspection of an event log after the fact: verification of the chain,
 * receipts and minted patches, replay through the kernel, and per-task
 * timelines (with transcripts masked for display). Read-only: it must never
 * write to, lock or "repair" the log it inspects.
 *
 * @example
 * ```ts
 * import { buildTimelines } from "./mod.ts";
 * if (buildTimelines([]).length !== 0) throw new Error();
 * ```
 *
 * @module
 */
export * from "./kernel_replay.ts";
export * from "./timeline.ts";
export * from "./audit_log.ts";
export * from "./evidence_binding.ts";
