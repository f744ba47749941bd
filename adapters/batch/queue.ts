/**
 * A fleet on Redis with BullMQ: `enqueueExecutor` turns a batch's work items
 * into jobs (job id = resume key, so a key is judged once however often it is
 * enqueued) and waits for their verdicts; `runQueueWorker` judges jobs with the
 * same `prepareTask`/`verifyCandidate` as a local batch, `concurrency` at a
 * time, with its own pool of clean trees per base (a used tree is reset, not
 * checked out again). A worker that dies mid-job loses its lock; BullMQ's
 * stalled-job check hands the job to another worker, and only one completion
 * is ever recorded.
 *
 * Redis is transport, not authority. It must ask for credentials (a password
 * or an ACL user; TLS with `rediss://`), and everything through it is sealed
 * with the fleet key (`fleet_seal.ts`): a job is judged only when the
 * coordinator signed it and it names a task of the worker's own tasks file by
 * digest; a verdict enters the report only when a worker sealed it, for that
 * job and that patch, with its evidence.
 *
 * The network is reached only here, only at the one `redis[s]://HOST:PORT` given.
 *
 * @module
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { isIP } from "node:net";
import { join } from "node:path";
import { Job, Queue, UnrecoverableError, Worker } from "bullmq";
import { VouchError } from "../../kernel/errors/mod.ts";
import { sha256Hex } from "../digest/sha256.ts";
import type { MacKey } from "../keys/mac_key.ts";
import { openJob, openVerdict, sealVerdict, signJob, type VerdictEvidence } from "./fleet_seal.ts";
import type { BatchTask } from "./input.ts";
import { verifyCandidate } from "./verify_candidate.ts";
import { candidateKey } from "./key.ts";
import { reapDeadTrees } from "./reap.ts";
import { batchResources, inFlight, type VerifyCandidateOptions } from "./options.ts";
import { type PreparedTask, prepareTask } from "./prepare.ts";
import type { Executor, WorkItem } from "./local_executor.ts";
import type { KeyVerdict } from "./schema.ts";

/** Stable codes of {@linkcode QueueError}. */
export type QueueErrorCode = "bad_queue_url" | "queue_unreachable" | "queue_no_credentials";

/** A queue that cannot be used. */
export class QueueError extends VouchError<QueueErrorCode> {}

/** Where the queue lives and how to log in to it. */
export interface QueueAddress {
  readonly host: string;
  readonly port: number;
  /** BullMQ queue name. */
  readonly name: string;
  /** ACL user (Redis 6+); absent for `requirepass`'s default user. */
  readonly username?: string;
  /** The password (`requirepass` or the ACL user's). */
  readonly password?: string;
  /** TLS (`rediss://`). */
  readonly tls?: boolean;
  /** PEM CA certificate(s) to trust for TLS (default: the system's). */
  readonly ca?: string;
}

/** Options of {@linkcode parseQueueUrl}. */
export interface QueueUrlOptions {
  /** A password to use when the URL has none (e.g. from `VOUCH_QUEUE_PASSWORD`). */
  readonly password?: string | undefined;
  /** Accept a Redis without credentials (`--insecure-queue`). @default false */
  readonly insecure?: boolean;
}

/**
 * Parses `redis[s]://[[USER]:PASSWORD@]HOST:PORT[/NAME]` (no database index;
 * user and password percent-encoded). A queue without a password is refused
 * (`queue_no_credentials`) unless `insecure` is set: anyone who reaches an
 * open Redis can read every patch and disturb the batch.
 *
 * @example
 * ```ts
 * import { deepEqual, equal, throws } from "node:assert/strict";
 * import { parseQueueUrl } from "./queue.ts";
 * deepEqual(parseQueueUrl("redis://:pw@127.0.0.1:6379"), { host: "127.0.0.1", port: 6379, name: "vouch-batch", password: "pw", tls: false });
 * equal(parseQueueUrl("rediss://ci:p%40ss@h:1/ci").username, "ci");
 * equal(parseQueueUrl("redis://h:1", { password: "pw" }).password, "pw");
 * throws(() => parseQueueUrl("redis://h:1"), { code: "queue_no_credentials" });
 * equal(parseQueueUrl("redis://h:1/ci", { insecure: true }).name, "ci");
 * throws(() => parseQueueUrl("http://h:1"), { code: "bad_queue_url" });
 * ```
 */
