/**
 * Check slots: at most N contracts' commands (setup and checks) run at once
 * across many verifications (`vouch batch --concurrency N`), while the other
 * verifications in flight prepare their trees (reset, `git apply`, scope)
 * meanwhile. It owns only the counting; it never decides what runs.
 *
 * @module
 */

/** A counting semaphore for check execution. */
export interface CheckSlots {
  /** Waits for a free slot; resolves to the function that gives it back (call it once). */
  acquire(): Promise<() => void>;
}

/**
 * Creates `n` check slots (at least one); waiters are served in order.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { createCheckSlots } from "./check_slots.ts";
 * const slots = createCheckSlots(1);
 * const order: string[] = [];
 * const first = await slots.acquire();
 * const second = slots.acquire().then((release) => { order.push("second"); release(); });
 * order.push("first");
 * first();
 * first(); // a second call gives nothing back twice
 * await second;
 * deepEqual(order, ["first", "second"]);
 * ```
 */
export function createCheckSlots(n: number): CheckSlots {
  let free = Math.max(1, Math.floor(n));
  const waiters: (() => void)[] = [];
  const grant = (): () => void => {
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const next = waiters.shift();
      if (next !== undefined) next();
      else free++;
    };
  };
  return {
    acquire() {
      if (free > 0) {
        free--;
        return Promise.resolve(grant());
      }
      return new Promise((resolve) => waiters.push(() => resolve(grant())));
    },
  };
}
