import * as nodeCrypto from "node:crypto";
import type { Sha256 } from "../../kernel/digest.ts";
import { toHex } from "../../kernel/digest.ts";
import { nodeSha256 } from "../digest/sha256.ts";
import { canonicalJson } from "../canonical_json/canonical_json.ts";
import { findDuplicateKey } from "./duplicate_keys.ts";
import { EventLogError } from "./errors.ts";
import { HASH_MEMBER_LENGTH, KIND, RECORD_KEYS, TASK } from "./fields.ts";
import { type JsonValue, LOG_HASH_DOMAIN, type LogRecord, LogRecordSchema } from "./record.ts";

// The one per-line verifier behind `parseRecordLine` and `verifyLogBytes` (and so
// behind `EventLog.open`, `readLogFile` and `vouch inspect`). Internal: not
// re-exported by mod.ts.

const DOMAIN = new TextEncoder().encode(LOG_HASH_DOMAIN);
let scratch = new Uint8Array(4096);
scratch.set(DOMAIN);

/** 64 lower-case hex digits (the general path's check of `prev`). */
function isHex64(s: string): boolean {
  if (s.length !== 64) return false;
  for (let i = 0; i < 64; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}

/**
 * Hand checks of the parsed value: a superset of {@linkcode LogRecordSchema}.
 * `prev` equal to the expected previous hash (always 64 hex) skips its pattern.
 */
function shapeProblem(p: unknown, expectedPrev: string | null): string | null {
  if (typeof p !== "object" || p === null || Array.isArray(p)) return "(root): not an object";
  let keys = 0;
  for (const _ in p) keys++; // for-in measured ~10x cheaper than Object.keys here
  const o = p as Record<string, unknown>;
  if (o.v !== 1) return "v: not 1";
  const seq = o.seq, ts = o.ts, task = o.task, kind = o.kind, prev = o.prev;
  if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 1) return "seq: bad";
  if (typeof ts !== "number" || !Number.isSafeInteger(ts) || ts < 0) return "ts: bad";
  if (o.body === undefined) return "body: missing";
  if (typeof o.hash !== "string") return "hash: not a string";
  if (typeof prev !== "string" || (prev !== expectedPrev && !isHex64(prev))) {
    return "prev: not 64 lower-case hex";
  }
  if (typeof kind !== "string" || !KIND.test(kind)) return "kind: bad record kind";
  if (task !== null && (typeof task !== "string" || !TASK.test(task))) return "task: bad task id";
  // All eight names are present (body is never undefined in parsed JSON), so
  // eight keys means no others.
  if (keys !== 8) return "unexpected keys";
  return null;
}

