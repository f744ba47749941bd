import { z } from "zod";
import type { BoundarySchema } from "../schema/mod.ts";
import type { Sha256 } from "../../kernel/digest.ts";
import * as nodeCrypto from "node:crypto";
import { toHex } from "../../kernel/digest.ts";
import { nodeSha256 } from "../digest/sha256.ts";
import { canonicalJson } from "../canonical_json/canonical_json.ts";
import { KIND, TASK } from "./fields.ts";
import { EventLogError } from "./errors.ts";

/** Record format version written into every line. */
export const LOG_RECORD_VERSION = 1 as const;

/** Domain-separation prefix hashed before the canonical record bytes. */
export const LOG_HASH_DOMAIN = "vouch.log.v1\n";

/** The `prev` of the first record, and the head hash of an empty log. */
export const GENESIS_HASH: string = "0".repeat(64);

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

/**
 * zod schema of a parsed record line: the field types. The line verifier checks
 * a superset of this by hand on the hot path (no extra keys, id patterns, 64-hex
 * `prev`) and runs this schema only to word the error of a line that fails; a
 * property test pins that every line passing the hand checks passes this schema.
 */
export const LogRecordSchema: BoundarySchema<LogRecord> = z.lazy(() =>
  z.object({
    v: z.literal(1),
    seq: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
    ts: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    task: z.string().nullable(),
    kind: z.string(),
    // The body is checked for JSON-ness by canonical re-serialisation below.
    body: z.custom<JsonValue>((v) => v !== undefined),
    prev: z.string(),
    hash: z.string(),
  })
);

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

/** The stored line: `unhashed` with `"hash"` in its JCS place, right after `"body"`. */
function lineText(bodyJson: string, hash: string, unhashed: string): string {
  const body = `{"body":${bodyJson},`;
  return `${body}"hash":"${hash}",${unhashed.slice(body.length)}`;
}

// node:crypto's one-shot `hash()` (hex straight from a string) measured about
// twice as fast as createHash + encode; used only behind `nodeSha256`.
const oneShot = (nodeCrypto as { hash?: (alg: string, data: string) => string }).hash;

function hashOf(sha256: Sha256, unhashed: string): string {
  if (sha256 === nodeSha256 && typeof oneShot === "function") {
    return oneShot("sha256", LOG_HASH_DOMAIN + unhashed);
  }
  return toHex(sha256.digest(encoder.encode(LOG_HASH_DOMAIN + unhashed)));
}

/** Not plain JSON (or keys a sorted copy could not keep in order): use canonicalize. */
const NOT_PLAIN = 0;
/** Plain JSON with some object's keys out of RFC 8785 order (or a -0, or a null prototype). */
const UNSORTED = 1;
/** Plain JSON with every object's keys already in RFC 8785 order. */
const SORTED = 2;

function plainJson(v: unknown): number {
  if (v === null) return SORTED;
  switch (typeof v) {
    case "string":
    case "boolean":
      return SORTED;
    case "number":
      // -0 reads back as 0: copy, so the record equals what verification reads
      if (!Number.isFinite(v)) return NOT_PLAIN;
      return v === 0 && 1 / v < 0 ? UNSORTED : SORTED;
    case "object": {
      let result = SORTED;
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          const r = plainJson(v[i]);
          if (r < result) result = r;
          if (r === NOT_PLAIN) return NOT_PLAIN;
        }
        return result;
      }
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
      const keys = Object.keys(v);
      // a null-prototype object is copied into a plain one, as it reads back
      let sorted = proto !== null;
      // A fresh object enumerates integer-like keys first, so a sorted copy of
      // an unsorted object with such keys would not be sorted; and assigning
      // `__proto__` sets the prototype in runtimes that keep that accessor (Deno
      // does not): such bodies go to canonicalize.
      let copyable = true;
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i]!;
        if (i > 0 && !(keys[i - 1]! < k)) sorted = false;
        const c = k.charCodeAt(0);
        if (c >= 0x30 && c <= 0x39) copyable = false;
        else if (k === "__proto__") return NOT_PLAIN;
        const r = plainJson((v as Record<string, unknown>)[k]);
        if (r < result) result = r;
        if (r === NOT_PLAIN) return NOT_PLAIN;
      }
      if (!sorted) return copyable ? UNSORTED : NOT_PLAIN;
      return result;
    }
    default:
      return NOT_PLAIN;
  }
}

