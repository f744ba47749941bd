/**
 * Everything around the loop for one `vouch run` in a user's repository:
 * resolve the repository and base, open its state once (`openRepoState`:
 * `.vouch/` kept out of git, the MAC key, the event log), load run's own
 * signing key, build the clean verifier, run the task, close the log. The
 * CLI, the demo and the tests all start here.
 *
 * @module
 */
import { mintedPatchOf } from "./_final.ts";
import type { VerifiedPatch } from "../verified_patch/verified_patch.ts";
import type { AgentBackend, BackendEvent } from "../backends/types.ts";
import { readRepoInfo } from "../git/locate_repo.ts";
import { loadOrCreateSigningKey } from "../keys/signing_key.ts";
import { createCleanVerifier } from "../verification/clean_verifier.ts";
import { intentTargetsTests } from "../derive_contract/intent.ts";
import type { RunOutcome, RunProgress } from "./outcome.ts";
import { type IntegrateOptions, runTask } from "./run_task.ts";
import { agentWorktree } from "./patch_source.ts";
import { newTaskId } from "./task_defaults.ts";
import { assertAgentConfined } from "./agent_confinement.ts";
import { cleanVerifierBase, openRepoState, type RepoTaskOptions, taskRules } from "./repo_task.ts";

export { DEFAULT_FORBID, newTaskId } from "./task_defaults.ts";

/** Options of {@link runInRepo}. */
export interface RunInRepoOptions extends RepoTaskOptions {
  /** What the agent is asked to achieve. */
  readonly goal: string;
  /**
   * The agent backend that writes the patch. One that starts programs (an agent CLI, a
   * command, an ACP agent, the `openai` loop) must come wrapped by `confinedAgent` (the agent
   * sandbox per task, as `vouch run` runs it), else the run is refused (`agent_unconfined`)
   * unless {@linkcode RunInRepoOptions.unconfinedAgent} says otherwise.
   */
  readonly backend: AgentBackend;
  /**
   * Runs a program-starting backend that `confinedAgent` does not wrap as it is: with this
   * process's rights (it can read vouch's keys and write wherever you can). Only for a backend
   * you confine yourself, or one you trust that far. @default false
   */
  readonly unconfinedAgent?: boolean;
  /** Most backend rounds (first attempt included). */
  readonly maxRounds: number;
  /** Cost budget in the backend's units (tokens or cents). @default unlimited */
  readonly costUnits?: number;
  /** Wall-time budget, ms. */
  readonly wallTimeMs: number;
  /** Time limit of each backend round, ms. */
  readonly backendTimeoutMs?: number;
  /** Integrate a verified patch (e.g. onto a branch) when the run ends. */
  readonly integrate?: Omit<IntegrateOptions, "ops"> & { ops?: IntegrateOptions["ops"] };
  /** Aborts the run. */
  readonly signal?: AbortSignal;
  /** Told the run's progress as it goes. */
  readonly onProgress?: (progress: RunProgress) => void;
  /** Every event of the running backend, live. */
  readonly onBackendEvent?: (event: BackendEvent, round: number) => void;
  /** Task id. @default generated */
  readonly taskId?: string;
  /**
   * Refuse a contract whose checks already pass on the base.
   * @default true when the goal reads like "make the (failing) tests pass"
   */
  readonly requireFailingBaseline?: boolean;
}

/** The git side of integration: a commit on a new branch, without touching the checkout. */
export function gitIntegrationOps(): IntegrateOptions["ops"] {
  return {
    async commitOnNewBranch(request) {
      const { commitOnNewBranch } = await import("./integrate_git.ts");
      return await commitOnNewBranch(request);
    },
  };
}

/**
 * Runs one task in a repository end to end and returns its outcome.
 *
 * @example
 * ```ts ignore
 * import { runInRepo } from "./run_in_repo.ts";
 * const outcome = await runInRepo({ dir: ".", goal: "fix it", backend, contract, maxRounds: 3,
 *   wallTimeMs: 600_000 });
 * ```
 */
export async function runInRepo(opts: RunInRepoOptions): Promise<RunInRepoOutcome> {
  const outcome = await runInRepoOutcome(opts);
  const verifiedPatch = mintedPatchOf(outcome);
  return {
    ...outcome,
    verifiedPatch,
    verifiedPatchPath: verifiedPatch === null
      ? null
      : `${outcome.artefactsDir}/verified_patch.json`,
  };
}

