/**
 * The tamper-evident event log: RFC 8785 canonical JSON lines chained by
 * SHA-256, a single-writer append-only file store with durable appends, torn
 * tail recovery, full verification and kernel replay. It must never rewrite
 * earlier bytes of a log, and never accept a line it cannot verify.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdtempSync, rmSync } from "node:fs";
 * import { EventLog, readLogFile } from "./mod.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-"));
 * const log = await EventLog.open(`${dir}/events.jsonl`);
 * await log.append({ task: "t1", kind: "demo", body: { hello: "world" } });
 * await log.close();
 * const result = await readLogFile(`${dir}/events.jsonl`);
 * if (result.status !== "ok" || result.head.seq !== 1) throw new Error();
 * rmSync(dir, { recursive: true, force: true });
 * ```
 *
 * The exports below are an explicit list: what an embedder needs and every type those names
 * mention (so `deno doc --lint` finds no reference to an unexported type). Helpers used inside vouch
 * are imported from their module paths and are not part of the API; `tests/api/exports.json`
 * holds the list.
 *
 * @module
 */
export {
  EventLogError,
  type EventLogErrorCode,
  type LogIssue,
  type LogIssueReason,
} from "./errors.ts";
export { createHashWasmSha256 } from "./hash_wasm_sha256.ts";
export {
  type KernelActionsBody,
  LOG_KINDS,
  type RecordAppender,
  recordKernelInit,
  recordKernelStep,
} from "./kinds.ts";
export type { LockOwner } from "./lock.ts";
export {
  GENESIS_HASH,
  type JsonValue,
  LOG_HASH_DOMAIN,
  LOG_RECORD_VERSION,
  type LogHead,
  type LogRecord,
  LogRecordSchema,
  type RecordInput,
} from "./record.ts";
export {
  type ReplayDivergenceReason,
  type ReplayKernel,
  replayKernelRecords,
  type ReplayResult,
} from "./replay.ts";
export {
  type Durability,
  EventLog,
  type OpenEventLogOptions,
  type OpenReport,
  readLogFile,
} from "./store.ts";
export { type LogVerification, verifyLogBytes, type VerifyLogOptions } from "./verify.ts";
