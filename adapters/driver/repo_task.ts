/**
 * What `vouch run` and `vouch verify` share around the kernel's loop: the
 * options of one task in a user's repository ({@linkcode RepoTaskOptions}),
 * its path rules, and its clean verifier's wiring. Each command adds only its
 * own: run an agent worktree and its budgets, verify the supplied bytes and
 * the baseline cache.
 *
 * Owns: turning a command's repository options into the driver's. Never:
 * opening the repository's state or running anything (the commands do, through
 * `openRepoState` and `runTask`).
 *
 * @module
 */
import type { OutcomeContract } from "../../kernel/contract/types.ts";
import type { KeyEnv } from "../keys/paths.ts";
import type { SandboxRequirement } from "../host/sandbox_probe.ts";
import type { ReceiptRecorder } from "../receipts/chain.ts";
import type { CleanVerifierOptions } from "../verification/clean_verifier.ts";
import type { RunTaskOptions } from "./task_options.ts";
import { DEFAULT_FORBID } from "./task_defaults.ts";

/** The options `vouch run` (`runInRepo`) and `vouch verify` (`verifyPatchInRepo`) share. */
export interface RepoTaskOptions {
  /** Any directory inside the repository. */
  readonly dir: string;
  /** The outcome contract (from `--contract` or built from `--verify`). */
  readonly contract: OutcomeContract;
  /** The revision the patch applies to. @default "HEAD" */
  readonly base?: string;
  /** Globs of paths the patch may touch (empty: anything not forbidden). @default all */
  readonly allow?: readonly string[];
  /** Globs of paths the patch may not touch (on top of `DEFAULT_FORBID`, minus what `allow` names). */
  readonly forbid?: readonly string[];
  /** Which sandbox the checks need. @default "auto" */
  readonly sandbox?: SandboxRequirement;
  /** Paths outside the tree the checks need, read-only in their sandbox (`--sandbox-ro`). */
  readonly sandboxReadOnly?: readonly string[];
  /** Environment the keys are located from (`VOUCH_KEY_FILE`, `XDG_STATE_HOME`). @default the process env */
  readonly keyEnv?: KeyEnv;
  /** Directory the task's trees are created under. @default the worktree module's */
  readonly worktreeRoot?: string;
  /** Notes for the user (a dirty checkout, a dead writer's lock taken over). */
  readonly onNote?: (text: string) => void;
  /** Each sub-step of preparing a clean tree, with its size (`copying node_modules, 66 MB`). */
  readonly onStep?: (step: string) => void;
  /** Let the contract's setup commands use the network when it asks (`--allow-setup-network`). */
  readonly allowSetupNetwork?: boolean;
  /**
   * Tests are editable (`--tests-editable`): a patch that touches test files is
   * graded against its own tests only, and the verdict says so.
   * @default the contract's `testsEditable`, else false
   */
  readonly testsEditable?: boolean;
  /**
   * When the task's trees are removed: before this resolves, or after
   * (`after_return`: the verdict is reported first; the CLI waits with
   * `settleDeferredRemovals()` before it exits). @default "before_return"
   */
  readonly treeRemoval?: "before_return" | "after_return";
}

/**
 * The task's path rules: `DEFAULT_FORBID` less what `allow` names, then
 * `forbid`; the contract's protected paths.
 *
 * @example
 * ```ts
 * import { deepEqual, ok } from "node:assert/strict";
 * import { taskRules } from "./repo_task.ts";
 * const rules = taskRules({ allow: [".github/**"], forbid: ["dist/**"], contract: { protect: ["t/**"] } });
 * ok(!rules.forbid.includes(".github/**"));
 * deepEqual(rules.forbid.at(-1), "dist/**");
 * deepEqual(rules.protect, ["t/**"]);
 * ```
 */
export function taskRules(
  opts: Pick<RepoTaskOptions, "allow" | "forbid"> & {
    readonly contract: Pick<OutcomeContract, "protect">;
  },
): RunTaskOptions["rules"] {
  const allow = opts.allow ?? [];
  const forbid = [...DEFAULT_FORBID.filter((f) => !allow.includes(f)), ...(opts.forbid ?? [])];
  return { allow, forbid, protect: opts.contract.protect };
}

/** Where a task's clean verifier works: the opened repository, the task and its receipts. */
export interface TaskPlace {
  /** The repository's top level. */
  readonly top: string;
  /** The base commit. */
  readonly base: string;
  /** The task id. */
  readonly taskId: string;
  /** The task's receipt recorder. */
  readonly receipts: ReceiptRecorder;
}

/**
 * The clean verifier's options both commands give it from their own: where it
 * works, the contract, the sandbox (`auto` unless asked), the trees' root,
 * setup's network and whether tests are editable.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { cleanVerifierBase } from "./repo_task.ts";
 * const contract = { checks: [], protect: [] } as never;
 * const o = cleanVerifierBase({ dir: ".", contract }, {
 *   top: "/r", base: "abc", taskId: "t1", receipts: {} as never,
 * });
 * equal(o.sandbox, "auto");
 * equal(o.allowSetupNetwork, false);
 * equal(o.repo, "/r");
 * ```
 */
export function cleanVerifierBase(opts: RepoTaskOptions, at: TaskPlace): CleanVerifierOptions {
  return {
    ...(opts.onStep !== undefined ? { onStep: opts.onStep } : {}),
    repo: at.top,
    base: at.base,
    taskId: at.taskId,
    contract: opts.contract,
    receipts: at.receipts,
    sandbox: opts.sandbox ?? "auto",
    ...(opts.sandboxReadOnly !== undefined ? { sandboxReadOnly: opts.sandboxReadOnly } : {}),
    ...(opts.worktreeRoot !== undefined ? { worktreeRoot: opts.worktreeRoot } : {}),
    allowSetupNetwork: opts.allowSetupNetwork ?? false,
    ...(opts.testsEditable !== undefined ? { testsEditable: opts.testsEditable } : {}),
  };
}