/** Whether every object in a parsed JSON value lists its keys in strictly increasing order. */
function keysSorted(v: unknown): boolean {
  if (typeof v !== "object" || v === null) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!keysSorted(v[i])) return false;
    return true;
  }
  let prev: string | null = null;
  for (const k in v) {
    if (prev !== null && !(prev < k)) return false;
    prev = k;
    if (!keysSorted((v as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/**
 * Whether `line` is the RFC 8785 canonical form of `p` (its own `JSON.parse`).
 *
 * Fast path: `JSON.stringify(p) === line` with every object's keys (top level
 * included) in strictly increasing UTF-16 order and no `\u` escape in the line.
 * Then `canonicalize(p)` is that same text: it sorts keys with the default
 * (UTF-16) comparator, which is the identity here, and serialises numbers and
 * well-formed strings with `JSON.stringify`; lone surrogates (which it rejects)
 * can only reach `p` through a `\u` escape. Equality with `JSON.stringify(p)`
 * also proves the line has no duplicate keys (a JS object cannot print one).
 * Anything else (integer-like keys, which JS enumerates first; control
 * characters; non-canonical lines) is decided by `canonicalize` itself.
 */
function isCanonicalLine(line: string, p: object): boolean {
  let fast = line.indexOf("\\u") < 0;
  if (fast) {
    let i = 0;
    for (const k in p) {
      if (k !== RECORD_KEYS[i++]) {
        fast = false;
        break;
      }
    }
  }
  if (fast) {
    try {
      if (JSON.stringify(p) !== line) fast = false;
      else if (keysSorted((p as { body: unknown }).body)) return true;
    } catch {
      // too deep for the walker: canonicalize decides
    }
  }
  try {
    return canonicalJson(p) === line;
  } catch {
    return false; // no canonical form (e.g. a lone surrogate, or too deep)
  }
}

// node:crypto's one-shot `hash()` (Node 21.7+, Deno) measured ~15% cheaper than
// createHash/update/digest per 460-byte line; used only behind `nodeSha256`.
const oneShot = (nodeCrypto as {
  hash?: (algorithm: string, data: Uint8Array, encoding: "hex") => string;
}).hash;

function hashHex(sha256: Sha256, bytes: Uint8Array): string {
  if (sha256 === nodeSha256) {
    return typeof oneShot === "function"
      ? oneShot("sha256", bytes, "hex")
      : nodeCrypto.createHash("sha256").update(bytes).digest("hex");
  }
  return toHex(sha256.digest(bytes));
}

const ascii = (text: string) => new TextEncoder().encode(text);
const HASH_KEY = ascii(',"hash":"');
const KIND_KEY = ascii('","kind":"');
export const PREV_KEY: Uint8Array = ascii('","prev":"');
const SEQ_KEY = ascii('","seq":');
const TASK_KEY = ascii(',"task":');
const TS_KEY = ascii(',"ts":');
const V_END = ascii(',"v":1}');
const NULL = ascii("null");

export function hasAt(bytes: Uint8Array, pos: number, lit: Uint8Array): boolean {
  for (let i = 0; i < lit.length; i++) if (bytes[pos + i] !== lit[i]) return false;
  return true;
}
/** 1 for the bytes of lower-case hex digits (a table: this runs for 128 bytes a line). */
const HEX_TABLE = new Uint8Array(256);
for (const c of "0123456789abcdef") HEX_TABLE[c.charCodeAt(0)] = 1;
function isHexAt(bytes: Uint8Array, pos: number): boolean {
  let ok = 1;
  for (let i = pos; i < pos + 64; i++) ok &= HEX_TABLE[bytes[i]!]!;
  return ok === 1;
}
function isLower(c: number): boolean {
  return c >= 0x61 && c <= 0x7a;
}
function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}
/** `[a-z0-9_.-]`: a kind character after the first. */
function isKindByte(c: number): boolean {
  return isLower(c) || isDigit(c) || c === 0x5f || c === 0x2e || c === 0x2d;
}
/** `[A-Za-z0-9_.:-]`: a task character after the first. */
function isTaskByte(c: number): boolean {
  return isKindByte(c) || (c >= 0x41 && c <= 0x5a) || c === 0x3a;
}
/** `[A-Za-z0-9]`. */
function isAlnum(c: number): boolean {
  return isLower(c) || isDigit(c) || (c >= 0x41 && c <= 0x5a);
}

/** Where the fields of a canonical tail are, as byte offsets. */
export interface Tail {
  kindEnd: number;
  seq: number;
  taskStart: number;
  taskEnd: number;
  ts: number;
}

/** Reads a canonical unsigned integer at `pos` (no sign, fraction, exponent or leading zero). */
function readInt(bytes: Uint8Array, pos: number, end: number): { value: number; end: number } {
  let i = pos;
  let value = 0;
  if (bytes[i] === 0x30) return { value: 0, end: i + 1 };
  while (i < end && i - pos < 16 && isDigit(bytes[i]!)) value = value * 10 + (bytes[i++]! - 0x30);
  return { value: i === pos ? -1 : value, end: i };
}

/**
 * Matches the canonical tail of a line, from the hash member (at byte `pos`)
 * to `end`: every field but `body`, in RFC 8785 order and form, i.e.
 * `,"hash":"<64 hex>","kind":"<kind>","prev":"<64 hex>","seq":<int>,
 * "task":null|"<task>","ts":<int>,"v":1}` with the kind and task patterns and
 * safe integers written without sign, fraction, exponent or leading zero
 * (`seq` >= 1). Works on bytes: all of it is ASCII. Null if anything differs.
 */
export function matchTail(bytes: Uint8Array, pos: number, end: number): Tail | null {
  if (end - pos < 9 + 64 + 10 + 1 + 10 + 64 + 8 + 1 + 8 + 4 + 6 + 1 + 7) return null;
  if (!hasAt(bytes, pos, HASH_KEY) || !isHexAt(bytes, pos + 9)) return null;
  let i = pos + 9 + 64;
  if (!hasAt(bytes, i, KIND_KEY)) return null;
  i += KIND_KEY.length;
  const kindStart = i;
  if (!isLower(bytes[i]!)) return null;
  for (i++; i < end && i - kindStart < 64 && isKindByte(bytes[i]!); i++);
  const kindEnd = i;
  if (!hasAt(bytes, i, PREV_KEY) || !isHexAt(bytes, i + PREV_KEY.length)) return null;
  i += PREV_KEY.length + 64;
  if (!hasAt(bytes, i, SEQ_KEY)) return null;
  const seq = readInt(bytes, i + SEQ_KEY.length, end);
  if (seq.value < 1 || !Number.isSafeInteger(seq.value)) return null;
  i = seq.end;
  if (!hasAt(bytes, i, TASK_KEY)) return null;
  i += TASK_KEY.length;
  let taskStart = -1;
  let taskEnd = -1;
  if (hasAt(bytes, i, NULL)) i += NULL.length;
  else {
    if (bytes[i] !== 0x22 || !isAlnum(bytes[i + 1]!)) return null;
    taskStart = i + 1;
    for (i += 2; i < end && i - taskStart < 128 && isTaskByte(bytes[i]!); i++);
    taskEnd = i;
    if (bytes[i++] !== 0x22) return null;
  }
  if (!hasAt(bytes, i, TS_KEY)) return null;
  const ts = readInt(bytes, i + TS_KEY.length, end);
  if (ts.value < 0 || !Number.isSafeInteger(ts.value)) return null;
  i = ts.end;
  if (i + V_END.length !== end || !hasAt(bytes, i, V_END)) return null;
  return { kindEnd, seq: seq.value, taskStart, taskEnd, ts: ts.value };
}

/**
 * Fast path for a well-formed line, or null to take the general path. The line
 * must be `{"body":` + a body text + a tail accepted by {@linkcode matchTail}
 * (which proves every other field canonical and schema-valid), and the body
 * text must be the RFC 8785 form of its own `JSON.parse` (see
 * {@linkcode isCanonicalText}). Then the line is the canonical form of the
 * record: a JSON value text is self-delimiting, so `{"body":V,...}` parses to
 * exactly these eight members. Only the body is parsed; the general path
 * accepts the same lines and returns an equal record (pinned by property tests).
 */
function fastRecord(
  line: string,
  member: number,
  bytes: Uint8Array,
  end: number,
): LogRecord | null {
  if (member < 9 || !line.startsWith('{"body":')) return null;
  // Bytes after the member are ASCII if the tail matches: char offset = byte offset - shift.
  const cut = end - (line.length - member);
  const t = matchTail(bytes, cut, end);
  if (t === null) return null;
  const text = line.slice(8, member);
  let body: JsonValue;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isCanonicalText(text, body)) return null;
  return recordFromTail(line, body, member, t, end - line.length);
}

/**
 * The record of a line whose tail {@linkcode matchTail} accepted: `body` is
 * its parsed body, `member` the char offset of `,"hash":`, `shift` what to
 * subtract from the tail's byte offsets to get char offsets (the tail is
 * ASCII). Shared by the general fast path and `_fast_line.ts`.
 */
export function recordFromTail(
  line: string,
  body: JsonValue,
  member: number,
  t: Tail,
  shift: number,
): LogRecord {
  const hashAt = member + 9;
  const kindAt = hashAt + 64 + KIND_KEY.length;
  const prevAt = t.kindEnd - shift + PREV_KEY.length;
  return {
    body,
    hash: line.slice(hashAt, hashAt + 64),
    kind: line.slice(kindAt, t.kindEnd - shift),
    prev: line.slice(prevAt, prevAt + 64),
    seq: t.seq,
    task: t.taskStart < 0 ? null : line.slice(t.taskStart - shift, t.taskEnd - shift),
    ts: t.ts,
    v: 1,
  };
}

/** Whether `text` is the RFC 8785 form of `value`, its own `JSON.parse`. */
function isCanonicalText(text: string, value: unknown): boolean {
  if (text.indexOf("\\u") < 0) {
    try {
      if (JSON.stringify(value) === text && keysSorted(value)) return true;
    } catch {
      // too deep for the walker: canonicalize decides
    }
  }
  try {
    return canonicalJson(value) === text;
  } catch {
    return false;
  }
}

/** The general path: every reason code, worded. */
function generalRecord(line: string, expectedPrev: string | null): LogRecord {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new EventLogError("not_json", "Cannot parse log line: not JSON");
  }
  const problem = shapeProblem(parsed, expectedPrev);
  if (problem !== null) {
    // zod words the error when it sees one; the hand checks are stricter.
    const result = LogRecordSchema.safeParse(parsed);
    const first = result.success ? undefined : result.error.issues[0];
    const where = first ? `${first.path.join(".") || "(root)"}: ${first.message}` : problem;
    throw new EventLogError("schema", `Cannot parse log line: ${where}`);
  }
  const r = parsed as LogRecord;
  if (!isCanonicalLine(line, r)) {
    const dup = findDuplicateKey(line);
    if (dup !== null) {
      throw new EventLogError("duplicate_key", `Cannot parse log line: duplicate key "${dup}"`);
    }
    throw new EventLogError("not_canonical", "Cannot parse log line: not RFC 8785 canonical JSON");
  }
  return r;
}

/**
 * Checks one line: `line` is the exact UTF-8 decoding of `bytes[start, end)`
 * (no newline); `expectedPrev` is the previous record's hash when known. Valid
 * JSON, schema, canonical (hence duplicate-free), correct hash. The hash is
 * taken over the line's own bytes with the `,"hash":"<hex>"` member cut out: in
 * canonical JSON the record without `hash` is exactly that. Throws only
 * `EventLogError` (`not_json`, `schema`, `duplicate_key`, `not_canonical`,
 * `bad_hash`).
 */
export function checkRecordLine(
  line: string,
  bytes: Uint8Array,
  start: number,
  end: number,
  sha256: Sha256,
  expectedPrev: string | null,
): LogRecord {
  // In a canonical line nothing after the hash member can contain `"` inside a
  // value (kind, task and prev patterns), so this finds the member itself.
  const member = line.lastIndexOf(',"hash":"');
  const r = fastRecord(line, member, bytes, end) ?? generalRecord(line, expectedPrev);
  // The digest is always 64 hex digits, so a hash of another length can never
  // match; a 64-char one that is not hex fails the comparison below (the cut
  // is then misplaced, but stays within the line).
  if (r.hash.length !== 64) {
    throw new EventLogError("bad_hash", `Cannot parse log line: hash mismatch at seq ${r.seq}`);
  }
  // Everything after the hash member (kind, prev, seq, task, ts, v) is ASCII:
  // its char and byte lengths agree.
  const cut = end - (line.length - member);
  if (lineDigest(bytes, start, cut, end, sha256) !== r.hash) {
    throw new EventLogError("bad_hash", `Cannot parse log line: hash mismatch at seq ${r.seq}`);
  }
  return r;
}

/**
 * The hex digest of a line: the domain prefix, then the line's bytes
 * `[start, end)` without the hash member at `cut`.
 */
export function lineDigest(
  bytes: Uint8Array,
  start: number,
  cut: number,
  end: number,
  sha256: Sha256,
): string {
  const head = cut - start;
  const tail = end - cut - HASH_MEMBER_LENGTH;
  const size = DOMAIN.length + head + tail;
  if (size > scratch.length) {
    scratch = new Uint8Array(Math.max(size, scratch.length * 2));
    scratch.set(DOMAIN);
  }
  scratch.set(bytes.subarray(start, cut), DOMAIN.length);
  scratch.set(bytes.subarray(cut + HASH_MEMBER_LENGTH, end), DOMAIN.length + head);
  return hashHex(sha256, scratch.subarray(0, size));
}
