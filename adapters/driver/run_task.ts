/**
 * THE loop of `vouch run` (and `vouch verify`): an interpreter of kernel
 * actions. It feeds an event, records the event/actions pair in the event log
 * before acting, performs each returned action through its handler
 * (`_handlers.ts`, one per action kind) and feeds the result back. The kernel
 * decides everything, including the final state (`taskOutcome`); this file
 * only loops.
 *
 * Lifecycle (the kernel's tables, `docs/kernel.md`): worktree, baseline on the
 * clean base revision (a contract that cannot run or gates nothing is refused
 * before any agent time is spent), then backend rounds: run, extract the real
 * diff, judge it (scope, protected paths, sensitive classes, writes outside the
 * worktree), re-verify in a clean tree, mint the VerifiedPatch when the kernel
 * says so; on failure the failing checks' names and output tails become the
 * next round's prompt.
 *
 * @module
 */
import { mkdir } from "node:fs/promises";
import { canonicalDigest } from "../canonical_json/canonical_json.ts";
import { sha256Hex } from "../digest/sha256.ts";
import { isTerminalStatus } from "../../kernel/lifecycle/codes.ts";
import { deferRemoval } from "../worktree/deferred_removal.ts";
import { writeOutcome } from "./_artefacts.ts";
import { outcomeOf } from "./_final.ts";
import { perform } from "./_handlers.ts";
import { TaskRun } from "./_task_run.ts";
import type { RunOutcome } from "./outcome.ts";

export type { ApprovalQuestion, IntegrateOptions, RunTaskOptions } from "./task_options.ts";
import type { RunTaskOptions } from "./task_options.ts";

/**
 * Runs one task to a final state. Never throws for anything a backend or the
 * repository does; throws only for programming errors and a broken log.
 *
 * @example
 * ```ts ignore
 * import { runTask } from "./run_task.ts";
 * const outcome = await runTask(options);
 * console.log(outcome.state, outcome.exitCode);
 * ```
 */
export async function runTask(opts: RunTaskOptions): Promise<RunOutcome> {
  const run = new TaskRun(opts);
  await mkdir(opts.artefactsDir, { recursive: true });
  const onAbort = () => void run.running?.controller.abort();
  opts.signal?.addEventListener("abort", onAbort);
  try {
    // One reading of the clock for the submission's time and the budget it starts: the kernel's
    // deadline is then the checks' own (`deadline`), however long the init record takes to write.
    const submittedAt = run.now();
    await run.feed({
      kind: "task_submitted",
      taskId: opts.taskId,
      goal: opts.goal,
      baseRev: opts.base,
      budget: {
        wallTimeMs: opts.deadline === undefined
          ? opts.wallTimeMs
          : Math.max(0, opts.deadline - submittedAt),
        repairRounds: Math.max(0, opts.maxRounds - 1),
        outputBytes: opts.outputBytes ?? 256 * 1024 * 1024,
        costUnits: opts.costUnits ?? 1_000_000_000,
      },
      contractDigest: opts.verifier.contractDigest,
      policyDigest: canonicalDigest(run.policy),
      policy: run.policy,
      ...(opts.baseline === false ? { baseline: false } : {}),
      // An agent to start is started (and found unable to) before the baseline.
      ...(opts.source.start !== undefined ? { startBackend: true } : {}),
    }, submittedAt);
    await interpret(run);
    const outcome = outcomeOf(run);
    await opts.log.append({
      task: opts.taskId,
      kind: "run.outcome",
      body: JSON.parse(JSON.stringify(outcome)),
    });
    await opts.log.flush();
    await writeOutcome(run, outcome);
    run.progress("done", outcome.state);
    return outcome;
  } finally {
    opts.signal?.removeEventListener("abort", onAbort);
    // Whatever path ended the task, nothing the backend kept for a next round outlives it.
    await opts.source.endTask(opts.taskId);
    const removal = Promise.all([
      opts.verifier.settle().catch(() => {}),
      run.releaseTrees(),
    ]);
    if (opts.treeRemoval === "after_return") deferRemoval(removal);
    else await removal;
  }
}

/** Performs queued actions until none are left; a paused task nobody can extend is stopped. */
async function interpret(run: TaskRun): Promise<void> {
  for (;;) {
    const action = run.queue.shift();
    if (action === undefined) {
      const status = run.record?.status;
      // Nobody extends a budget here: the kernel keeps the budget that paused the task.
      if (status === "paused") await run.kill("vouch: out of budget, nothing extends it");
      else return;
      continue;
    }
    if (run.o.signal?.aborted && action.kind !== "cleanup" && !isFinished(run)) {
      await run.kill("user");
      continue;
    }
    await perform(run, action);
  }
}

function isFinished(run: TaskRun): boolean {
  return run.record === null || isTerminalStatus(run.record.status);
}

/** Digest of arbitrary text (helper for task ids and artefact names). */
export function shortDigest(text: string): string {
  return sha256Hex(text).slice("sha256:".length, "sha256:".length + 8);
}
