/**
 * Bundle evaluation I/O: strict JSON reading (no duplicate or prototype
 * keys), zod schemas with JSON Schema export, lstat-checked streaming reads
 * under verifier-owned caps, the in-process evaluation and the
 * permission-restricted child process the CLI uses. It must never execute or
 * apply anything from a bundle, and never decide a verdict itself: that is
 * `kernel/bundle`.
 *
 * @module
 */
export * from "./strict_json.ts";
export * from "./schemas.ts";
export * from "./files.ts";
export * from "./evaluate.ts";
export * from "./isolated.ts";
