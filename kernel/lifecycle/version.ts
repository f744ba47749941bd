/**
 * The version of the lifecycle's semantics.
 *
 * @module
 */

/**
 * The version of the lifecycle semantics: the transition table, the events it
 * accepts and the actions it emits for them. The driver records it in the
 * log's `kernel.init` record, and replay compares recorded actions only when
 * the recorded version equals this one: a log written by another version is
 * reported as such, never as non-determinism. Bump it whenever a change makes
 * the same events produce different actions.
 *
 * History: `vouch.lifecycle/1` extracted a diff only after an `ok` backend;
 * `vouch.lifecycle/2` treats a backend's `error` report as a claim too.
 *
 * @example
 * ```ts
 * import { KERNEL_LIFECYCLE_VERSION } from "./version.ts";
 * if (!KERNEL_LIFECYCLE_VERSION.startsWith("vouch.lifecycle/")) throw new Error();
 * ```
 */
export const KERNEL_LIFECYCLE_VERSION = "vouch.lifecycle/2";
