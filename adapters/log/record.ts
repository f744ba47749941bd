import { z } from "zod";
import type { Sha256 } from "../../kernel/digest.ts";
import { toHex } from "../../kernel/digest.ts";
import { nodeSha256 } from "../digest/sha256.ts";
import { canonicalJson } from "../canonical_json/canonical_json.ts";
import { findDuplicateKey } from "./duplicate_keys.ts";
import { EventLogError } from "./errors.ts";

/** Record format version written into every line. */
export const LOG_RECORD_VERSION = 1 as const;

/** Domain-separation prefix hashed before the canonical record bytes. */
export const LOG_HASH_DOMAIN = "vouch.log.v1\n";

/** The `prev` of the first record, and the head hash of an empty log. */
export const GENESIS_HASH = "0".repeat(64);

/** A JSON value as stored in a record body. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

/** One verified line of the event log. */
export interface LogRecord {
  /** Format version, always 1. */
  readonly v: 1;
  /** 1-based position in the log; strictly +1 per record. */
  readonly seq: number;
  /** Milliseconds since the Unix epoch when the record was framed. */
  readonly ts: number;
  /** The task the record belongs to, or null for log-level records. */
  readonly task: string | null;
  /** What the record is (see `kinds.ts`), e.g. `kernel.event`. */
  readonly kind: string;
  /** The payload. */
  readonly body: JsonValue;
  /** `hash` of the previous record, or {@linkcode GENESIS_HASH}. */
  readonly prev: string;
  /** Lower-case hex SHA-256 over the domain prefix and the record without `hash`. */
  readonly hash: string;
}

/** The position of a log: the last record's seq and hash (seq 0 = empty log). */
export interface LogHead {
  /** Sequence number of the last record, 0 for an empty log. */
  readonly seq: number;
  /** Hash of the last record, {@linkcode GENESIS_HASH} for an empty log. */
  readonly hash: string;
}

/** What a caller supplies to frame a record. */
export interface RecordInput {
  /** The task, or null/omitted for log-level records. */
  readonly task?: string | null;
  /** Record kind. */
  readonly kind: string;
  /** JSON payload. */
  readonly body: unknown;
}

const HEX64 = /^[0-9a-f]{64}$/;
const KIND = /^[a-z][a-z0-9_.-]{0,63}$/;
const TASK = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

/** zod schema of a parsed record line (every field, no extras). */
export const LogRecordSchema: z.ZodType<LogRecord> = z.strictObject({
  v: z.literal(1),
  seq: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  ts: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  task: z.string().regex(TASK).nullable(),
  kind: z.string().regex(KIND),
  // The body is checked for JSON-ness by canonical re-serialisation below; a
  // deep zod walk of every body would dominate verification time.
  body: z.custom<JsonValue>((v) => v !== undefined),
  prev: z.string().regex(HEX64),
  hash: z.string().regex(HEX64),
});

const encoder = new TextEncoder();

function unhashedText(
  bodyJson: string,
  kind: string,
  prev: string,
  seq: number,
  task: string | null,
  ts: number,
): string {
  // Keys in RFC 8785 order: body, kind, prev, seq, task, ts, v. Strings use
  // JSON.stringify, which is exactly JCS string serialisation.
  return `{"body":${bodyJson},"kind":${JSON.stringify(kind)},"prev":"${prev}","seq":${seq},"task":${
    task === null ? "null" : JSON.stringify(task)
  },"ts":${ts},"v":1}`;
}

function lineText(
  bodyJson: string,
  hash: string,
  kind: string,
  prev: string,
  seq: number,
  task: string | null,
  ts: number,
): string {
  return `{"body":${bodyJson},"hash":"${hash}","kind":${
    JSON.stringify(kind)
  },"prev":"${prev}","seq":${seq},"task":${
    task === null ? "null" : JSON.stringify(task)
  },"ts":${ts},"v":1}`;
}

function hashOf(sha256: Sha256, unhashed: string): string {
  return toHex(sha256.digest(encoder.encode(LOG_HASH_DOMAIN + unhashed)));
}

