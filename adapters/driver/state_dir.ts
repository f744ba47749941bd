/**
 * The repository's state directory (`.vouch/`: the event log and `runs/`),
 * made ready before a run or a verification writes to it. A `.vouch` that is
 * a file, or a directory vouch cannot create, is a {@linkcode StateDirError}
 * saying which path and what to do, not an operating-system error.
 * {@linkcode openRepoState} resolves, once and up front, what a run or a
 * verification needs of its located repository (state directory, the MAC key,
 * event log, receipt chain) into one small value.
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
 * import { ensureStateDir } from "./state_dir.ts";
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
 * import { excludeStateDir } from "./state_dir.ts";
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
 * import { openRepoState } from "./state_dir.ts";
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
