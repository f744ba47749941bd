/**
 * Everything around the loop for one `vouch run` in a user's repository:
 * resolve the repository and base, open its state once (`openRepoState`:
 * `.vouch/` kept out of git, the keys, the event log), build the clean
 * verifier, run the task, close the log. The CLI, the demo and the tests all
 * start here.
 *
 * @module
 */
import { mintedPatchOf } from "./_final.ts";
import type { VerifiedPatch } from "../verified_patch/verified_patch.ts";
import type { OutcomeContract } from "../../kernel/contract/types.ts";
import type { AgentBackend, BackendEvent } from "../backends/types.ts";
import { readRepoInfo } from "../git/repo_info.ts";
import type { KeyEnv } from "../keys/paths.ts";
import type { SandboxRequirement } from "../host/sandbox_probe.ts";
import { createCleanVerifier } from "../verification/clean_verifier.ts";
import { intentTargetsTests } from "../derive_contract/intent.ts";
import type { RunOutcome, RunProgress } from "./outcome.ts";
import { type IntegrateOptions, runTask } from "./run_task.ts";
import { openRepoState } from "./state_dir.ts";
import { agentWorktree } from "./patch_source.ts";
import { DEFAULT_FORBID, newTaskId } from "./task_defaults.ts";

export { DEFAULT_FORBID, newTaskId } from "./task_defaults.ts";

/** Options of {@link runInRepo}. */
export interface RunInRepoOptions {
  /** Any directory inside the repository. */
  readonly dir: string;
  /** What the agent is asked to achieve. */
  readonly goal: string;
  /** The agent backend that writes the patch. */
  readonly backend: AgentBackend;
  /** The contract (from `--contract` or built from `--verify`). */
  readonly contract: OutcomeContract;
  /** Most backend rounds (first attempt included). */
  readonly maxRounds: number;
  /** Cost budget in the backend's units (tokens or cents). @default unlimited */
  readonly costUnits?: number;
  /** Extra allowed globs (empty: anything not forbidden). */
  readonly allow?: readonly string[];
  /** Extra forbidden globs (on top of {@link DEFAULT_FORBID}, minus what `allow` names). */
  readonly forbid?: readonly string[];
  /** Base revision. @default "HEAD" */
  readonly base?: string;
  /** Wall-time budget, ms. */
  readonly wallTimeMs: number;
  /**
   * When the task's trees are removed: before this resolves, or after
   * (`after_return`: the verdict is reported first; the CLI waits with
   * `settleDeferredRemovals()` before it exits). @default "before_return"
   */
  readonly treeRemoval?: "before_return" | "after_return";
  /** Time limit of each backend round, ms. */
  readonly backendTimeoutMs?: number;
  /** Which sandbox the checks need. */
  readonly sandbox?: SandboxRequirement;
  /** Paths outside the tree the checks need, read-only in their sandbox (`--sandbox-ro`). */
  readonly sandboxReadOnly?: readonly string[];
  /** Integrate a verified patch (e.g. onto a branch) when the run ends. */
  readonly integrate?: Omit<IntegrateOptions, "ops"> & { ops?: IntegrateOptions["ops"] };
  /** Aborts the run. */
  readonly signal?: AbortSignal;
  /** Told the run's progress as it goes. */
  readonly onProgress?: (progress: RunProgress) => void;
  /** Every event of the running backend, live. */
  readonly onBackendEvent?: (event: BackendEvent, round: number) => void;
  /** Notes for the user (dirty checkout, sandbox choice). */
  readonly onNote?: (text: string) => void;
  /** Each sub-step of preparing a clean tree, with its size (`copying node_modules, 66 MB`). */
  readonly onStep?: (step: string) => void;
  /** Key environment (tests point this at a temp dir). @default the process env */
  readonly keyEnv?: KeyEnv;
  /** Task id. @default generated */
  readonly taskId?: string;
  /** Worktree root. @default the worktree module's */
  readonly worktreeRoot?: string;
  /**
   * Refuse a contract whose checks already pass on the base.
   * @default true when the goal reads like "make the (failing) tests pass"
   */
  readonly requireFailingBaseline?: boolean;
  /** Let the contract's setup commands use the network when it asks (`--allow-setup-network`). */
  readonly allowSetupNetwork?: boolean;
  /**
   * Tests are editable (`--tests-editable`): a patch that touches test files is
   * graded against its own tests only, and the verdict says so.
   * @default the contract's `testsEditable`, else false
   */
  readonly testsEditable?: boolean;
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
  const repo = await readRepoInfo(opts.dir, opts.base ?? "HEAD");
  if (repo.dirtyMessage !== null) opts.onNote?.(repo.dirtyMessage);
  const state = await openRepoState({
    repo,
    signing: true,
    ...(opts.keyEnv !== undefined ? { keyEnv: opts.keyEnv } : {}),
    ...(opts.onNote !== undefined ? { onNote: opts.onNote } : {}),
  });
  const { stateDir, key, log, receipts } = state;
  const taskId = opts.taskId ?? newTaskId();
  // One deadline for the kernel's wall budget and for every command the verifier runs.
  const deadline = Date.now() + opts.wallTimeMs;
  try {
    const allow = opts.allow ?? [];
    const forbid = [
      ...DEFAULT_FORBID.filter((f) => !allow.includes(f)),
      ...(opts.forbid ?? []),
    ];
    const verifier = createCleanVerifier({
      ...(opts.onStep !== undefined ? { onStep: opts.onStep } : {}),
      repo: state.top,
      base: state.base,
      taskId,
      contract: opts.contract,
      receipts,
      sandbox: opts.sandbox ?? "auto",
      ...(opts.sandboxReadOnly !== undefined ? { sandboxReadOnly: opts.sandboxReadOnly } : {}),
      ...(opts.worktreeRoot !== undefined ? { worktreeRoot: opts.worktreeRoot } : {}),
      allowSetupNetwork: opts.allowSetupNetwork ?? false,
      ...(opts.testsEditable !== undefined ? { testsEditable: opts.testsEditable } : {}),
      // No check or setup command may outlive the task's wall-time budget.
      deadline,
      // "Make the failing tests pass": a contract that already passes proves nothing.
      requireFailingBaseline: opts.requireFailingBaseline ?? intentTargetsTests(opts.goal),
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
      rules: { allow, forbid, protect: opts.contract.protect },
      maxRounds: opts.maxRounds,
      ...(opts.costUnits !== undefined ? { costUnits: opts.costUnits } : {}),
      wallTimeMs: opts.wallTimeMs,
      deadline,
      log,
      key,
      ...(state.signingKey !== undefined ? { signingKey: state.signingKey } : {}),
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