export function parseQueueUrl(text: string, opts: QueueUrlOptions = {}): QueueAddress {
  const m =
    /^(rediss?):\/\/(?:([^:@/\s]*):([^@/\s]+)@)?([A-Za-z0-9.-]+|\[[0-9a-fA-F:]+\]):([0-9]{1,5})(?:\/([A-Za-z0-9_-]{1,100}))?$/
      .exec(text);
  const port = m ? Number(m[5]) : 0;
  const shown = text.replace(/:[^:@/]+@/, ":***@");
  if (!m || port < 1 || port > 65535) {
    throw new QueueError(
      "bad_queue_url",
      `Cannot use queue ${
        JSON.stringify(shown)
      }: expected redis[s]://[USER:PASSWORD@]HOST:PORT[/NAME]`,
    );
  }
  let username: string | undefined;
  let password: string | undefined;
  try {
    username = m[2] ? decodeURIComponent(m[2]) : undefined;
    password = m[3] !== undefined ? decodeURIComponent(m[3]) : opts.password || undefined;
  } catch {
    throw new QueueError(
      "bad_queue_url",
      `Cannot use queue ${JSON.stringify(shown)}: bad %-escape`,
    );
  }
  if (password === undefined && opts.insecure !== true) {
    throw new QueueError(
      "queue_no_credentials",
      `Cannot use queue ${JSON.stringify(shown)} without credentials: give ` +
        "redis://[USER]:PASSWORD@HOST:PORT (or set VOUCH_QUEUE_PASSWORD) for a Redis with " +
        "requirepass or an ACL user, or pass --insecure-queue to use an open Redis anyway",
    );
  }
  return {
    host: m[4]!.replace(/^\[|\]$/g, ""),
    port,
    name: m[6] ?? "vouch-batch",
    ...(username !== undefined ? { username } : {}),
    ...(password !== undefined ? { password } : {}),
    tls: m[1] === "rediss",
  };
}

/** Tuning of stalled-job recovery (tests shorten it). */
export interface QueueTiming {
  /** How long a worker's job lock lasts without renewal, ms. @default 30000 */
  readonly lockMs?: number;
}

/** What {@linkcode connectionOptions} gives ioredis. */
export interface ConnectionOptions {
  readonly host: string;
  readonly port: number;
  readonly username?: string;
  readonly password?: string;
  readonly tls?: { readonly servername?: string; readonly ca?: string };
  readonly maxRetriesPerRequest: null;
  readonly retryStrategy: (times: number) => number | null;
}

/**
 * The ioredis connection options of an address: credentials, TLS, and a fast
 * failure rather than endless retries when Redis is down.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { connectionOptions, parseQueueUrl } from "./queue.ts";
 * const c = connectionOptions(parseQueueUrl("rediss://u:p@h:1"));
 * equal(c.password, "p");
 * equal(c.tls?.servername, "h");
 * ```
 */
export function connectionOptions(address: QueueAddress): ConnectionOptions {
  return {
    host: address.host,
    port: address.port,
    ...(address.username !== undefined ? { username: address.username } : {}),
    ...(address.password !== undefined ? { password: address.password } : {}),
    ...(address.tls
      ? {
        // The certificate is checked against the host: its name (SNI too), or its IP address
        // (an IP is never sent as SNI: Node refuses that, RFC 6066).
        tls: {
          ...(isIP(address.host) === 0 ? { servername: address.host } : {}),
          ...(address.ca !== undefined ? { ca: address.ca } : {}),
        },
      }
      : {}),
    maxRetriesPerRequest: null,
    retryStrategy: (times: number) => (times > 20 ? null : Math.min(times * 100, 1000)),
  };
}

