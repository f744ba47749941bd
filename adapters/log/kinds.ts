import type { KernelEvent } from "../../kernel/lifecycle/events.ts";
import type { KernelAction } from "../../kernel/lifecycle/actions.ts";
import type { LogRecord } from "./record.ts";

/**
 * The record kinds vouch writes. Other kinds are allowed (the format is open),
 * but these are the ones `vouch inspect` understands.
 */
export const LOG_KINDS = {
  /** body: `{ config }`, the argument the kernel state was created from (for replay). */
  kernelInit: "kernel.init",
  /** body: the `KernelEvent` exactly as passed to `step`. */
  kernelEvent: "kernel.event",
  /** body: `{ forSeq, actions }`, the actions `step` returned for the event at `forSeq`. */
  kernelActions: "kernel.actions",
  /** body: a `ToolReceipt` (MAC'd, anchored to the log head before it). */
  toolReceipt: "tool.receipt",
  /** body: the JSON form of a minted `VerifiedPatch` (carries its own MAC). */
  verifiedPatchMinted: "verified_patch.minted",
  /** body: `{ round, stream, text }`, a bounded excerpt of backend output (shown redacted). */
  transcript: "backend.transcript",
  /** What an agent asked vouch to do for it (ACP, native backends) and the answers. */
  decisions: "backend.decisions",
  /** body: `{ droppedBytes, tornFile, afterSeq }`, written after a torn tail was cut. */
  logRecovered: "log.recovered",
} as const;

/** Anything that can append records (an `EventLog`, or a test double). */
export interface RecordAppender {
  /** Appends one record. */
  append(input: {
    readonly task?: string | null;
    readonly kind: string;
    readonly body: unknown;
  }): Promise<LogRecord>;
}

/** Body of a `kernel.actions` record. */
export interface KernelActionsBody {
  /** Seq of the `kernel.event` record these actions answer. */
  readonly forSeq: number;
  /** The actions, in the order `step` returned them. */
  readonly actions: readonly KernelAction[];
}

/**
 * Records one kernel step: the event, then the actions `step` emitted for it
 * (as a `kernel.actions` record pointing back at the event's seq). The driver
 * calls this for every event it feeds the kernel, before performing the actions.
 *
 * @example
 * ```ts
 * import { recordKernelStep } from "./kinds.ts";
 * import { frameRecord, GENESIS_HASH, type LogRecord } from "./record.ts";
 * const records: LogRecord[] = [];
 * const mem = {
 *   append(input: { task?: string | null; kind: string; body: unknown }) {
 *     const head = records.at(-1) ?? { seq: 0, hash: GENESIS_HASH };
 *     const { record } = frameRecord(head, input, 0);
 *     records.push(record);
 *     return Promise.resolve(record);
 *   },
 * };
 * await recordKernelStep(mem, { v: 1, kind: "timer_tick", id: "e1", seq: 1, at: 0, taskId: "t1" }, []);
 * if (records[1]?.kind !== "kernel.actions") throw new Error();
 * ```
 */
export async function recordKernelStep(
  log: RecordAppender,
  event: KernelEvent,
  actions: readonly KernelAction[],
): Promise<{ readonly event: LogRecord; readonly actions: LogRecord }> {
  const task = typeof event.taskId === "string" ? event.taskId : null;
  const eventRecord = await log.append({ task, kind: LOG_KINDS.kernelEvent, body: event });
  const body: KernelActionsBody = { forSeq: eventRecord.seq, actions };
  const actionsRecord = await log.append({ task, kind: LOG_KINDS.kernelActions, body });
  return { event: eventRecord, actions: actionsRecord };
}

/**
 * Records how the kernel state was created, so `vouch inspect` can replay from
 * the same start. Call once per kernel state, before its first step. `config`
 * must be JSON (the `PolicySnapshot` given to `initialKernelState`);
 * `kernelVersion` (`KERNEL_LIFECYCLE_VERSION`) lets replay refuse a log written
 * under other semantics instead of calling it non-deterministic.
 *
 * @example
 * ```ts
 * import { recordKernelInit } from "./kinds.ts";
 * const seen: unknown[] = [];
 * await recordKernelInit({ append: (r) => (seen.push(r), Promise.resolve({} as never)) }, null);
 * if (seen.length !== 1) throw new Error();
 * ```
 */
export async function recordKernelInit(
  log: RecordAppender,
  config: unknown,
  kernelVersion?: string,
): Promise<LogRecord> {
  const body = kernelVersion === undefined ? { config } : { config, kernel: kernelVersion };
  return await log.append({ task: null, kind: LOG_KINDS.kernelInit, body });
}