/** A framed record and its line (without the trailing newline). */
export interface FramedRecord {
  /** The record. */
  readonly record: LogRecord;
  /** Its canonical JSON line, without `\n`. */
  readonly line: string;
}

/**
 * Frames the next record after `head`: assigns seq, links `prev`, computes the
 * hash and returns the canonical line. Throws `EventLogError("invalid_record")`
 * for a bad kind, task, timestamp or a body with no JSON form.
 *
 * @example
 * ```ts
 * import { frameRecord, GENESIS_HASH } from "./record.ts";
 * const { record, line } = frameRecord({ seq: 0, hash: GENESIS_HASH }, { kind: "demo", body: { a: 1 } }, 1000);
 * if (record.seq !== 1 || !line.startsWith('{"body":{"a":1},"hash":"')) throw new Error(line);
 * ```
 */
export function frameRecord(
  head: LogHead,
  input: RecordInput,
  ts: number,
  sha256: Sha256 = nodeSha256,
): FramedRecord {
  const task = input.task ?? null;
  if (!KIND.test(input.kind)) {
    throw new EventLogError("invalid_record", `Cannot frame record: bad kind "${input.kind}"`);
  }
  if (task !== null && !TASK.test(task)) {
    throw new EventLogError("invalid_record", `Cannot frame record: bad task id "${task}"`);
  }
  if (!Number.isSafeInteger(ts) || ts < 0) {
    throw new EventLogError("invalid_record", `Cannot frame record: bad timestamp ${ts}`);
  }
  let bodyJson: string;
  try {
    bodyJson = canonicalJson(input.body);
  } catch (cause) {
    throw new EventLogError("invalid_record", "Cannot frame record: body is not JSON", { cause });
  }
  const seq = head.seq + 1;
  const hash = hashOf(sha256, unhashedText(bodyJson, input.kind, head.hash, seq, task, ts));
  const record: LogRecord = {
    v: 1,
    seq,
    ts,
    task,
    kind: input.kind,
    body: JSON.parse(bodyJson) as JsonValue,
    prev: head.hash,
    hash,
  };
  return { record, line: lineText(bodyJson, hash, input.kind, head.hash, seq, task, ts) };
}

/**
 * Parses and checks one log line on its own (without its neighbours): valid
 * JSON, schema, no duplicate keys, canonical bytes, correct hash. Throws only
 * `EventLogError` with code `not_json`, `schema`, `duplicate_key`,
 * `not_canonical` or `bad_hash`.
 *
 * @example
 * ```ts
 * import { frameRecord, GENESIS_HASH, parseRecordLine } from "./record.ts";
 * const { line } = frameRecord({ seq: 0, hash: GENESIS_HASH }, { kind: "demo", body: [] }, 5);
 * if (parseRecordLine(line).ts !== 5) throw new Error();
 * ```
 */
export function parseRecordLine(line: string, sha256: Sha256 = nodeSha256): LogRecord {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new EventLogError("not_json", "Cannot parse log line: not JSON");
  }
  const result = LogRecordSchema.safeParse(parsed);
  if (!result.success) {
    const first = result.error.issues[0];
    const where = first ? `${first.path.join(".") || "(root)"}: ${first.message}` : "invalid";
    throw new EventLogError("schema", `Cannot parse log line: ${where}`);
  }
  const r = result.data;
  let bodyJson: string;
  try {
    bodyJson = canonicalJson(r.body);
  } catch {
    throw new EventLogError("not_canonical", "Cannot parse log line: body has no canonical form");
  }
  if (lineText(bodyJson, r.hash, r.kind, r.prev, r.seq, r.task, r.ts) !== line) {
    const dup = findDuplicateKey(line);
    if (dup !== null) {
      throw new EventLogError("duplicate_key", `Cannot parse log line: duplicate key "${dup}"`);
    }
    throw new EventLogError("not_canonical", "Cannot parse log line: not RFC 8785 canonical JSON");
  }
  const expected = hashOf(sha256, unhashedText(bodyJson, r.kind, r.prev, r.seq, r.task, r.ts));
  if (expected !== r.hash) {
    throw new EventLogError("bad_hash", `Cannot parse log line: hash mismatch at seq ${r.seq}`);
  }
  return r;
}
