/**
 * What `vouch run` and `vouch verify` share around the kernel's loop: the
 * options of one task in a user's repository ({@linkcode RepoTaskOptions}),
 * its path rules, the repository's state opened once and up front
 * ({@linkcode openRepoState}: the state directory `.vouch/` made ready and kept
 * out of git, the MAC key, the event log and its receipt chain) and its clean
 * verifier's wiring. Each command adds only its own: run an agent worktree and
 * its budgets, verify the supplied bytes and the baseline cache.
 *
 * Owns: turning a command's repository options into the driver's, and the
 * repository's state. A `.vouch` that is a file, or a directory vouch cannot
 * create, is a {@linkcode StateDirError} saying which path and what to do, not
 * an operating-system error. Never: running anything (the commands do,
 * through `runTask`).
 *
 * @module
 */
import { lstat, mkdir, readFile, writeFile } from "node:fs/promises";
import { VouchError } from "../../kernel/errors/mod.ts";
import type { LocatedRepo } from "../git/locate_repo.ts";
import { loadOrCreateMacKey, type MacKey } from "../keys/mac_key.ts";
import type { KeyEnv } from "../keys/paths.ts";
import { staleLockNote } from "../log/lock.ts";
import { EventLog } from "../log/store.ts";
import { ReceiptRecorder } from "../receipts/chain.ts";
import type { OutcomeContract } from "../../kernel/contract/types.ts";
import type { SandboxRequirement } from "../host/sandbox_probe.ts";
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

/** Stable codes of {@linkcode StateDirError}. */
export type StateDirErrorCode =
  /** The state directory (or its `runs/`) exists but is not a directory. */
  | "state_dir_not_directory"
  /** The state directory cannot be created (permissions, read-only filesystem, ...). */
  | "state_dir_io";

/** The state directory cannot be used. */
export class StateDirError extends VouchError<StateDirErrorCode> {}

/**
 * Creates `stateDir/runs` (and `stateDir`) unless they exist as directories.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
 * import { equal, rejects } from "node:assert/strict";
 * import { ensureStateDir } from "./repo_task.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-"));
 * await ensureStateDir(`${dir}/.vouch`);
 * equal(statSync(`${dir}/.vouch/runs`).isDirectory(), true);
 * writeFileSync(`${dir}/file`, "");
 * await rejects(ensureStateDir(`${dir}/file`), { code: "state_dir_not_directory" });
 * rmSync(dir, { recursive: true, force: true });
 * ```
 */
