/**
 * This process's uid, read the one way every permission set of the CLI allows: as the owner of
 * a directory it makes (Deno refuses `getuid` without `--allow-sys=uid`, and `/proc/self`
 * without `-A`). Read once, then kept.
 *
 * @module
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

let uid: number | null | undefined;

/**
 * This process's uid, or null when no directory can be made to tell.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { processUid } from "./process_uid.ts";
 * equal(typeof processUid(), "number");
 * ```
 */
export function processUid(): number | null {
  if (uid !== undefined) return uid;
  try {
    const dir = mkdtempSync(join(tmpdir(), "vouch-uid-"));
    try {
      uid = statSync(dir).uid;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  } catch {
    uid = null;
  }
  return uid;
}
