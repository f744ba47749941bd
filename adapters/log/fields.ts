/**
 * Field patterns shared by framing and verification (internal to the log).
 * Kind and task ids are plain ASCII without quotes or backslashes, which the
 * line verifier relies on to locate the `hash` member from the end of a line.
 */

/** A record kind. */
export const KIND: RegExp = /^[a-z][a-z0-9_.-]{0,63}$/;
/** A task id. */
export const TASK: RegExp = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;
/** The record's keys in RFC 8785 order. */
export const RECORD_KEYS: readonly string[] = [
  "body",
  "hash",
  "kind",
  "prev",
  "seq",
  "task",
  "ts",
  "v",
];
/** Length of `,"hash":"<64 hex>"`: what separates a line from its unhashed bytes. */
export const HASH_MEMBER_LENGTH = 74;
