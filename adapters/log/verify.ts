import type { Sha256 } from "../../kernel/digest.ts";
import { nodeSha256 } from "../digest/sha256.ts";
import { EventLogError, type LogIssue } from "./errors.ts";
import { GENESIS_HASH, type LogHead, type LogRecord, parseRecordLine } from "./record.ts";

/** Options for {@linkcode verifyLogBytes}. */
export interface VerifyLogOptions {
  /** Digest implementation. @default nodeSha256 */
  readonly sha256?: Sha256;
  /** Keep the parsed records in the result. @default true */
  readonly keepRecords?: boolean;
  /** A known head the log must contain (seq and hash must match that record). */
  readonly expectHead?: LogHead;
  /** Called with each verified record, in order (e.g. to index without keeping all). */
  readonly onRecord?: (record: LogRecord) => void;
}

/** Result of verifying a log file's bytes. */
export type LogVerification =
  | {
    /** Every line verified and the file ends with a newline (or is empty). */
    readonly status: "ok";
    readonly records: readonly LogRecord[];
    readonly head: LogHead;
    readonly bytes: number;
  }
  | {
    /** Every complete line verified; the bytes after the last newline are a torn write. */
    readonly status: "torn";
    readonly records: readonly LogRecord[];
    readonly head: LogHead;
    /** Length of the valid prefix (up to and including the last newline). */
    readonly validBytes: number;
    /** Number of bytes after it. */
    readonly tornBytes: number;
  }
  | {
    /** A complete line failed verification. */
    readonly status: "tampered";
    /** The verified records before the bad line. */
    readonly records: readonly LogRecord[];
    /** Head of the verified prefix. */
    readonly head: LogHead;
    /** The first bad line. */
    readonly issue: LogIssue;
  };

const fatalDecoder = new TextDecoder("utf-8", { fatal: true });

function decodeLines(bytes: Uint8Array, end: number): (string | null)[] {
  // Fast path: decode everything at once; fall back per line to locate bad UTF-8.
  try {
    const text = fatalDecoder.decode(bytes.subarray(0, end));
    const lines = text.split("\n");
    lines.pop(); // the empty string after the final newline
    return lines;
  } catch {
    const out: (string | null)[] = [];
    let start = 0;
    for (let i = 0; i < end; i++) {
      if (bytes[i] === 0x0a) {
        try {
          out.push(fatalDecoder.decode(bytes.subarray(start, i)));
        } catch {
          out.push(null);
        }
        start = i + 1;
      }
    }
    return out;
  }
}

function seqHint(line: string | null): number | null {
  if (line === null) return null;
  const m = /"seq":(\d{1,15})[,}]/.exec(line);
  return m ? Number(m[1]) : null;
}

/**
 * Verifies a whole log: every line parses as a canonical record with a correct
 * hash, `seq` increases by exactly one from 1, and each `prev` is the hash of the
 * record before. Never throws on bad input: the result says `ok`, `torn` or
 * `tampered` (with the first bad line and a reason code).
 *
 * @example
 * ```ts
 * import { verifyLogBytes } from "./verify.ts";
 * import { frameRecord, GENESIS_HASH } from "./record.ts";
 * const a = frameRecord({ seq: 0, hash: GENESIS_HASH }, { kind: "demo", body: 1 }, 1);
 * const b = frameRecord(a.record, { kind: "demo", body: 2 }, 2);
 * const bytes = new TextEncoder().encode(a.line + "\n" + b.line + "\n");
 * if (verifyLogBytes(bytes).status !== "ok") throw new Error();
 * if (verifyLogBytes(bytes.subarray(0, bytes.length - 1)).status !== "torn") throw new Error();
 * ```
 */
export function verifyLogBytes(bytes: Uint8Array, options: VerifyLogOptions = {}): LogVerification {
  const sha256 = options.sha256 ?? nodeSha256;
  const keep = options.keepRecords ?? true;
  const lastNewline = bytes.lastIndexOf(0x0a);
  const end = lastNewline + 1;
  const lines = decodeLines(bytes, end);
  const records: LogRecord[] = [];
  let head: LogHead = { seq: 0, hash: GENESIS_HASH };
  const fail = (issue: LogIssue): LogVerification => ({
    status: "tampered",
    records,
    head,
    issue,
  });
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const lineNo = i + 1;
    if (line === null) {
      return fail({ reason: "not_json", line: lineNo, seq: null, detail: "invalid UTF-8" });
    }
    let record: LogRecord;
    try {
      record = parseRecordLine(line, sha256);
    } catch (error) {
      if (error instanceof EventLogError && error.code !== "io") {
        return fail({
          reason: error.code as LogIssue["reason"],
          line: lineNo,
          seq: seqHint(line),
          detail: error.message,
        });
      }
      throw error;
    }
    if (record.seq !== head.seq + 1) {
      return fail({
        reason: "seq_gap",
        line: lineNo,
        seq: record.seq,
        detail: `expected seq ${head.seq + 1}, found ${record.seq}`,
      });
    }
    if (record.prev !== head.hash) {
      return fail({
        reason: "broken_link",
        line: lineNo,
        seq: record.seq,
        detail: `prev does not match the hash of seq ${head.seq}`,
      });
    }
    head = { seq: record.seq, hash: record.hash };
    options.onRecord?.(record);
    if (keep) records.push(record);
    else if (options.expectHead && record.seq === options.expectHead.seq) records.push(record);
  }
  if (options.expectHead) {
    const want = options.expectHead;
    const found = want.seq === 0
      ? { seq: 0, hash: GENESIS_HASH }
      : records.find((r) => r.seq === want.seq);
    if (!found || found.hash !== want.hash) {
      return fail({
        reason: "head_mismatch",
        line: want.seq,
        seq: want.seq,
        detail: found
          ? `record ${want.seq} has hash ${found.hash}, expected ${want.hash}`
          : `log ends at seq ${head.seq}, expected a record ${want.seq} (truncated?)`,
      });
    }
    if (!keep) records.length = 0;
  }
  if (end < bytes.length) {
    return {
      status: "torn",
      records,
      head,
      validBytes: end,
      tornBytes: bytes.length - end,
    };
  }
  return { status: "ok", records, head, bytes: bytes.length };
}
