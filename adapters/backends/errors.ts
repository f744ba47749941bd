/**
 * The one error class of the backend boundary.
 *
 * @module
 */
import { VouchError } from "../../kernel/errors/mod.ts";

/** Stable codes of {@linkcode BackendError}. */
export type BackendErrorCode =
  | "spawn_failed"
  | "timeout"
  | "cancelled"
  | "protocol"
  | "config"
  | "io"
  | "execution"
  | "limit_exceeded";

/** Codes whose failures are worth retrying (spawn failures and timeouts only). */
export const RETRYABLE_BACKEND_CODES: ReadonlySet<BackendErrorCode> = new Set([
  "spawn_failed",
  "timeout",
]);

/**
 * A failure of a coding backend, with a stable `code` and whether a retry may help.
 *
 * @example
 * ```ts
 * import { BackendError } from "./errors.ts";
 * const e = new BackendError("spawn_failed", "Cannot start codex: not found");
 * if (!e.retryable) throw new Error("spawn failures are retryable");
 * ```
 */
export class BackendError extends VouchError<BackendErrorCode> {
  /** Whether retrying the same task may succeed. */
  readonly retryable: boolean;

  /** An error with its stable code, message and cause. */
  constructor(code: BackendErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.retryable = RETRYABLE_BACKEND_CODES.has(code);
  }
}
