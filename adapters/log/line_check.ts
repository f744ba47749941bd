import * as nodeCrypto from "node:crypto";
import type { Sha256 } from "../../kernel/digest.ts";
import { toHex } from "../../kernel/digest.ts";
import { nodeSha256 } from "../digest/sha256.ts";
import { canonicalJson } from "../canonical_json/canonical_json.ts";
import { findDuplicateKey } from "./duplicate_keys.ts";
import { EventLogError } from "./errors.ts";
import { HASH_MEMBER_LENGTH, KIND, RECORD_KEYS, TASK } from "./fields.ts";
import { LOG_HASH_DOMAIN, type LogRecord, LogRecordSchema } from "./record.ts";

// The one per-line verifier behind `parseRecordLine` and `verifyLogBytes` (and so
// behind `EventLog.open`, `readLogFile` and `vouch inspect`). Internal: not
// re-exported by mod.ts.

const DOMAIN = new TextEncoder().encode(LOG_HASH_DOMAIN);
let scratch = new Uint8Array(4096);
scratch.set(DOMAIN);

/** 64 lower-case hex digits; a loop measured cheaper than the regex per line. */
function isHex64(s: string): boolean {
  if (s.length !== 64) return false;
  for (let i = 0; i < 64; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}

/** Hand checks of the parsed value: a superset of {@linkcode LogRecordSchema}. */
function shapeProblem(p: unknown): string | null {
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
  if (typeof prev !== "string" || !isHex64(prev)) return "prev: not 64 lower-case hex";
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

/**
 * Checks one line: `line` is the exact UTF-8 decoding of `bytes[start, end)`
 * (no newline). Valid JSON, schema, canonical (hence duplicate-free), correct
 * hash. The hash is taken over the line's own bytes with the `,"hash":"<hex>"`
 * member cut out: in canonical JSON the record without `hash` is exactly that.
 * Throws only `EventLogError` (`not_json`, `schema`, `duplicate_key`,
 * `not_canonical`, `bad_hash`).
 */
export function checkRecordLine(
  line: string,
  bytes: Uint8Array,
  start: number,
  end: number,
  sha256: Sha256,
): LogRecord {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new EventLogError("not_json", "Cannot parse log line: not JSON");
  }
  const problem = shapeProblem(parsed);
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
  // A hash that is not 64 hex digits can never equal the digest; this also
  // fixes the length of the member cut out below.
  if (!isHex64(r.hash)) {
    throw new EventLogError("bad_hash", `Cannot parse log line: hash mismatch at seq ${r.seq}`);
  }
  // The line is canonical, so it reads `{"body":...,"hash":"<hex>","kind":...`
  // and everything after the hash member (kind, prev, seq, task, ts, v) is ASCII
  // without quotes inside values: its char and byte lengths agree.
  const member = line.lastIndexOf(',"hash":"');
  const cut = end - (line.length - member);
  const head = cut - start;
  const tail = end - cut - HASH_MEMBER_LENGTH;
  const size = DOMAIN.length + head + tail;
  if (size > scratch.length) {
    scratch = new Uint8Array(Math.max(size, scratch.length * 2));
    scratch.set(DOMAIN);
  }
  scratch.set(bytes.subarray(start, cut), DOMAIN.length);
  scratch.set(bytes.subarray(cut + HASH_MEMBER_LENGTH, end), DOMAIN.length + head);
  if (hashHex(sha256, scratch.subarray(0, size)) !== r.hash) {
    throw new EventLogError("bad_hash", `Cannot parse log line: hash mismatch at seq ${r.seq}`);
  }
  return r;
}
