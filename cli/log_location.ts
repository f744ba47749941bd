/**
 * Where a command finds the event log when none is named: the `.vouch/`
 * directory at the top of the repository that contains the user's current
 * directory (any subdirectory works), not `./.vouch` of wherever the user
 * stands.
 *
 * @module
 */
import { join } from "node:path";
import { cwd } from "node:process";
import { findRepositoryRoot } from "../adapters/keys/mod.ts";

/**
 * The default event log for a command run in `from` (default: the current
 * directory): `<repository top>/.vouch/events.jsonl`.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
 * import { equal } from "node:assert/strict";
 * import { defaultLogPath } from "./log_location.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-"));
 * mkdirSync(`${dir}/.git`);
 * mkdirSync(`${dir}/src/deep`, { recursive: true });
 * equal(defaultLogPath(`${dir}/src/deep`), `${realpathSync(dir)}/.vouch/events.jsonl`);
 * rmSync(dir, { recursive: true, force: true });
 * ```
 */
export function defaultLogPath(from: string = cwd()): string {
  return join(findRepositoryRoot(from), ".vouch", "events.jsonl");
}
