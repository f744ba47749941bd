/**
 * A fleet on Redis with BullMQ: `enqueueExecutor` turns a batch's work items
 * into jobs (job id = resume key, so a key is judged once however often it is
 * enqueued) and waits for their verdicts; `runQueueWorker` judges jobs with the
 * same `prepareTask`/`judgeCandidate` as a local batch, `concurrency` at a
 * time, with its own pool of clean trees per base (a used tree is reset, not
 * checked out again). A worker that dies mid-job loses its lock; BullMQ's
 * stalled-job check hands the job to another worker, and only one completion
 * is ever recorded.
 *
 * The network is reached only here, only at the one `redis://HOST:PORT` given.
 *
 * @module
 */
import { Job, Queue, Worker } from "bullmq";
import { VouchError } from "../../kernel/errors/mod.ts";
import { type BatchTask, resolveTask } from "./input.ts";
import { judgeCandidate } from "./judge.ts";
import { batchResources, inFlight, type JudgeOptions } from "./options.ts";
import { type PreparedTask, prepareTask } from "./prepare.ts";
import type { Executor, WorkItem } from "./local_executor.ts";
import { type KeyVerdict, keyVerdictSchema } from "./schema.ts";
import { z } from "zod";

/** Stable codes of {@linkcode QueueError}. */
export type QueueErrorCode = "bad_queue_url" | "queue_unreachable";

/** A queue that cannot be used. */
export class QueueError extends VouchError<QueueErrorCode> {}

/** Where the queue lives. */
export interface QueueAddress {
  readonly host: string;
  readonly port: number;
  /** BullMQ queue name. */
  readonly name: string;
}

/**
 * Parses `redis://HOST:PORT[/NAME]` (no credentials, no database index).
 *
 * @example
 * ```ts
 * import { deepEqual, throws } from "node:assert/strict";
 * import { parseQueueUrl } from "./queue.ts";
 * deepEqual(parseQueueUrl("redis://127.0.0.1:6379"), { host: "127.0.0.1", port: 6379, name: "vouch-batch" });
 * deepEqual(parseQueueUrl("redis://h:1/ci").name, "ci");
 * throws(() => parseQueueUrl("http://h:1"), { code: "bad_queue_url" });
 * ```
 */
export function parseQueueUrl(text: string): QueueAddress {
  const m =
    /^redis:\/\/([A-Za-z0-9.-]+|\[[0-9a-fA-F:]+\]):([0-9]{1,5})(?:\/([A-Za-z0-9_-]{1,100}))?$/
      .exec(text);
  const port = m ? Number(m[2]) : 0;
  if (!m || port < 1 || port > 65535) {
    throw new QueueError(
      "bad_queue_url",
      `Cannot use queue ${JSON.stringify(text)}: expected redis://HOST:PORT[/NAME]`,
    );
  }
  return { host: m[1]!.replace(/^\[|\]$/g, ""), port, name: m[3] ?? "vouch-batch" };
}

const jobDataSchema = z.strictObject({
  task: z.strictObject({ line: z.unknown(), dir: z.string() }),
  patch: z.string(),
  key: z.string().regex(/^[0-9a-f]{64}$/),
});

/** Tuning of stalled-job recovery (tests shorten it). */
export interface QueueTiming {
  /** How long a worker's job lock lasts without renewal, ms. @default 30000 */
  readonly lockMs?: number;
}

function connection(address: QueueAddress) {
  // Fail fast rather than retry forever when Redis is down.
  return {
    host: address.host,
    port: address.port,
    maxRetriesPerRequest: null,
    retryStrategy: (times: number) => (times > 20 ? null : Math.min(times * 100, 1000)),
  };
}

function failedVerdict(item: WorkItem, reason: string): KeyVerdict {
  return {
    key: item.key,
    patch_digest: "",
    base: "",
    status: "error",
    reason: "could_not_run",
    reasons: ["worker_failed"],
    detail: `worker failed: ${reason}`,
    tests: [],
    artefacts: { dir: null, log: null, verified_patch: null, attestation: null },
  };
}

/**
 * An executor that enqueues every work item as a BullMQ job and waits for
 * each job's verdict (a job that failed every attempt is an `error`).
 *
 * @example
 * ```ts ignore
 * await runBatch({ tasks, predictions, outDir, executor: enqueueExecutor(parseQueueUrl(url)) });
 * ```
 */