export async function ensureStateDir(stateDir: string): Promise<void> {
  for (const path of [stateDir, `${stateDir}/runs`]) {
    const info = await lstat(path).catch(() => null);
    if (info !== null && !info.isDirectory()) {
      throw new StateDirError(
        "state_dir_not_directory",
        `Cannot use ${path}: it is not a directory (vouch keeps its event log and runs in ${stateDir}/; move the file away)`,
      );
    }
  }
  try {
    await mkdir(`${stateDir}/runs`, { recursive: true });
  } catch (error) {
    throw new StateDirError(
      "state_dir_io",
      `Cannot create ${stateDir}/runs: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/**
 * Adds `.vouch/` to the repository's `.git/info/exclude` (once).
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdtempSync, readFileSync, rmSync } from "node:fs";
 * import { equal } from "node:assert/strict";
 * import { excludeStateDir } from "./repo_task.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-"));
 * await excludeStateDir(dir);
 * await excludeStateDir(dir);
 * equal(readFileSync(`${dir}/info/exclude`, "utf8"), ".vouch/\n");
 * rmSync(dir, { recursive: true, force: true });
 * ```
 */
export async function excludeStateDir(commonDir: string): Promise<void> {
  const file = `${commonDir}/info/exclude`;
  let text = "";
  try {
    text = await readFile(file, "utf8");
  } catch {
    await mkdir(`${commonDir}/info`, { recursive: true });
  }
  if (text.split("\n").some((l) => l.trim() === ".vouch/" || l.trim() === "/.vouch/")) return;
  const sep = text === "" || text.endsWith("\n") ? "" : "\n";
  await writeFile(file, `${text}${sep}.vouch/\n`);
}

/** What {@linkcode openRepoState} is asked to open. */
export interface RepoStateRequest {
  /**
   * The repository as located (top level, common git dir, base commit), and
   * whether its checkout is dirty when that was read (`dirtyMessage`, said first).
   */
  readonly repo: LocatedRepo & { readonly dirtyMessage?: string | null };
  /** The state directory. @default `<top>/.vouch` */
  readonly stateDir?: string;
  /** Environment the keys are located from. @default the process env */
  readonly keyEnv?: KeyEnv;
  /** Notes for the user (a dirty checkout, a dead writer's lock taken over). */
  readonly onNote?: (text: string) => void;
}

/** A repository resolved once for one task: see {@linkcode openRepoState}. */
export interface RepoState {
  /** Absolute, symlink-resolved top level of the checkout. */
  readonly top: string;
  /** Full commit id of the base. */
  readonly base: string;
  /** The state directory (made ready, kept out of git). */
  readonly stateDir: string;
  /** The MAC key of the receipts and the VerifiedPatch. */
  readonly key: MacKey;
  /** The event log, open: the caller closes it. */
  readonly log: EventLog;
  /** The receipt chain, resumed from the log. */
  readonly receipts: ReceiptRecorder;
}

/**
 * Opens what a run or a verification needs of its located repository, once and
 * up front: the state directory (kept out of git and made ready), the MAC key,
 * the event log and its receipt chain. The caller closes `log`.
 *
 * @example
 * ```ts
 * import { execFileSync } from "node:child_process";
 * import { mkdtempSync, rmSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { equal } from "node:assert/strict";
 * import { locateRepo } from "../git/locate_repo.ts";
 * import { openRepoState } from "./repo_task.ts";
 * const scratch = mkdtempSync(join(tmpdir(), "vouch-example-"));
 * const repo = join(scratch, "repo");
 * execFileSync("git", ["init", "-q", repo]);
 * execFileSync("git", ["-c", "user.email=e@x", "-c", "user.name=e", "commit", "-q", "--allow-empty", "-m", "init"], { cwd: repo });
 * const keyEnv = { XDG_STATE_HOME: join(scratch, "state") };
 * const located = await locateRepo(repo, "HEAD");
 * const state = await openRepoState({ repo: located, keyEnv });
 * try {
 *   equal(state.stateDir, `${state.top}/.vouch`);
 *   equal(state.base.length, 40);
 * } finally {
 *   await state.log.close();
 * }
 * rmSync(scratch, { recursive: true, force: true });
 * ```
 */
export async function openRepoState(request: RepoStateRequest): Promise<RepoState> {
  const repo = request.repo;
  const dirty = repo.dirtyMessage ?? null;
  if (dirty !== null) request.onNote?.(dirty);
  const commonDir = repo.commonDir.startsWith("/")
    ? repo.commonDir
    : `${repo.top}/${repo.commonDir}`;
  await excludeStateDir(commonDir);
  const stateDir = request.stateDir ?? `${repo.top}/.vouch`;
  await ensureStateDir(stateDir);
  const keyAt = {
    repoRoot: repo.top,
    ...(request.keyEnv !== undefined ? { env: request.keyEnv } : {}),
  };
  const key = await loadOrCreateMacKey(keyAt);
  const log = await EventLog.open(`${stateDir}/events.jsonl`);
  const stale = log.openReport.brokeStaleLock;
  if (stale !== null) request.onNote?.(staleLockNote(stale, `${log.path}.lock`));
  let receipts: ReceiptRecorder;
  try {
    receipts = ReceiptRecorder.resume(log, key, log.openReport.lastReceipt);
  } catch (error) {
    await log.close();
    throw error;
  }
  return {
    top: repo.top,
    base: repo.base,
    stateDir,
    key,
    log,
    receipts,
  };
}
