/**
 * The strict git diff parser: bytes in, a typed {@link GitDiff} out, or a
 * {@link DiffParseError} with a stable code and line. Owns diff grammar only;
 * it never decides whether a path is allowed (that is `kernel/paths` and
 * `kernel/scope`), never applies a patch and never does I/O.
 *
 * @module
 */
export * from "./types.ts";
export * from "./error.ts";
export * from "./scan.ts";
export * from "./parse.ts";
export * from "./raw.ts";
export * from "./changed_paths.ts";
