/**
 * The driver: THE loop of `vouch run`. It feeds kernel events, performs the
 * actions the kernel returns through the adapters (worktrees, backends, the
 * supervisor, integration), feeds the results back, and records every
 * event/actions pair in the event log before acting. It ends every task in one
 * explicit final state (verified, rejected, budget_exhausted, killed,
 * backend_failed) with a distinct exit code, and also hosts `vouch verify`'s
 * clean verification of a patch from anywhere.
 *
 * It must never decide a verdict the kernel or the contract decides, and never
 * integrate without a human approval turned into a kernel event.
 *
 * @example
 * ```ts
 * import { RUN_EXIT_CODES } from "./mod.ts";
 * if (RUN_EXIT_CODES.killed !== 130) throw new Error();
 * ```
 *
 * @module
 */
export * from "./outcome.ts";
export * from "./round_prompt.ts";
export * from "./run_task.ts";
export * from "./run_in_repo.ts";
export * from "./verify_patch.ts";
export * from "./integrate_git.ts";
export * from "./confined_backend.ts";
export * from "./repo_task.ts";
