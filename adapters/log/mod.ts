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
 * @module
 */
export * from "./errors.ts";
export * from "./record.ts";
export * from "./verify.ts";
export * from "./lock.ts";
export * from "./store.ts";
export * from "./kinds.ts";
export * from "./replay.ts";
export * from "./hash_wasm_sha256.ts";
// Types the log API names (exported so the reference links them).
export type { VouchError } from "../../kernel/errors/mod.ts";
export type { Sha256 } from "../../kernel/digest.ts";
export type { BoundarySchema, SchemaIssue, SchemaParseResult } from "../schema/mod.ts";