/** A deep copy of plain JSON with every object's keys inserted in sorted order. */
function sortedCopy(v: unknown): JsonValue {
  if (typeof v !== "object" || v === null) return v === 0 ? 0 : v as JsonValue; // -0 -> 0
  if (Array.isArray(v)) return v.map(sortedCopy);
  const out: Record<string, JsonValue> = {};
  // default sort = UTF-16 code unit order, the order RFC 8785 (and canonicalize) uses
  for (const k of Object.keys(v).sort()) out[k] = sortedCopy((v as Record<string, unknown>)[k]);
  return out;
}

/**
 * The canonical text of a body and the value a record keeps: the body itself
 * when it is plain JSON in canonical key order, else a sorted copy or the
 * JSON round trip. Throws when the body has no RFC 8785 form.
 */
function canonicalForm(body: unknown): { json: string; plain: boolean; value: JsonValue } {
  let shape = NOT_PLAIN;
  try {
    shape = plainJson(body);
  } catch {
    shape = NOT_PLAIN; // e.g. too deep for the walker: let canonicalize decide
  }
  if (shape === SORTED) {
    const json = JSON.stringify(body);
    if (!json.includes("\\u")) return { json, plain: true, value: body as JsonValue };
  } else if (shape === UNSORTED) {
    const value = sortedCopy(body);
    const json = JSON.stringify(value);
    if (!json.includes("\\u")) return { json, plain: false, value };
  }
  const json = canonicalJson(body);
  return { json, plain: false, value: JSON.parse(json) as JsonValue };
}

/**
 * RFC 8785 canonical JSON of a body. Fast paths: for plain JSON (plain objects,
 * arrays, finite numbers, strings, booleans, null) whose object keys are in
 * RFC 8785 order (UTF-16 code-unit order), `JSON.stringify` produces exactly the
 * canonical form (same number and string serialisation, no whitespace); when
 * keys are out of order, `JSON.stringify` of a copy with keys inserted in
 * sorted order does (unless a key is integer-like or `__proto__`, which a
 * fresh object cannot keep in that order). Either way only when it wrote no
 * `\u` escape (a control character, or a lone surrogate, which RFC 8785
 * forbids). Anything else goes through `canonicalize`, which throws for lone
 * surrogates. Property tests pin the equivalence. `plain` says the body is
 * already canonical as given.
 *
 * @example
 * ```ts
 * import { canonicalBody } from "./record.ts";
 * if (canonicalBody({ b: 1, a: [true] }).json !== '{"a":[true],"b":1}') throw new Error();
 * ```
 */
export function canonicalBody(body: unknown): { json: string; plain: boolean } {
  const { json, plain } = canonicalForm(body);
  return { json, plain };
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
  let value: JsonValue;
  try {
    ({ json: bodyJson, value } = canonicalForm(input.body));
  } catch (cause) {
    throw new EventLogError("invalid_record", "Cannot frame record: body is not JSON", { cause });
  }
  const seq = head.seq + 1;
  const unhashed = unhashedText(bodyJson, input.kind, head.hash, seq, task, ts);
  const hash = hashOf(sha256, unhashed);
  const record: LogRecord = {
    v: 1,
    seq,
    ts,
    task,
    kind: input.kind,
    // Plain JSON bodies in canonical key order are kept as given (callers must
    // not mutate them after appending); anything else is replaced by a copy.
    body: value,
    prev: head.hash,
    hash,
  };
  return { record, line: lineText(bodyJson, hash, unhashed) };
}
