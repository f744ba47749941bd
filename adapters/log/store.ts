import { constants, lstatSync } from "node:fs";
import { type FileHandle, open, readFile, truncate } from "node:fs/promises";
import type { Sha256 } from "../../kernel/digest.ts";
import { nodeSha256 } from "../digest/sha256.ts";
import { errorReason } from "../text/mod.ts";
import { EventLogError } from "./errors.ts";
import { acquireWriterLock, type LockOwner, type WriterLock } from "./lock.ts";
import { LOG_KINDS } from "./kinds.ts";
import {
  frameRecord,
  type JsonValue,
  type LogHead,
  type LogRecord,
  type RecordInput,
} from "./record.ts";
import { type LogVerification, verifyLogBytes, type VerifyLogOptions } from "./verify.ts";

/** How appends reach the disk. */
export type Durability =
  /** Every `append` writes its line and calls `fdatasync` before resolving. */
  | "per-record"
  /** `append` frames into memory; `flush()` (or `close()`) writes and syncs the batch. */
  | "batched";

/** Options for {@linkcode EventLog.open}. */
export interface OpenEventLogOptions {
  /** How appends reach the disk. @default "per-record" */
  readonly durability?: Durability;
  /** Recover a torn tail (copy aside, truncate, append `log.recovered`). @default true */
  readonly recover?: boolean;
  /** Digest implementation. @default nodeSha256 */
  readonly sha256?: Sha256;
  /** Clock for record timestamps (ms since epoch). @default Date.now */
  readonly now?: () => number;
  /** A head the existing log must contain (e.g. the latest receipt's anchor). */
  readonly expectHead?: LogHead;
}

/** What {@linkcode EventLog.open} found and did. */
export interface OpenReport {
  /** Records that verified when opening (before any recovery record). */
  readonly records: number;
  /** Set when a torn tail was recovered. */
  readonly recovered: { readonly droppedBytes: number; readonly tornFile: string } | null;
  /** Set when a stale lock of a dead writer was broken. */
  readonly brokeStaleLock: LockOwner | null;
  /** Body of the last `tool.receipt` record, to resume the receipt chain. */
  readonly lastReceipt: JsonValue | null;
}

const encoder = new TextEncoder();

async function writeAll(file: FileHandle, bytes: Uint8Array): Promise<void> {
  let off = 0;
  while (off < bytes.length) off += (await file.write(bytes, off)).bytesWritten;
}

const isNotFound = (error: unknown) => (error as { code?: string } | null)?.code === "ENOENT";

function firstFreeTornPath(path: string): string {
  for (let n = 1;; n++) {
    const candidate = `${path}.torn-${n}`;
    try {
      lstatSync(candidate);
    } catch (error) {
      if (isNotFound(error)) return candidate;
      throw error;
    }
  }
}

/**
 * The append-only, hash-chained event log file with a single writer.
 *
 * Opening takes the lock file `<path>.lock`, verifies every line, recovers a torn
 * final line and refuses a tampered file. Appends only ever add bytes at the end
 * (the file is opened with `append`); earlier bytes are never rewritten.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdtempSync, rmSync } from "node:fs";
 * import { EventLog } from "./store.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-"));
 * const log = await EventLog.open(`${dir}/events.jsonl`);
 * const r = await log.append({ task: "t1", kind: "demo", body: { n: 1 } });
 * if (r.seq !== 1 || log.head.seq !== 1) throw new Error();
 * await log.close();
 * rmSync(dir, { recursive: true, force: true });
 * ```
 */
export class EventLog {
  /** Path of the log file. */
  readonly path: string;
  /** What opening found. */
  readonly openReport: OpenReport;
  readonly #file: FileHandle;
  readonly #lock: WriterLock;
  readonly #durability: Durability;
  readonly #sha256: Sha256;
  readonly #now: () => number;
  #head: LogHead;
  #durableHead: LogHead;
  #pending: string[] = [];
  #queue: Promise<unknown> = Promise.resolve();
  #broken: string | null = null;
  #closed = false;

  private constructor(
    path: string,
    file: FileHandle,
    lock: WriterLock,
    head: LogHead,
    options: OpenEventLogOptions,
    report: OpenReport,
  ) {
    this.path = path;
    this.#file = file;
    this.#lock = lock;
    this.#head = head;
    this.#durableHead = head;
    this.#durability = options.durability ?? "per-record";
    this.#sha256 = options.sha256 ?? nodeSha256;
    this.#now = options.now ?? Date.now;
    this.openReport = report;
  }

