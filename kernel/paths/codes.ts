/**
 * The stable rejection codes of {@link confinePath}.
 *
 * @module
 */

/**
 * Every code `confinePath` can return, as explicit stable strings. Checks run
 * left to right over the path; the first failure is reported.
 *
 * @example
 * ```ts
 * import { PATH_REJECTION_CODES } from "./codes.ts";
 * if (PATH_REJECTION_CODES.dotGit !== "dot_git") throw new Error("unexpected");
 * ```
 */
export const PATH_REJECTION_CODES = {
  /** The path is the empty string. */
  empty: "empty",
  /** A NUL byte. */
  nulByte: "nul_byte",
  /** A C0/C1 control character, DEL, U+2028 or U+2029. */
  controlChar: "control_char",
  /** Bytes that are not strict UTF-8 (or a lone surrogate in a string). */
  invalidUtf8: "invalid_utf8",
  /** Starts with `/` (or `\`). */
  absolute: "absolute",
  /** Starts with `-` or `!` (an option to a tool, or a negation in a pattern list). */
  optionLike: "option_like",
  /** Starts with a drive letter (`C:`). */
  driveLetter: "drive_letter",
  /** Starts with `\\` or `//` (UNC, `\\?\`). */
  uncPath: "unc_path",
  /** Contains a backslash. */
  backslash: "backslash",
  /** Contains `:` (NTFS alternate streams, drive-relative names). */
  colon: "colon",
  /** An empty component (`a//b`). */
  emptyComponent: "empty_component",
  /** A `.` component. */
  dotComponent: "dot_component",
  /** A `..` component. */
  dotdotComponent: "dotdot_component",
  /** Ends with `/`. */
  trailingSlash: "trailing_slash",
  /** A component ending in `.` or a space (Windows strips them). */
  trailingDotOrSpace: "trailing_dot_or_space",
  /** An 8.3 short name such as `GITHUB~1` or `foo~2.txt`. */
  shortName: "short_name",
  /** A Windows device name (`CON`, `nul.txt`, `COM¹`, `CONIN$`, ...). */
  deviceName: "device_name",
  /** `.git` in any case or spelling (`.GIT`, `.git.`, `git~1`, `.g\u200cit`). */
  dotGit: "dot_git",
  /** Longer than 4096 UTF-8 bytes. */
  pathTooLong: "path_too_long",
  /** A component longer than 255 UTF-8 bytes. */
  componentTooLong: "component_too_long",
} as const;

/** One of the {@link PATH_REJECTION_CODES} values. */
export type PathRejectionCode = typeof PATH_REJECTION_CODES[keyof typeof PATH_REJECTION_CODES];

/** Longest accepted path, in UTF-8 bytes. */
export const MAX_PATH_BYTES = 4096;
/** Longest accepted component, in UTF-8 bytes. */
export const MAX_COMPONENT_BYTES = 255;
