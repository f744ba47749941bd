import type { KernelAction } from "../../kernel/lifecycle/actions.ts";
import type { KernelEvent } from "../../kernel/lifecycle/events.ts";
import { defaultPolicy } from "../../kernel/lifecycle/policy.ts";
import type { PolicySnapshot } from "../../kernel/lifecycle/policy_types.ts";
import type { KernelState } from "../../kernel/lifecycle/state.ts";
import { initialKernelState, step } from "../../kernel/lifecycle/step.ts";
import { KERNEL_LIFECYCLE_VERSION } from "../../kernel/lifecycle/version.ts";
import type { ReplayKernel } from "../log/replay.ts";

/**
 * The lifecycle kernel as replay sees it: `kernel.init` carries the default
 * policy snapshot (`{ config: PolicySnapshot }`); without one, `defaultPolicy()`.
 *
 * @example
 * ```ts
 * import { lifecycleReplayKernel } from "./kernel_replay.ts";
 * const state = lifecycleReplayKernel.initial(null);
 * const { actions } = lifecycleReplayKernel.step(state, {
 *   v: 1, kind: "timer_tick", id: "e1", seq: 1, at: 0, taskId: "nope",
 * });
 * if (actions.length === 0) throw new Error();
 * ```
 */
export const lifecycleReplayKernel: ReplayKernel<KernelState, KernelEvent, KernelAction> = {
  initial: (config) =>
    initialKernelState(config === null ? defaultPolicy() : config as unknown as PolicySnapshot),
  step: (state, event) => step(state, event),
  version: KERNEL_LIFECYCLE_VERSION,
};
