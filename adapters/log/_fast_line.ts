// The whole-log verifier's byte-level fast path (internal to the log): a line
// it accepts is never decoded, and its body is parsed only if a caller wants
// the record. See {@linkcode fastLine}.
import type { Sha256 } from "../../kernel/digest.ts";
import { canonicalValueEnd } from "./_canonical_bytes.ts";
import { hasAt, lineDigest, matchTail, PREV_KEY, recordFromTail, type Tail } from "./line_check.ts";
import type { LogRecord } from "./record.ts";

/** A line accepted by {@linkcode fastLine}: its fields, as byte offsets. */
export interface FastLine extends Tail {
  /** Byte offset of the `,"hash":"` member (the end of the body). */
  member: number;
  /** The record's hash (the line's own, which its digest matched). */
  hash: string;
}

const BODY_KEY = new TextEncoder().encode('{"body":');

/** Whether the 64 bytes at `pos` spell `hex` (64 characters). */
function equalsAt(bytes: Uint8Array, pos: number, hex: string): boolean {
  let diff = 0;
  for (let i = 0; i < 64; i++) diff |= bytes[pos + i]! ^ hex.charCodeAt(i);
  return diff === 0;
}

/**
 * The byte-level fast path of the whole-log verifier: whether the line
 * `bytes[start, end)` is a record the general path ({@linkcode checkRecordLine}
 * plus the chain checks) accepts as record `seq` after a record with hash
 * `prev`, decided without decoding the line or parsing its body. It must be
 * `{"body":` + a value accepted by {@linkcode canonicalValueEnd} (valid UTF-8
 * and canonical JSON) + a tail accepted by {@linkcode matchTail}, with that
 * `seq` and `prev` and a matching hash. Null means "not proven": the caller
 * then runs the general path, which decides the line and words its error.
 */
export function fastLine(
  bytes: Uint8Array,
  start: number,
  end: number,
  sha256: Sha256,
  seq: number,
  prev: string,
): FastLine | null {
  if (end - start < 9 || !hasAt(bytes, start, BODY_KEY)) return null;
  const member = canonicalValueEnd(bytes, start + BODY_KEY.length, end);
  if (member < 0) return null;
  const t = matchTail(bytes, member, end);
  if (t === null || t.seq !== seq || !equalsAt(bytes, t.kindEnd + PREV_KEY.length, prev)) {
    return null;
  }
  const hash = lineDigest(bytes, start, member, end, sha256);
  if (hash.length !== 64 || !equalsAt(bytes, member + 9, hash)) return null;
  return {
    kindEnd: t.kindEnd,
    seq: t.seq,
    taskStart: t.taskStart,
    taskEnd: t.taskEnd,
    ts: t.ts,
    member,
    hash,
  };
}

/**
 * The record of a line accepted by {@linkcode fastLine}: `line` is the UTF-8
 * decoding of `bytes[start, end)`. Equal to what {@linkcode checkRecordLine}
 * returns for it (the body parsed, the other fields cut from the line).
 */
export function fastLineRecord(line: string, f: FastLine, end: number): LogRecord {
  // Everything from the hash member on is ASCII: char offset = byte offset - shift.
  const shift = end - line.length;
  const member = f.member - shift;
  return recordFromTail(line, JSON.parse(line.slice(BODY_KEY.length, member)), member, f, shift);
}
