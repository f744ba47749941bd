/**
 * Tree removal that never blocks a verdict: a task hands its trees' removal
 * over here once nothing runs in them, the verdict is reported, and whoever
 * owns the process (the CLI's `main`, an embedder before it deletes the
 * repository) waits for {@linkcode settleDeferredRemovals}. A removal that
 * never finishes (the process is killed) leaves a container with a dead
 * owner, which `vouch gc` removes.
 *
 * It owns only the bookkeeping of pending removals; it never decides what to
 * remove and never swallows a removal silently past `settle`.
 *
 * @module
 */

const pending = new Set<Promise<void>>();

/**
 * Lets `removal` finish after the caller has reported; errors are dropped
 * (removal is idempotent and `vouch gc` is the backstop).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { deferRemoval, settleDeferredRemovals } from "./deferred_removal.ts";
 * let done = false;
 * deferRemoval(new Promise<void>((resolve) => setTimeout(() => { done = true; resolve(); }, 5)));
 * deferRemoval(Promise.reject(new Error("already gone")));
 * await settleDeferredRemovals();
 * equal(done, true);
 * ```
 */
export function deferRemoval(removal: Promise<unknown>): void {
  const p: Promise<void> = removal.then(() => {}, () => {}).finally(() => pending.delete(p));
  pending.add(p);
}

/**
 * Waits until every deferred removal (including ones deferred meanwhile) is done.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { deferRemoval, settleDeferredRemovals } from "./deferred_removal.ts";
 * const order: string[] = [];
 * deferRemoval(new Promise<void>((resolve) => setTimeout(() => {
 *   // deferred while another removal was pending: settle waits for it too
 *   deferRemoval(Promise.resolve().then(() => void order.push("second")));
 *   order.push("first");
 *   resolve();
 * }, 5)));
 * await settleDeferredRemovals();
 * equal(order.join(","), "first,second");
 * ```
 */
export async function settleDeferredRemovals(): Promise<void> {
  while (pending.size > 0) await Promise.all([...pending]);
}

/**
 * Waits for the deferred removals at most `maxMs`; resolves `true` when all
 * are done, `false` when some still run (the caller may hand them to a
 * detached removal and leave: the verdict's prompt is not held by `rm`).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { deferRemoval, settleDeferredRemovalsWithin } from "./deferred_removal.ts";
 * equal(await settleDeferredRemovalsWithin(1000), true); // nothing pending
 * let finish = () => {};
 * deferRemoval(new Promise<void>((resolve) => finish = resolve));
 * equal(await settleDeferredRemovalsWithin(10), false);
 * finish();
 * equal(await settleDeferredRemovalsWithin(1000), true);
 * ```
 */
export async function settleDeferredRemovalsWithin(maxMs: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), maxMs));
  try {
    return await Promise.race([settleDeferredRemovals().then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}
