/**
 * Building {@linkcode BackendResult}s that carry no claims: the empty claims
 * every backend starts from, failed runs, and the failure value itself. One
 * place, so every backend reports an unrun, cancelled or broken attempt alike.
 *
 * @module
 */
import { BackendError } from "./errors.ts";
import type {
  BackendContext,
  BackendFailure,
  BackendResult,
  BackendStatus,
  BackendUsage,
} from "./types.ts";

/** A {@linkcode BackendResult} without its `status` and `failure`. */
export type ResultClaims = Omit<BackendResult, "status" | "failure">;

/**
 * The claims of a run that claimed nothing: empty summary and lists, not done,
 * no usage, no transcript, no exit code, no protocol issues.
 *
 * @example
 * ```ts
 * import { noClaims } from "./result.ts";
 * const r = { ...noClaims("codex"), status: "ok" as const };
 * if (r.selfClaimedDone || r.commandsRun.length !== 0) throw new Error();
 * ```
 */
export function noClaims(backend: string): ResultClaims {
  return {
    backend,
    summary: "",
    selfClaimedDone: false,
    commandsRun: [],
    risks: [],
    usage: {},
    transcript: null,
    exitCode: null,
    protocolIssues: 0,
  };
}

/** Builds a {@linkcode BackendFailure} from a code and message. */
export function failure(code: BackendError["code"], message: string): BackendFailure {
  const e = new BackendError(code, message);
  return { code: e.code, message: e.message, retryable: e.retryable };
}

/**
 * A run that ended without claims: {@linkcode noClaims} with a status and failure.
 *
 * @example
 * ```ts
 * import { failedRun, failure } from "./result.ts";
 * const r = failedRun("fn", "timed_out", failure("timeout", "fn did not finish"));
 * if (r.failure?.retryable !== true) throw new Error();
 * ```
 */
export function failedRun(
  backend: string,
  status: BackendStatus,
  why: BackendFailure,
): BackendResult {
  return { ...noClaims(backend), status, failure: why };
}

/**
 * The `cancelled` result of a run whose context was aborted before it
 * started, or `null` when the run may start.
 *
 * @example
 * ```ts
 * import { cancelledBeforeStart } from "./result.ts";
 * const c = new AbortController();
 * c.abort();
 * const r = cancelledBeforeStart("codex", { signal: c.signal, emit: () => {} });
 * if (r?.status !== "cancelled") throw new Error();
 * ```
 */
export function cancelledBeforeStart(
  backend: string,
  ctx: BackendContext,
): BackendResult | null {
  if (!ctx.signal.aborted) return null;
  return failedRun(
    backend,
    "cancelled",
    failure("cancelled", `${backend} was cancelled before it started`),
  );
}

/**
 * The `error` result of an agent process that could not be run: a
 * {@linkcode BackendError} keeps its code and message, anything else is an
 * `io` error "Cannot run <backend>: ...".
 *
 * @example
 * ```ts
 * import { unrunnable } from "./result.ts";
 * const r = unrunnable("command", new Error("EACCES"));
 * if (r.failure?.code !== "io" || r.failure.message !== "Cannot run command: EACCES") throw new Error();
 * ```
 */
export function unrunnable(backend: string, error: unknown): BackendResult {
  const e = error instanceof BackendError ? error : new BackendError(
    "io",
    `Cannot run ${backend}: ${error instanceof Error ? error.message : String(error)}`,
  );
  return failedRun(backend, "error", { code: e.code, message: e.message, retryable: e.retryable });
}

/**
 * Runs a backend body so that `run` resolves, never rejects: an unexpected
 * exception (local I/O, permissions) becomes status `error` with code `io`.
 *
 * @example
 * ```ts
 * import { guardRun } from "./result.ts";
 * const r = await guardRun("x", () => Promise.reject(new Error("disk full")));
 * if (r.status !== "error" || r.failure?.code !== "io") throw new Error();
 * ```
 */
export async function guardRun(
  backend: string,
  body: () => Promise<BackendResult>,
): Promise<BackendResult> {
  try {
    return await body();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return failedRun(
      backend,
      "error",
      failure(
        error instanceof BackendError ? error.code : "io",
        `Cannot run ${backend}: ${message.slice(0, 2000)}`,
      ),
    );
  }
}

/**
 * The cost units a round's usage spends against the task's cost budget:
 * cents when the backend reports a price, else tokens (input + output).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { costUnitsOfUsage } from "./result.ts";
 * equal(costUnitsOfUsage({ costUsd: 0.25, inputTokens: 900 }), 25);
 * equal(costUnitsOfUsage({ inputTokens: 900, outputTokens: 100 }), 1000);
 * equal(costUnitsOfUsage({}), 0);
 * ```
 */
export function costUnitsOfUsage(usage: BackendUsage): number {
  if (usage.costUsd !== undefined) return Math.round(usage.costUsd * 100);
  return (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
}