function unreachable(address: QueueAddress, error: unknown): QueueError {
  const message = (error as Error).message ?? String(error);
  const auth = /NOAUTH|WRONGPASS|NOPERM|invalid password|invalid username/i.test(message);
  return new QueueError(
    auth ? "queue_no_credentials" : "queue_unreachable",
    `Cannot ${auth ? "log in to" : "reach"} redis${
      address.tls ? "s" : ""
    }://${address.host}:${address.port}: ${message}`,
  );
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

/** Options of {@linkcode enqueueExecutor}. */
export interface EnqueueOptions {
  /** The fleet key: signs the jobs, checks the verdicts. */
  readonly fleetKey: MacKey;
  /** Where the verdicts' evidence is written (`<dir>/candidates/<key>/`): the batch's output directory. */
  readonly outDir?: string;
  /** How often the coordinator looks at the jobs, ms. @default 200 */
  readonly pollMs?: number;
  /**
   * Called for a job whose result was refused (no valid MAC, another job's or
   * patch's verdict, a resolved verdict without its evidence): the candidate
   * stays unjudged (`incomplete_ids`), it is never resolved.
   */
  readonly onRefused?: (item: WorkItem, reason: string) => void;
}

async function writeEvidence(dir: string, evidence: VerdictEvidence): Promise<void> {
  if (evidence.verified_patch === null && evidence.attestation === null) return;
  await mkdir(dir, { recursive: true });
  if (evidence.verified_patch !== null) {
    await writeFile(join(dir, "verified_patch.json"), evidence.verified_patch);
  }
  if (evidence.attestation !== null) {
    await writeFile(join(dir, "attestation.json"), evidence.attestation);
  }
}

/**
 * An executor that enqueues every work item as a BullMQ job signed with the
 * fleet key and waits for each job's verdict: a verdict counts only when its
 * MAC verifies and it is the verdict of that job (a job that failed every
 * attempt is an `error`; a refused result leaves the candidate unjudged).
 *
 * @example
 * ```ts ignore
 * const fleetKey = await loadFleetKey({ create: true });
 * await runBatch({ tasks, predictions, outDir, executor: enqueueExecutor(parseQueueUrl(url), { fleetKey }) });
 * ```
 */
export function enqueueExecutor(address: QueueAddress, opts: EnqueueOptions): Executor {
  const pollMs = opts.pollMs ?? 200;
  return async (items, onVerdict) => {
    const queue = new Queue(address.name, { connection: connectionOptions(address) });
    try {
      await queue.waitUntilReady().catch((error) => {
        throw unreachable(address, error);
      });
      const jobs = await Promise.all(items.map(async (item) => ({
        name: "judge",
        data: await signJob(opts.fleetKey, address.name, {
          task: item.task.digest,
          patch: item.patch,
          key: item.key,
        }),
        opts: { jobId: item.key, attempts: 3, removeOnFail: false, removeOnComplete: false },
      })));
      await queue.addBulk(jobs).catch((error) => {
        throw unreachable(address, error);
      });
      const pending = new Map(items.map((i) => [i.key, i]));
      while (pending.size > 0) {
        for (const [key, item] of [...pending]) {
          // State first, then the job: a job read before it completed has no return value yet.
          const state = await queue.getJobState(key);
          if (state !== "completed" && state !== "failed") continue;
          const job = await Job.fromId(queue, key);
          if (job === undefined) continue;
          pending.delete(key);
          if (state === "failed") {
            await onVerdict(item, failedVerdict(item, job.failedReason ?? "failed"));
            continue;
          }
          const opened = await openVerdict(opts.fleetKey, address.name, item, job.returnvalue);
          if (!opened.ok) {
            opts.onRefused?.(item, opened.reason);
            continue;
          }
          if (opts.outDir !== undefined) {
            await writeEvidence(join(opts.outDir, "candidates", key), opened.value.evidence);
          }
          await onVerdict(item, opened.value.verdict);
        }
        if (pending.size > 0) await new Promise((r) => setTimeout(r, pollMs));
      }
    } finally {
      await queue.close();
    }
  };
}

/** Options of {@linkcode runQueueWorker}. */
export interface WorkerOptions extends VerifyCandidateOptions, QueueTiming {
  /** The tasks this worker judges (its own tasks file): a job names one by digest, or is refused. */
  readonly tasks: readonly BatchTask[];
  /** The fleet key: jobs must carry its MAC; verdicts are sealed with it. */
  readonly fleetKey: MacKey;
  /** Jobs at a time. @default 1 */
  readonly concurrency?: number;
  /** Stops the worker (it finishes nothing more; running jobs are abandoned to the lock). */
  readonly signal?: AbortSignal;
  /** Called when a job starts and ends. */
  readonly onJob?: (event: { kind: "start" | "done"; key: string; verdict?: KeyVerdict }) => void;
  /** Called for a job this worker refused (nothing of it ran). */
  readonly onRefused?: (event: { id: string; reason: string }) => void;
}

async function readEvidence(outDir: string, verdict: KeyVerdict): Promise<VerdictEvidence> {
  const read = (p: string | null) => p === null ? null : readFile(join(outDir, p), "utf8");
  return {
    verified_patch: await read(verdict.artefacts.verified_patch),
    attestation: await read(verdict.artefacts.attestation),
  };
}

/**
 * Processes the queue's jobs until `signal` aborts. A job is judged only when
 * its MAC verifies under the fleet key and it names a task of `tasks` by
 * digest, and only with that task as this worker read it (its repository,
 * base, contract); anything else fails unrecoverably before anything runs.
 *
 * @example
 * ```ts ignore
 * await runQueueWorker(parseQueueUrl(url), { tasks, fleetKey, outDir: "out", concurrency: 2, signal });
 * ```
 */
export async function runQueueWorker(address: QueueAddress, given: WorkerOptions): Promise<void> {
  const prepared = new Map<string, Promise<PreparedTask>>();
  const byDigest = new Map(given.tasks.map((t) => [t.digest, t]));
  // Trees a killed worker left (registered, owner dead) are removed before this one starts.
  await reapDeadTrees(given.tasks.map((t) => t.repo), given.worktreeRoot);
  // As a local batch: clean trees reused per base across this worker's jobs (drained at the
  // end), the dependency snapshots and one sandbox probe.
  const shared = batchResources(given, given.concurrency ?? 1);
  const opts: WorkerOptions = { ...given, ...shared.opts };
  const lockMs = opts.lockMs ?? 30_000;
  const refuse = (id: string, reason: string): never => {
    opts.onRefused?.({ id, reason });
    throw new UnrecoverableError(`refused: ${reason}`);
  };
  const worker = new Worker(
    address.name,
    async (job) => {
      const id = String(job.id);
      const opened = await openJob(opts.fleetKey, address.name, job.data);
      if (!opened.ok) return refuse(id, opened.reason);
      const data = opened.value;
      if (data.key !== id) return refuse(id, "the job's id is not its key");
      const task = byDigest.get(data.task);
      if (task === undefined) {
        return refuse(id, "the job names a task outside this worker's tasks file");
      }
      let p = prepared.get(task.digest);
      if (p === undefined) prepared.set(task.digest, p = prepareTask(task, opts));
      const ready = await p;
      if (candidateKey(task.digest, ready.base, sha256Hex(data.patch)) !== data.key) {
        return refuse(id, "the job's key is not its task, base and patch");
      }
      opts.onJob?.({ kind: "start", key: data.key });
      const verdict = await verifyCandidate(ready, data.patch, opts);
      opts.onJob?.({ kind: "done", key: data.key, verdict });
      return await sealVerdict(
        opts.fleetKey,
        address.name,
        verdict,
        await readEvidence(opts.outDir, verdict),
      );
    },
    {
      connection: connectionOptions(address),
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
      throw unreachable(address, error);
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
