import { VouchError } from "../../kernel/errors/mod.ts";
/**
 * Why a log line or a log file failed verification. These are the stable
 * reason codes `vouch inspect` reports for the first bad line.
 */
export type LogIssueReason =
  | "not_json"
  | "not_canonical"
  | "duplicate_key"
  | "schema"
  | "bad_hash"
  | "broken_link"
  | "seq_gap"
  | "head_mismatch";

/** Every stable code an {@linkcode EventLogError} can carry. */
export type EventLogErrorCode =
  | LogIssueReason
  /** The file failed verification; `issue` names the first bad line. */
  | "tampered"
  /** The file ends in a torn write and recovery was not allowed. */
  | "torn"
  /** Another writer holds the lock file. */
  | "locked"
  /** A record to append is not valid (kind, task, timestamp or non-JSON body). */
  | "invalid_record"
  /** The log was closed, or an earlier write failed and the writer stopped. */
  | "closed"
  /** An operating-system error while reading or writing. */
  | "io";

/** The first bad line found while verifying a log. */
export interface LogIssue {
  /** The reason code. */
  readonly reason: LogIssueReason;
  /** 1-based line number in the file. */
  readonly line: number;
  /** The sequence number the bad line claimed or should have had (null if unreadable). */
  readonly seq: number | null;
  /** Human-readable detail. */
  readonly detail: string;
}

/**
 * The one error type of the event log boundary. `code` is stable; `issue` is set
 * for verification failures.
 *
 * @example
 * ```ts
 * import { EventLogError } from "./errors.ts";
 * const e = new EventLogError("locked", "Cannot open log: locked by pid 1");
 * if (e.code !== "locked") throw new Error();
 * ```
 */
export class EventLogError extends VouchError<EventLogErrorCode> {
  /** The first bad line, for verification failures. */
  readonly issue: LogIssue | undefined;
  /** An error with its stable code, message and (for verification failures) first bad line. */
  constructor(
    code: EventLogErrorCode,
    message: string,
    options?: ErrorOptions & { issue?: LogIssue },
  ) {
    super(code, message, options);
    this.issue = options?.issue;
  }
}
