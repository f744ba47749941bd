/**
 * Folding a recorded event stream through the reducer, for `vouch inspect`
 * replay and for tests.
 *
 * @module
 */
import type { KernelAction } from "./actions.ts";
import type { KernelEvent } from "./events.ts";
import { defaultPolicy } from "./policy.ts";
import type { PolicySnapshot } from "./policy_types.ts";
import type { KernelState } from "./state.ts";
import { initialKernelState, step } from "./step.ts";

/** Options of {@linkcode replayEvents}. */
export interface ReplayOptions {
  /** Default policy of the fresh state (ignored when `from` is given). */
  readonly policy?: PolicySnapshot;
  /** State to start from; it is copied, never mutated. */
  readonly from?: KernelState;
}

/** One replayed step: the event and the actions it produced. */
export interface ReplayStep {
  /** The event replayed. */
  readonly event: KernelEvent;
  /** The actions it produced. */
  readonly actions: KernelAction[];
}

/** The result of a replay. */
export interface KernelReplayResult {
  /** The state after the last event. */
  readonly state: KernelState;
  /** Every step, in order. */
  readonly steps: ReplayStep[];
}

/**
 * Replays `events` from a fresh state (or a copy of `options.from`) and
 * returns the final state plus the actions of every event.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { replayEvents } from "./replay.ts";
 * const { state, steps } = replayEvents([
 *   { v: 1, kind: "timer_tick", id: "e1", seq: 1, at: 5, taskId: "nope" },
 * ]);
 * equal(state.now, 5);
 * equal(steps[0]?.actions[0]?.kind, "append_log"); // unknown task: a risk record
 * ```
 */
export function replayEvents(
  events: Iterable<KernelEvent>,
  options: ReplayOptions = {},
): KernelReplayResult {
  let state = options.from !== undefined
    ? JSON.parse(JSON.stringify(options.from)) as KernelState
    : initialKernelState(options.policy ?? defaultPolicy());
  const steps: ReplayStep[] = [];
  for (const event of events) {
    const result = step(state, event);
    state = result.state;
    steps.push({ event, actions: result.actions });
  }
  return { state, steps };
}
