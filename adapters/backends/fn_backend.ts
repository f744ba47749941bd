/**
 * The `fn` backend: an in-process async function supplied by an embedding
 * application (the demo's scripted fixer uses it). It usually edits the
 * worktree directly; it may instead hand over a patch as text. Its answers are
 * claims like any other backend's.
 *
 * @module
 */
import { cancelledBeforeStart, failedRun, failure, guardRun, noClaims } from "./result.ts";
import { safeEmit } from "./subprocess.ts";
import { captureTextTranscript, maskSecrets } from "./transcript.ts";
import type {
  AgentBackend,
  AgentTask,
  BackendContext,
  BackendEvent,
  BackendResult,
  BackendUsage,
} from "./types.ts";
import { boundList, boundText, capabilitiesOf, MAX_SUMMARY_CHARS } from "./types.ts";

/** What an `fn` worker returns. */
export interface FnWorkerOutput {
  /** Its final message. */
  readonly summary?: string;
  /** Whether it claims the goal is done (default true). */
  readonly done?: boolean;
  /** A patch as text, when the function did not edit the worktree itself. */
  readonly patchText?: string | Uint8Array;
  /** Commands it says it ran (a claim, never evidence). */
  readonly commandsRun?: readonly string[];
  /** Risks it names. */
  readonly risks?: readonly string[];
  /** Token usage and cost, if known. */
  readonly usage?: BackendUsage;
}

/** What the function receives besides the task. */
export interface FnWorkerContext {
  /** Aborted on cancellation or when the time budget runs out; stop promptly. */
  readonly signal: AbortSignal;
  /** Reports progress (bounded and masked by the caller's sink). */
  emit(event: BackendEvent): void;
}

/** An in-process worker. */
export type FnWorker = (task: AgentTask, ctx: FnWorkerContext) => Promise<FnWorkerOutput>;

/**
 * Wraps an async function as a backend. The run resolves `cancelled` as soon
 * as the context aborts and `timed_out` when `maxSeconds` elapse, even if the
 * function ignores its signal; a thrown error becomes status `error`
 * (`execution`, not retryable).
 *
 * @example
 * ```ts
 * import { fnBackend } from "./fn_backend.ts";
 * const b = fnBackend("demo-fixer", () => Promise.resolve({ summary: "fixed", done: true }));
 * const r = await b.run(
 *   { taskId: "t", attempt: 1, goal: "g", worktree: "/tmp", allowedRoots: [], forbiddenPaths: [], maxSeconds: 5, maxOutputMb: 1 },
 *   { signal: new AbortController().signal, emit: () => {} },
 * );
 * if (r.status !== "ok" || r.summary !== "fixed") throw new Error(r.status);
 * ```
 */
export function fnBackend(id: string, fn: FnWorker): AgentBackend {
  return {
    id,
    capabilities: capabilitiesOf("streaming", "editsWorktree"),
    run: (task, ctx) => guardRun(id, () => runFn(id, fn, task, ctx)),
  };
}

/** Characters of emitted events kept as an `fn` backend's transcript. */
export const MAX_FN_TRANSCRIPT_CHARS = 1024 * 1024;

async function runFn(
  id: string,
  fn: FnWorker,
  task: AgentTask,
  ctx: BackendContext,
): Promise<BackendResult> {
  // The transcript of an in-process worker is what it emitted (bounded, masked).
  const lines: string[] = [];
  let chars = 0;
  const record = (event: BackendEvent) => {
    if (chars > MAX_FN_TRANSCRIPT_CHARS) return;
    const line = JSON.stringify(event);
    chars += line.length;
    lines.push(line);
  };
  const result = await settleFn(id, fn, task, ctx, record);
  const transcript = await captureTextTranscript({
    backend: id,
    taskId: task.taskId,
    attempt: task.attempt,
    text: lines.join("\n") + (lines.length > 0 ? "\n" : ""),
    truncated: chars > MAX_FN_TRANSCRIPT_CHARS,
    ...(ctx.transcriptDir !== undefined ? { dir: ctx.transcriptDir } : {}),
  });
  return { ...result, transcript };
}

async function settleFn(
  id: string,
  fn: FnWorker,
  task: AgentTask,
  ctx: BackendContext,
  record: (event: BackendEvent) => void,
): Promise<BackendResult> {
  const cancelled = cancelledBeforeStart(id, ctx);
  if (cancelled !== null) return cancelled;
  const inner = new AbortController();
  let ended: "cancelled" | "timed_out" | null = null;
  let wake: () => void = () => {};
  const stopped = new Promise<void>((resolve) => (wake = resolve));
  const onAbort = () => {
    ended ??= "cancelled";
    inner.abort();
    wake();
  };
  ctx.signal.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(() => {
    ended ??= "timed_out";
    inner.abort();
    wake();
  }, Math.max(1, task.maxSeconds * 1000));
  try {
    const work = fn(task, {
      signal: inner.signal,
      emit: (event) => {
        if (inner.signal.aborted) return;
        record(event);
        safeEmit(ctx, event);
      },
    });
    work.catch(() => {}); // a late rejection after cancellation must not go unhandled
    const settled = await Promise.race([
      work.then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      ),
      stopped.then(() => null),
    ]);
    if (settled === null || ended !== null) {
      return ended === "timed_out"
        ? failedRun(
          id,
          "timed_out",
          failure("timeout", `${id} did not finish within ${task.maxSeconds}s`),
        )
        : failedRun(id, "cancelled", failure("cancelled", `${id} was cancelled`));
    }
    if (!settled.ok) {
      const message = settled.error instanceof Error
        ? settled.error.message
        : String(settled.error);
      record({ kind: "error", message: boundText(message, 2000), fatal: true });
      return failedRun(
        id,
        "error",
        failure("execution", `${id} failed: ${maskSecrets(boundText(message, 2000)).text}`),
      );
    }
    const out = settled.value;
    const patchText = typeof out.patchText === "string"
      ? new TextEncoder().encode(out.patchText)
      : out.patchText;
    const summary = maskSecrets(boundText(out.summary ?? "", MAX_SUMMARY_CHARS)).text;
    record({ kind: "message", text: boundText(out.summary ?? "", MAX_SUMMARY_CHARS) });
    return {
      ...noClaims(id),
      status: "ok",
      summary,
      selfClaimedDone: out.done ?? true,
      commandsRun: boundList(out.commandsRun ?? []),
      risks: boundList(out.risks ?? []),
      usage: out.usage ?? {},
      ...(patchText !== undefined ? { patchText } : {}),
      ...(patchText !== undefined && task.base !== undefined
        ? {
          patch: {
            kind: "unverified_patch" as const,
            task: task.taskId,
            baseRevision: task.base,
            diff: patchText,
            backend: id,
          },
        }
        : {}),
    };
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener("abort", onAbort);
  }
}
