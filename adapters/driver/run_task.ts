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
import type { AgentBackend, BackendEvent } from "../backends/types.ts";
import { canonicalDigest } from "../canonical_json/canonical_json.ts";
import { sha256Hex } from "../digest/sha256.ts";
import type { MacKey } from "../keys/mac_key.ts";
import type { SigningKey } from "../keys/signing_key.ts";
import { recordKernelInit } from "../log/kinds.ts";
import type { EventLog } from "../log/store.ts";
import { isTerminalStatus } from "../../kernel/lifecycle/codes.ts";
import { KERNEL_LIFECYCLE_VERSION } from "../../kernel/lifecycle/version.ts";
import type { IntegrationOps } from "../verified_patch/capabilities.ts";
import type { Verifier } from "../verification/verifier.ts";
import { deferRemoval } from "../worktree/deferred_removal.ts";
import { writeOutcome } from "./_artefacts.ts";
import { outcomeOf } from "./_final.ts";
import { HANDLERS } from "./_handlers.ts";
import { TaskRun } from "./_task_run.ts";
import type { RunOutcome, RunProgress } from "./outcome.ts";

/** Integration request: commit the verified patch on a new branch, after approval. */
export interface IntegrateRequest {
  /** New branch name. */
  readonly branch: string;
  /** Asks the human; resolves true to approve. `--yes` passes `() => true`. */
  approve(question: ApprovalQuestion): Promise<boolean>;
  /** Who approves (recorded). */
  readonly approver: string;
  /** The git side of integration. */
  readonly ops: IntegrationOps;
}

/** What the human is asked before integration. */
export interface ApprovalQuestion {
  readonly task: string;
  readonly branch: string;
  readonly patchDigest: string;
  readonly files: readonly string[];
  readonly sensitive: readonly string[];
  readonly reasons: readonly string[];
}

/** Everything `runTask` needs. Paths are absolute. */
export interface RunTaskOptions {
  /** Top level of the user's repository. */
  readonly repo: string;
  /** Full commit id of the base. */
  readonly base: string;
  /** The goal for the backend. */
  readonly goal: string;
  /** The backend. */
  readonly backend: AgentBackend;
  /** Clean verification (baseline + re-verification). */
  readonly verifier: Verifier;
  /** Path rules for patches (allow / forbid / protect). */
  readonly rules: {
    readonly allow: readonly string[];
    readonly forbid: readonly string[];
    readonly protect: readonly string[];
  };
  /** Total backend rounds (first attempt included). */
  readonly maxRounds: number;
  /** Wall-time budget of the whole task, in milliseconds. */
  readonly wallTimeMs: number;
  /**
   * The run's absolute deadline (ms since epoch), when the caller already gave it to the
   * verifier: the kernel's wall budget then ends exactly there. @default now + wallTimeMs
   */
  readonly deadline?: number;
  /** Backend output budget in bytes. @default 256 MiB */
  readonly outputBytes?: number;
  /** Backend cost budget in cost units (cents). @default 1e9 */
  readonly costUnits?: number;
  /** The event log (opened by the caller, who closes it). */
  readonly log: EventLog;
  /** The repository's MAC key (receipts, verified patches). */
  readonly key: MacKey;
  /** Directory for this task's artefacts (created if missing). */
  readonly artefactsDir: string;
  /** Task id (file-name safe). */
  readonly taskId: string;
  /** Where worktrees live (default: the worktree module's default root). */
  readonly worktreeRoot?: string;
  /** Ctrl-C: aborting kills the backend, cleans up, and ends `killed`. */
  readonly signal?: AbortSignal;
  /** Opt-in integration. */
  readonly integrate?: IntegrateRequest;
  /** Live progress. */
  readonly onProgress?: (progress: RunProgress) => void;
  /** Clock (ms since epoch). @default Date.now */
  readonly now?: () => number;
  /** Max seconds one backend round may take (clamped to the wall budget). */
  readonly backendTimeoutMs?: number;
  /** Ed25519 key: when given, a verified patch is also exported as a DSSE attestation. */
  readonly signingKey?: SigningKey;
  /** Every event the backend emits, live (with its 1-based round). */
  readonly onBackendEvent?: (event: BackendEvent, round: number) => void;
  /**
   * Run the contract on the base revision before the first round (the kernel's
   * `baselining` status). `vouch verify` skips it for contracts that need no
   * captures. @default true
   */
  readonly baseline?: boolean;
  /**
   * Watch the user's checkout and the worktree container for writes outside
   * the worktree during each backend round. Off only when no agent process
   * runs (`vouch verify`'s patch "backend"). @default true
   */
  readonly watchOutside?: boolean;
  /**
   * Where the backend works. `worktree`: a checkout of the base (every agent).
   * `none`: no backend process edits files (`vouch verify`'s supplied patch):
   * nothing is checked out, the backend gets an empty private directory, and
   * the patch it hands over is judged as stated, its changed paths as the
   * strict parser reads them (`changedPaths`); the clean verification applies
   * it with git and refuses any path git changes that the patch does not name
   * (`judgeAppliedPatch`). @default "worktree"
   */
  readonly workspace?: "worktree" | "none";
  /**
   * When the task's trees go. `before_return`: removed before `runTask`
   * resolves. `after_return`: removal starts once nothing runs in them and
   * finishes after the outcome is returned, so the verdict is reported first
   * (the CLI); wait with `settleDeferredRemovals()`. @default "before_return"
   */
  readonly treeRemoval?: "before_return" | "after_return";
}

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
  await recordKernelInit(opts.log, run.policy as unknown as never, KERNEL_LIFECYCLE_VERSION);
  const onAbort = () => void run.running?.controller.abort();
  opts.signal?.addEventListener("abort", onAbort);
  try {
    await run.feed({
      kind: "task_submitted",
      taskId: opts.taskId,
      goal: opts.goal,
      baseRev: opts.base,
      budget: {
        wallTimeMs: opts.deadline === undefined
          ? opts.wallTimeMs
          : Math.max(0, opts.deadline - run.now()),
        repairRounds: Math.max(0, opts.maxRounds - 1),
        outputBytes: opts.outputBytes ?? 256 * 1024 * 1024,
        costUnits: opts.costUnits ?? 1_000_000_000,
      },
      contractDigest: opts.verifier.contractDigest,
      policyDigest: canonicalDigest(run.policy),
      policy: run.policy,
      ...(opts.baseline === false ? { baseline: false } : {}),
    });
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
    // deno-lint-ignore no-explicit-any
    await (HANDLERS[action.kind] as (run: TaskRun, action: any) => Promise<void>)(run, action);
  }
}

function isFinished(run: TaskRun): boolean {
  return run.record === null || isTerminalStatus(run.record.status);
}

/** Digest of arbitrary text (helper for task ids and artefact names). */
export function shortDigest(text: string): string {
  return sha256Hex(text).slice("sha256:".length, "sha256:".length + 8);
}
