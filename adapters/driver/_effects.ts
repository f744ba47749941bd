/**
 * What every handler of a kernel action shares: the handler type (one per
 * action kind), failing an effect, and running one as the task's cancellable
 * effect.
 *
 * @module
 */
import type { KernelAction } from "../../kernel/lifecycle/actions.ts";
import type { TaskRun } from "./_task_run.ts";

/** Every kind of action the kernel asks the driver to perform. */
export type ActionKind = KernelAction["kind"];
/** The action of each kind. */
export type ActionOf = { readonly [K in ActionKind]: Extract<KernelAction, { kind: K }> };
/** What performs an action of kind `K`. */
export type Handler<K extends ActionKind> = (run: TaskRun, action: ActionOf[K]) => Promise<void>;

/** The message of a thrown value. */
export const message = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

/** The effect cannot be performed: the kernel fails the task (could not run). */
export async function effectFailed(
  run: TaskRun,
  effectId: string,
  code: string,
  why: string,
): Promise<void> {
  run.effectError = `${code}: ${why}`;
  run.effectCode = code;
  await run.feed({ kind: "effect_failed", taskId: run.o.taskId, effectId, error: code });
}

/**
 * Marks `effectId` as the task's running effect and gives its abort controller;
 * a Ctrl-C heard before the effect started (nothing was running to abort) stops it at once.
 */
export function startEffect(run: TaskRun, effectId: string): AbortController {
  const controller = new AbortController();
  run.running = { effectId, controller };
  if (run.o.signal?.aborted === true) controller.abort();
  return controller;
}

/** Runs `work` as the task's cancellable effect, bounded by the wall-time budget. */
export async function cancellable<T>(
  run: TaskRun,
  effectId: string,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = startEffect(run, effectId);
  const timer = setTimeout(() => controller.abort(), run.remainingMs());
  try {
    return await work(controller.signal);
  } finally {
    clearTimeout(timer);
    run.running = null;
    run.check = null;
  }
}
