/**
 * The one error type of the diff parser.
 *
 * @module
 */
import { VouchError } from "../errors/mod.ts";

/** Every stable code a {@link DiffParseError} can carry. */
export const DIFF_PARSE_ERROR_CODES = [
  "bad_diff_header",
  "bad_extended_header",
  "bad_mode",
  "bad_hunk_header",
  "hunk_count_mismatch",
  "hunk_without_changes",
  "unexpected_hunk",
  "unexpected_line",
  "missing_header",
  "missing_name",
  "name_mismatch",
  "bad_quoted_name",
  "bad_name",
  "bad_binary",
  "status_mismatch",
  "truncated",
  "budget_exceeded",
  "ed_script",
  "context_diff",
  "combined_diff",
  "no_diff",
] as const;

/**
 * Why a patch was refused:
 * - `bad_diff_header`: a `diff --git` line whose names cannot be split.
 * - `bad_extended_header`: a malformed, repeated or contradictory extended header.
 * - `bad_mode`: a mode that is not 100644, 100755, 120000, 160000 (or 040000/100664 legacy).
 * - `bad_hunk_header`: a malformed `@@` line, or numbers out of range.
 * - `hunk_count_mismatch`: the body disagrees with the header counts.
 * - `hunk_without_changes`: a hunk with neither `+` nor `-` lines.
 * - `unexpected_hunk`: a `@@` line outside any file.
 * - `unexpected_line`: a line that cannot appear where it is.
 * - `missing_header`: `---` without `+++`, or hunks without both.
 * - `missing_name`: a file whose name cannot be determined.
 * - `name_mismatch`: names in `diff --git`, `---`/`+++` and rename/copy lines disagree.
 * - `bad_quoted_name`: a quoted name with a bad escape or no closing quote.
 * - `bad_name`: a name with NUL or control bytes, or empty.
 * - `bad_binary`: a malformed `GIT binary patch` (bad base85, wrong lengths).
 * - `status_mismatch`: e.g. a new file with old lines, or `new file` plus `rename from`.
 * - `truncated`: the input ends inside a construct.
 * - `budget_exceeded`: more bytes, lines, files or hunks than allowed.
 * - `ed_script`: an ed-script (`1c`, `.`) where a unified hunk belongs.
 * - `context_diff`: a `*** ` / `***************` context diff (unsupported).
 * - `combined_diff`: `diff --cc` / `diff --combined` (merge) output (unsupported).
 * - `no_diff`: non-empty input that contains no file diff at all.
 */
export type DiffParseErrorCode = typeof DIFF_PARSE_ERROR_CODES[number];

/**
 * Thrown by `parseGitDiff` for any input it refuses. `line` is 1-based (0 when
 * the error is not tied to a line, e.g. the byte budget).
 *
 * @example
 * ```ts
 * import { DiffParseError } from "./error.ts";
 * const error = new DiffParseError("truncated", 3, "input ends inside a hunk");
 * if (error.code !== "truncated" || !error.message.startsWith("Cannot parse diff")) {
 *   throw new Error("unexpected");
 * }
 * ```
 */
export class DiffParseError extends VouchError<DiffParseErrorCode> {
  /** 1-based input line, or 0. */
  readonly line: number;

  /** Builds the error; the message reads "Cannot parse diff at line N: detail". */
  constructor(code: DiffParseErrorCode, line: number, detail: string) {
    super(code, `Cannot parse diff${line > 0 ? ` at line ${line}` : ""}: ${detail} (${code})`);
    this.line = line;
  }
}
