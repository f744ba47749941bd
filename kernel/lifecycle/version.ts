/**
 * The version of the lifecycle's semantics.
 *
 * @module
 */

/**
 * The version of the lifecycle semantics: the transition and entry tables,
 * the events they accept and the actions `step` emits for them. The driver
 * records it in the log's `kernel.init` record, and replay compares recorded
 * actions only when the recorded version equals this one: a log written by
 * another version is reported as such (`other_kernel`), never as
 * non-determinism. A test pins a fingerprint of the actions `step` emits over
 * a fixed corpus of event streams: any change of behaviour must bump this.
 *
 * History: `vouch.lifecycle/1` extracted a diff only after an `ok` backend;
 * `vouch.lifecycle/2` treats a backend's `error` report as a claim too;
 * `vouch.lifecycle/3` is table-driven: a `baselining` status before the first
 * backend round, `mint_verified_patch` on entering `verified`, an
 * `awaiting_approval` status, `effect_failed` and `patch_minted` events,
 * `fatal` backend reports, receipt-less passes failing, and compaction of
 * finished tasks; `vouch.lifecycle/4` gives a path-rule scope violation
 * (forbidden, outside the allowed globs, protected) a repair round while one
 * is left (`scope_retry`, feedback `scope_violation`); any other violation
 * (an outside write, symlink tricks) still ends the task; `vouch.lifecycle/5`
 * starts the agent in the worktree before the baseline when the task asks
 * (`task_submitted.startBackend`: a `starting_backend` status, the
 * `start_backend` action, the `backend_ready` event); one that cannot start
 * fails the task as `backend_unavailable` before any check runs.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { KERNEL_LIFECYCLE_VERSION } from "./version.ts";
 * equal(KERNEL_LIFECYCLE_VERSION, "vouch.lifecycle/5");
 * ```
 */
export const KERNEL_LIFECYCLE_VERSION = "vouch.lifecycle/5";
