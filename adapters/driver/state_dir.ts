/**
 * The repository's state directory (`.vouch/`: the event log and `runs/`),
 * made ready before a run or a verification writes to it. A `.vouch` that is
 * a file, or a directory vouch cannot create, is a {@linkcode StateDirError}
 * saying which path and what to do, not an operating-system error.
 *
 * @module
 */
import { lstat, mkdir } from "node:fs/promises";
import { VouchError } from "../../kernel/errors/mod.ts";

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
