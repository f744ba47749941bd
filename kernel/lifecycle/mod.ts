/**
 * The task lifecycle reducer: `step(state, event) -> { state, actions }`.
 *
 * Owns the lifecycle tables (transitions keyed by status and trigger, and
 * each status's entry action), the final-state function, the event and action types, the policy snapshot
 * and its evaluation, budgets and reason codes. It must never perform an
 * effect, read a clock, or import anything outside `kernel/`: time, ids and
 * results arrive as events, and effects leave as actions for adapters.
 * See `docs/kernel.md` for the table, the invariants and the codes.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { defaultPolicy, initialKernelState, step } from "./mod.ts";
 * const state = initialKernelState(defaultPolicy());
 * const { actions } = step(state, {
 *   v: 1, kind: "task_submitted", id: "e1", seq: 1, at: 0, taskId: "t1",
 *   goal: "make the tests pass", baseRev: "HEAD", contractDigest: "sha256:c",
 *   policyDigest: "sha256:p", policy: null,
 *   budget: { wallTimeMs: 600_000, repairRounds: 3, outputBytes: 1_000_000, costUnits: 1_000 },
 * });
 * equal(state.tasks["t1"]?.status, "submitted");
 * equal(actions[1]?.kind, "create_worktree");
 * ```
 *
 * @module
 */
export * from "./codes.ts";
export * from "./events.ts";
export * from "./actions.ts";
export * from "./policy_types.ts";
export * from "./policy.ts";
export * from "./state.ts";
export * from "./transitions.ts";
export * from "./step.ts";
export * from "./outcome.ts";
export * from "./replay.ts";
export * from "./version.ts";
