/**
 * The one error class of the worktree boundary.
 *
 * @module
 */
import { VouchError } from "../../kernel/errors/mod.ts";

/** Stable codes of {@linkcode WorktreeError}. */
export type WorktreeErrorCode =
  | "bad_task_id"
  | "inside_repo"
  | "exists"
  | "create_failed"
  | "patch_too_large"
  | "extract_failed"
  | "apply_failed"
  | "reset_failed"
  | "not_owned";

/**
 * A worktree operation failed.
 *
 * @example
 * ```ts
 * import { WorktreeError } from "./errors.ts";
 * const e = new WorktreeError("apply_failed", "Cannot apply patch: corrupt patch at line 3");
 * if (e.code !== "apply_failed") throw new Error();
 * ```
 */
export class WorktreeError extends VouchError<WorktreeErrorCode> {
  constructor(code: WorktreeErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
