/**
 * The local executor of a batch: `concurrency` verifications in flight at
 * all times. Preparing a task (its spec commit and shared baseline, a real
 * test run) takes a slot like a candidate does, and candidates of a task that
 * is still being prepared never hold a slot waiting for it: a free slot takes
 * a candidate whose task is ready, else starts preparing the next task. So no
 * slot idles behind a task's baseline or a slow candidate, and nothing is
 * serialized on a shared lock (every candidate has its own state directory).
 *
 * @module
 */
import type { BatchTask } from "./input.ts";
import { verifyCandidate } from "./verify_candidate.ts";
import { batchResources, inFlight, type VerifyCandidateOptions } from "./options.ts";
import { type PreparedTask, prepareTask } from "./prepare.ts";
import type { KeyVerdict } from "./schema.ts";
import type { PlannedCandidate } from "./plan.ts";

/** One verification to run: a resume key and every prediction that shares it. */
export interface WorkItem {
  /** The resume key. */
  readonly key: string;
  /** The task. */
  readonly task: BatchTask;
  /** The patch text. */
  readonly patch: string;
  /** The predictions with this key. */
  readonly candidates: readonly PlannedCandidate[];
}

/** Runs work items and reports each verdict once (local pool, queue, ...). */
export type Executor = (
  items: readonly WorkItem[],
  onVerdict: (item: WorkItem, verdict: KeyVerdict) => Promise<void>,
) => Promise<void>;

/** What the scheduler runs: a task's preparation, or one candidate of a prepared task. */
export interface SlotWork<T, P, I extends { readonly task: T }> {
  /** Prepares a task (once per task key). */
  readonly prepare: (task: T) => Promise<P>;
  /** Judges one item of a prepared task. */
  readonly judge: (item: I, prepared: P) => Promise<void>;
  /** The key a task is prepared under. */
  readonly taskKey: (task: T) => string;
}

/**
 * Runs `items` with at most `concurrency` jobs in flight, a job being either
 * a task's preparation or an item of a prepared task (ready items first; a
 * free slot with none ready prepares the next task). Rejects with the first
 * error once nothing is in flight any more.
 *
 * @example Two slots: the second task is prepared while the first one's items run
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { runSlots } from "./local_executor.ts";
 * const log: string[] = [];
 * const tick = () => new Promise((r) => setTimeout(r, 5));
 * await runSlots(
 *   [{ task: "a" }, { task: "a" }, { task: "b" }],
 *   2,
 *   {
 *     taskKey: (t: string) => t,
 *     prepare: async (t: string) => { log.push(`prepare ${t}`); await tick(); return t; },
 *     judge: async (item) => { log.push(`judge ${item.task}`); await tick(); },
 *   },
 * );
 * deepEqual(log.slice(0, 2), ["prepare a", "prepare b"]);
 * deepEqual(log.filter((l) => l.startsWith("judge")).length, 3);
 * ```
 */
export function runSlots<T, P, I extends { readonly task: T }>(
  items: readonly I[],
  concurrency: number,
  work: SlotWork<T, P, I>,
): Promise<void> {
  const limit = Math.max(1, concurrency);
  const waiting = new Map<string, I[]>(); // task key -> items whose task is not prepared yet
  const tasks: T[] = []; // tasks to prepare, in order of their first item
  for (const item of items) {
    const key = work.taskKey(item.task);
    const list = waiting.get(key);
    if (list !== undefined) list.push(item);
    else {
      waiting.set(key, [item]);
      tasks.push(item.task);
    }
  }
  const ready: { item: I; prepared: P }[] = [];
  let running = 0;
  let failure: { error: unknown } | null = null;
  return new Promise<void>((resolve, reject) => {
    const finish = (p: Promise<unknown>) => {
      running++;
      p.catch((error) => {
        failure ??= { error };
      }).finally(() => {
        running--;
        pump();
      });
    };
    const pump = () => {
      while (failure === null && running < limit) {
        const next = ready.shift();
        if (next !== undefined) {
          finish(work.judge(next.item, next.prepared));
          continue;
        }
        const task = tasks.shift();
        if (task === undefined) break;
        finish(
          work.prepare(task).then((prepared) => {
            const key = work.taskKey(task);
            for (const item of waiting.get(key) ?? []) ready.push({ item, prepared });
            waiting.delete(key);
          }),
        );
      }
      if (running > 0) return;
      if (failure !== null) reject(failure.error);
      else resolve();
    };
    pump();
  });
}

/**
 * A local executor: `concurrency` verifications at a time (see
 * {@linkcode runSlots}), each task prepared once, clean trees reused per base
 * through one pool for the batch.
 *
 * @example
 * ```ts ignore
 * await runBatch({ tasks, predictions, outDir, executor: localExecutor({ outDir }, 2) });
 * ```
 */
export function localExecutor(given: VerifyCandidateOptions, concurrency: number): Executor {
  return async (items, onVerdict) => {
    // One pool of clean trees per batch (candidates of a base reset a used tree, no new
    // checkout), the dependency snapshots and one sandbox probe.
    const shared = batchResources(given, concurrency);
    const opts = shared.opts;
    try {
      // `concurrency` checks at a time (the check slots), twice as many verifications in
      // flight: the others reset their trees, apply and judge scope meanwhile.
      await runSlots<BatchTask, PreparedTask, WorkItem>(items, inFlight(concurrency), {
        taskKey: (task) => task.digest,
        prepare: (task) => prepareTask(task, opts),
        judge: async (item, prepared) => {
          const verdict = await verifyCandidate(prepared, item.patch, opts);
          await onVerdict(item, verdict);
        },
      });
    } finally {
      await shared.close();
    }
  };
}