/**
 * The result of {@link runInRepo}: the run's outcome (what `vouch run --json` prints) and the
 * VerifiedPatch itself.
 */
export interface RunInRepoOutcome extends RunOutcome {
  /**
   * The VerifiedPatch the kernel minted, when verified (else `null`). Check it with
   * `assertVerifiedPatch(outcome.verifiedPatch, key)` before any consequential use.
   */
  readonly verifiedPatch: VerifiedPatch | null;
  /** Path of its JSON form (`runs/<task>/verified_patch.json`), when verified. */
  readonly verifiedPatchPath: string | null;
}

/**
 * The outcome as `vouch run --json` prints it: {@link RunInRepoOutcome} without the
 * VerifiedPatch (its JSON form is in the run's artefacts).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { type RunInRepoOutcome, runOutcomeReport } from "./run_in_repo.ts";
 * const o = { state: "rejected", verifiedPatch: null, verifiedPatchPath: null };
 * equal("verifiedPatch" in runOutcomeReport(o as unknown as RunInRepoOutcome), false);
 * ```
 */
export function runOutcomeReport(outcome: RunOutcome): RunOutcome {
  const { verifiedPatch: _patch, verifiedPatchPath: _path, ...rest } = outcome as
    & Partial<RunInRepoOutcome>
    & RunOutcome;
  return rest;
}

async function runInRepoOutcome(opts: RunInRepoOptions): Promise<RunOutcome> {
  // Before anything runs: an agent started with this process's rights could read the keys.
  if (assertAgentConfined(opts.backend, opts.unconfinedAgent === true)) {
    opts.onNote?.(
      `agent: \`${opts.backend.id}\` runs unconfined (unconfinedAgent), with this process's rights`,
    );
  }
  const rules = taskRules(opts);
  // "Make the failing tests pass": a contract that already passes proves nothing.
  const requireFailingBaseline = opts.requireFailingBaseline ?? intentTargetsTests(opts.goal);
  const state = await openRepoState({
    // A dirty checkout is said (onNote): its changes are not what the agent starts from.
    repo: await readRepoInfo(opts.dir, opts.base ?? "HEAD"),
    ...(opts.keyEnv !== undefined ? { keyEnv: opts.keyEnv } : {}),
    ...(opts.onNote !== undefined ? { onNote: opts.onNote } : {}),
  });
  const { stateDir, key, log, receipts } = state;
  const taskId = opts.taskId ?? newTaskId();
  // One deadline for the kernel's wall budget and for every command the verifier runs.
  const deadline = Date.now() + opts.wallTimeMs;
  try {
    // run's own key: its VerifiedPatch is signed (attestation.json beside it).
    const signingKey = await loadOrCreateSigningKey({
      repoRoot: state.top,
      ...(opts.keyEnv !== undefined ? { env: opts.keyEnv } : {}),
    });
    const verifier = createCleanVerifier({
      ...cleanVerifierBase(opts, { top: state.top, base: state.base, taskId, receipts }),
      // No check or setup command may outlive the task's wall-time budget.
      deadline,
      requireFailingBaseline,
    });
    return await runTask({
      repo: state.top,
      base: state.base,
      goal: opts.goal,
      source: agentWorktree(
        opts.backend,
        opts.worktreeRoot !== undefined ? { root: opts.worktreeRoot } : {},
      ),
      verifier,
      rules,
      maxRounds: opts.maxRounds,
      ...(opts.costUnits !== undefined ? { costUnits: opts.costUnits } : {}),
      wallTimeMs: opts.wallTimeMs,
      deadline,
      log,
      key,
      signingKey,
      artefactsDir: `${stateDir}/runs/${taskId}`,
      taskId,
      ...(opts.signal !== undefined ? { signal: opts.signal } : {}),
      ...(opts.onProgress !== undefined ? { onProgress: opts.onProgress } : {}),
      ...(opts.onBackendEvent !== undefined ? { onBackendEvent: opts.onBackendEvent } : {}),
      ...(opts.backendTimeoutMs !== undefined ? { backendTimeoutMs: opts.backendTimeoutMs } : {}),
      ...(opts.treeRemoval !== undefined ? { treeRemoval: opts.treeRemoval } : {}),
      ...(opts.integrate !== undefined
        ? { integrate: { ...opts.integrate, ops: opts.integrate.ops ?? gitIntegrationOps() } }
        : {}),
    });
  } finally {
    await log.close();
  }
}