  /**
   * Opens (creating if missing) a log for appending. Throws `EventLogError` with
   * code `locked`, `tampered` (with `issue`), `head_mismatch`, `torn` (when
   * `recover: false`) or `io`.
   */
  static async open(path: string, options: OpenEventLogOptions = {}): Promise<EventLog> {
    const lock = acquireWriterLock(`${path}.lock`);
    try {
      let bytes: Uint8Array;
      try {
        bytes = new Uint8Array(await readFile(path));
      } catch (error) {
        if (!isNotFound(error)) {
          throw new EventLogError("io", `Cannot read log ${path}: ${errorReason(error)}`, {
            cause: error,
          });
        }
        bytes = new Uint8Array();
      }
      const sha256 = options.sha256 ?? nodeSha256;
      let lastReceipt: JsonValue | null = null;
      const result = verifyLogBytes(bytes, {
        sha256,
        keepRecords: false,
        onRecord: (r) => {
          if (r.kind === LOG_KINDS.toolReceipt) lastReceipt = r.body;
        },
        ...(options.expectHead ? { expectHead: options.expectHead } : {}),
      });
      if (result.status === "tampered") {
        const { issue } = result;
        const code = issue.reason === "head_mismatch" ? "head_mismatch" : "tampered";
        throw new EventLogError(
          code,
          `Cannot open log ${path}: ${issue.reason} at line ${issue.line}` +
            `${issue.seq === null ? "" : ` (seq ${issue.seq})`}: ${issue.detail}`,
          { issue },
        );
      }
      let recovered: OpenReport["recovered"] = null;
      if (result.status === "torn") {
        if (options.recover === false) {
          throw new EventLogError(
            "torn",
            `Cannot open log ${path}: the last ${result.tornBytes} bytes are a torn write`,
          );
        }
        const tornFile = firstFreeTornPath(path);
        const aside = await open(
          tornFile,
          constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
          0o600,
        );
        try {
          await writeAll(aside, bytes.subarray(result.validBytes));
          await aside.datasync();
        } finally {
          await aside.close();
        }
        await truncate(path, result.validBytes);
        recovered = { droppedBytes: result.tornBytes, tornFile };
      }
      const file = await open(path, "a", 0o600);
      const report: OpenReport = {
        records: result.head.seq,
        recovered,
        brokeStaleLock: lock.brokeStale,
        lastReceipt,
      };
      const log = new EventLog(path, file, lock, result.head, options, report);
      if (recovered) {
        await file.datasync();
        await log.append({
          kind: LOG_KINDS.logRecovered,
          body: {
            droppedBytes: recovered.droppedBytes,
            tornFile: recovered.tornFile.slice(recovered.tornFile.lastIndexOf("/") + 1),
            afterSeq: result.head.seq,
          },
        });
        await log.flush();
      }
      return log;
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  /** The head including records framed but not yet flushed (batched mode). */
  get head(): LogHead {
    return this.#head;
  }

  /** The head of what is durable on disk. */
  get durableHead(): LogHead {
    return this.#durableHead;
  }

  /** The durability mode. */
  get durability(): Durability {
    return this.#durability;
  }

  #check(): void {
    if (this.#closed) throw new EventLogError("closed", `Cannot append to ${this.path}: closed`);
    if (this.#broken !== null) {
      throw new EventLogError(
        "closed",
        `Cannot append to ${this.path}: an earlier write failed (${this.#broken}); reopen to recover`,
      );
    }
  }

  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn, fn);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #writeLines(lines: string[], head: LogHead): Promise<void> {
    try {
      await writeAll(this.#file, encoder.encode(lines.join("\n") + "\n"));
      await this.#file.datasync();
    } catch (error) {
      this.#broken = String(error);
      throw new EventLogError("io", `Cannot append to ${this.path}: ${String(error)}`, {
        cause: error,
      });
    }
    this.#durableHead = head;
  }

  /**
   * Frames and appends one record. In `per-record` mode it resolves once the
   * line and its newline are `fdatasync`ed; in `batched` mode once framed (call
   * {@linkcode EventLog.flush}).
   */
  append(input: RecordInput & { readonly ts?: number }): Promise<LogRecord> {
    return this.#serial(async () => {
      this.#check();
      const { record, line } = frameRecord(
        this.#head,
        input,
        input.ts ?? this.#now(),
        this.#sha256,
      );
      this.#head = { seq: record.seq, hash: record.hash };
      if (this.#durability === "per-record") {
        await this.#writeLines([line], this.#head);
      } else {
        this.#pending.push(line);
      }
      return record;
    });
  }

  /** Writes and syncs every pending record (a no-op in `per-record` mode). */
  flush(): Promise<LogHead> {
    return this.#serial(async () => {
      if (this.#pending.length > 0) {
        this.#check();
        const lines = this.#pending;
        this.#pending = [];
        await this.#writeLines(lines, this.#head);
      }
      return this.#durableHead;
    });
  }

  /** Flushes, then returns the durable head: what a receipt should anchor to. */
  anchor(): Promise<LogHead> {
    return this.flush();
  }

  /** Flushes, closes the file and releases the lock. Safe to call twice. */
  async close(): Promise<void> {
    if (this.#closed) return;
    try {
      if (this.#broken === null) await this.flush();
    } finally {
      this.#closed = true;
      await this.#queue;
      await this.#file.close();
      this.#lock.release();
    }
  }
}

/**
 * Reads and verifies a log file without taking the writer lock (read-only).
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { readLogFile } from "./store.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-"));
 * writeFileSync(`${dir}/e.jsonl`, "");
 * if ((await readLogFile(`${dir}/e.jsonl`)).status !== "ok") throw new Error();
 * rmSync(dir, { recursive: true, force: true });
 * ```
 */
export async function readLogFile(
  path: string,
  options: VerifyLogOptions = {},
): Promise<LogVerification> {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await readFile(path));
  } catch (error) {
    throw new EventLogError("io", `Cannot read log ${path}: ${errorReason(error)}`, {
      cause: error,
    });
  }
  return verifyLogBytes(bytes, options);
}
