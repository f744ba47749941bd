import { LOG_KINDS } from "../log/kinds.ts";
import type { LogRecord } from "../log/record.ts";
import type { VerifiedPatch } from "./verified_patch.ts";

/**
 * Records a minted patch in the log as a `verified_patch.minted` record (its
 * JSON form: digests, checks, receipts and MAC; never the diff bytes).
 *
 * @example
 * ```ts ignore
 * await recordVerifiedPatch(log, verified);
 * ```
 */
export async function recordVerifiedPatch(
  log: { append(input: { task?: string | null; kind: string; body: unknown }): Promise<LogRecord> },
  patch: VerifiedPatch,
): Promise<LogRecord> {
  return await log.append({
    task: patch.task,
    kind: LOG_KINDS.verifiedPatchMinted,
    body: patch.toJSON(),
  });
}
