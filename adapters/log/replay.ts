import { canonicalJson } from "../canonical_json/canonical_json.ts";
import { LOG_KINDS } from "./kinds.ts";
import type { JsonValue, LogRecord } from "./record.ts";

/** The kernel as replay sees it: a start state and a pure step function. */
export interface ReplayKernel<S, E, A> {
  /** Creates the start state from the `kernel.init` config (null when absent). */
  initial(config: JsonValue | null): S;
  /** One pure step. */
  step(state: S, event: E): { readonly state: S; readonly actions: readonly A[] };
  /**
   * The semantics version of this kernel (`KERNEL_LIFECYCLE_VERSION`). A
   * `kernel.init` record naming another version is not replayed.
   */
  readonly version?: string;
}

/** Why replay stopped. */
export type ReplayDivergenceReason =
  /** `step` emitted different actions than were recorded. */
  | "actions_differ"
  /** A `kernel.event` has no `kernel.actions` record answering it. */
  | "missing_actions"
  /** A `kernel.actions` record does not answer the event right before it. */
  | "unexpected_actions"
  /** `step` threw on a recorded event. */
  | "step_threw";

/** The outcome of replaying a log through the kernel. */
export type ReplayResult =
  | {
    readonly status: "deterministic";
    readonly steps: number;
    /**
     * Seqs of events whose actions were never recorded because the writer
     * stopped right after them (crash between the two appends). Not divergence.
     */
    readonly interrupted: readonly number[];
  }
  | {
    readonly status: "divergent";
    readonly steps: number;
    /** Seq of the first `kernel.event` (or stray `kernel.actions`) that diverged. */
    readonly seq: number;
    readonly reason: ReplayDivergenceReason;
    readonly detail: string;
  }
  | {
    /** The log was written by a kernel with other semantics: not replayable here. */
    readonly status: "other_kernel";
    readonly steps: number;
    /** Seq of the `kernel.init` record naming the other version. */
    readonly seq: number;
    /** The version the log names. */
    readonly recorded: string;
    /** The version of the kernel replaying it. */
    readonly running: string;
  };

/**
 * Folds every `kernel.event` record through `kernel.step`, starting from
 * `kernel.initial(config)` at each `kernel.init` record (one per `vouch run`
 * process; `initial(null)` before the first), and compares the emitted
 * actions (as canonical JSON) with the `kernel.actions` record that follows each
 * event. Any difference is non-determinism, reported with the first seq.
 *
 * @example
 * ```ts
 * import { replayKernelRecords } from "./replay.ts";
 * const counter = {
 *   initial: () => 0,
 *   step: (s: number, _e: unknown) => ({ state: s + 1, actions: [s + 1] }),
 * };
 * const rec = (seq: number, kind: string, body: unknown) =>
 *   ({ v: 1, seq, ts: 0, task: null, kind, body, prev: "", hash: "" }) as const;
 * const r = replayKernelRecords([
 *   rec(1, "kernel.event", {}),
 *   rec(2, "kernel.actions", { forSeq: 1, actions: [1] }),
 * ] as never, counter);
 * if (r.status !== "deterministic" || r.steps !== 1) throw new Error();
 * ```
 */
export function replayKernelRecords<S, E, A>(
  records: readonly LogRecord[],
  kernel: ReplayKernel<S, E, A>,
): ReplayResult {
  let state = kernel.initial(null);
  let steps = 0;
  let pending: { seq: number; actions: string } | null = null;
  const interrupted: number[] = [];
  const diverge = (
    seq: number,
    reason: ReplayDivergenceReason,
    detail: string,
  ): ReplayResult => ({ status: "divergent", steps, seq, reason, detail });
  for (const record of records) {
    if (record.kind === LOG_KINDS.kernelInit) {
      // A new kernel (a new `vouch run` process) starts here. An event left
      // unanswered by the previous one was interrupted by a crash, not divergent.
      if (pending) interrupted.push(pending.seq);
      pending = null;
      const body = record.body;
      const fields = typeof body === "object" && body !== null && !Array.isArray(body)
        ? body
        : null;
      const config = fields?.["config"] ?? null;
      const recorded = fields?.["kernel"];
      if (
        kernel.version !== undefined && typeof recorded === "string" && recorded !== kernel.version
      ) {
        return {
          status: "other_kernel",
          steps,
          seq: record.seq,
          recorded,
          running: kernel.version,
        };
      }
      try {
        state = kernel.initial(config);
      } catch (error) {
        return diverge(record.seq, "step_threw", `initial state threw: ${String(error)}`);
      }
    } else if (record.kind === LOG_KINDS.kernelEvent) {
      if (pending) {
        return diverge(pending.seq, "missing_actions", "no kernel.actions record for this event");
      }
      let out: { readonly state: S; readonly actions: readonly A[] };
      try {
        out = kernel.step(state, record.body as E);
      } catch (error) {
        return diverge(record.seq, "step_threw", `step threw: ${String(error)}`);
      }
      state = out.state;
      steps++;
      pending = { seq: record.seq, actions: canonicalJson(out.actions) };
    } else if (record.kind === LOG_KINDS.kernelActions) {
      const body = record.body as { forSeq?: unknown; actions?: unknown } | null;
      if (pending === null || body === null || body.forSeq !== pending.seq) {
        return diverge(
          record.seq,
          "unexpected_actions",
          "kernel.actions does not answer the preceding kernel.event",
        );
      }
      let recorded: string;
      try {
        recorded = canonicalJson(body.actions);
      } catch {
        recorded = "<not JSON>";
      }
      if (recorded !== pending.actions) {
        return diverge(
          pending.seq,
          "actions_differ",
          `recorded ${truncate(recorded)} but step emitted ${truncate(pending.actions)}`,
        );
      }
      pending = null;
    }
  }
  if (pending) interrupted.push(pending.seq);
  return { status: "deterministic", steps, interrupted };
}

function truncate(text: string): string {
  return text.length > 240 ? `${text.slice(0, 240)}...` : text;
}