export function enqueueExecutor(address: QueueAddress, pollMs = 200): Executor {
  return async (items, onVerdict) => {
    const queue = new Queue(address.name, { connection: connection(address) });
    try {
      await queue.waitUntilReady().catch((error) => {
        throw new QueueError(
          "queue_unreachable",
          `Cannot reach redis://${address.host}:${address.port}: ${(error as Error).message}`,
        );
      });
      await queue.addBulk(items.map((item) => ({
        name: "judge",
        data: { task: item.task.source, patch: item.patch, key: item.key },
        opts: { jobId: item.key, attempts: 3, removeOnFail: false, removeOnComplete: false },
      })));
      const pending = new Map(items.map((i) => [i.key, i]));
      while (pending.size > 0) {
        for (const [key, item] of [...pending]) {
          // State first, then the job: a job read before it completed has no return value yet.
          const state = await queue.getJobState(key);
          if (state !== "completed" && state !== "failed") continue;
          const job = await Job.fromId(queue, key);
          if (job === undefined) continue;
          if (state === "completed") {
            const parsed = keyVerdictSchema.safeParse(job.returnvalue);
            pending.delete(key);
            await onVerdict(
              item,
              parsed.success && parsed.data.key === key
                ? parsed.data
                : failedVerdict(item, "the job's result is not a verdict"),
            );
          } else if (state === "failed") {
            pending.delete(key);
            await onVerdict(item, failedVerdict(item, job.failedReason ?? "failed"));
          }
        }
        if (pending.size > 0) await new Promise((r) => setTimeout(r, pollMs));
      }
    } finally {
      await queue.close();
    }
  };
}

/** Options of {@linkcode runQueueWorker}. */
export interface WorkerOptions extends JudgeOptions, QueueTiming {
  /** Jobs at a time. @default 1 */
  readonly concurrency?: number;
  /** Stops the worker (it finishes nothing more; running jobs are abandoned to the lock). */
  readonly signal?: AbortSignal;
  /** Called when a job starts and ends. */
  readonly onJob?: (event: { kind: "start" | "done"; key: string; verdict?: KeyVerdict }) => void;
}

/**
 * Processes the queue's jobs until `signal` aborts.
 *
 * @example
 * ```ts ignore
 * await runQueueWorker(parseQueueUrl("redis://127.0.0.1:6379"), { outDir: "out", concurrency: 2, signal });
 * ```
 */
export async function runQueueWorker(address: QueueAddress, given: WorkerOptions): Promise<void> {
  const prepared = new Map<string, Promise<PreparedTask>>();
  // As a local batch: clean trees reused per base across this worker's jobs (drained at the
  // end), the dependency snapshots and one sandbox probe.
  const shared = batchResources(given, given.concurrency ?? 1);
  const opts: WorkerOptions = { ...given, ...shared.opts };
  const lockMs = opts.lockMs ?? 30_000;
  const worker = new Worker(
    address.name,
    async (job) => {
      const data = jobDataSchema.parse(job.data);
      const task: BatchTask = resolveTask(data.task.line, data.task.dir, `job ${job.id}`);
      let p = prepared.get(task.digest);
      if (p === undefined) prepared.set(task.digest, p = prepareTask(task, opts));
      opts.onJob?.({ kind: "start", key: data.key });
      const verdict = await judgeCandidate(await p, data.patch, opts);
      opts.onJob?.({ kind: "done", key: data.key, verdict });
      return verdict;
    },
    {
      connection: connection(address),
      // `concurrency` check slots (batchResources), twice as many jobs in flight: the others
      // prepare their trees meanwhile, as in a local batch.
      concurrency: inFlight(opts.concurrency ?? 1),
      lockDuration: lockMs,
      stalledInterval: Math.max(500, Math.round(lockMs / 2)),
      maxStalledCount: 3,
    },
  );
  try {
    await worker.waitUntilReady().catch((error) => {
      throw new QueueError(
        "queue_unreachable",
        `Cannot reach redis://${address.host}:${address.port}: ${(error as Error).message}`,
      );
    });
    await new Promise<void>((resolve) => {
      if (opts.signal?.aborted) return resolve();
      opts.signal?.addEventListener("abort", () => resolve(), { once: true });
    });
  } finally {
    await worker.close();
    await shared.close();
  }
}
