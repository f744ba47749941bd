/**
 * The hardened process runner: argv spawned directly (shell strings only as
 * exactly `sh -c`), stdin from `/dev/null`, a cleared environment plus an
 * allowlist that never carries secrets or code-injecting variables, its own
 * process group killed as a whole on timeout or cancellation, bounded
 * head+tail capture with streaming SHA-256. Must never pass an environment
 * value into a result (names only) and never decide a verdict.
 *
 * @module
 */
export * from "./capture.ts";
export * from "./env.ts";
export * from "./types.ts";
export * from "./run.ts";
