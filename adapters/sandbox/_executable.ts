/**
 * Whether a host program is there to run: the one check the sandbox's own helpers (bash for the
 * fd closer, setpriv for the user map) make before naming a path in a command line.
 *
 * @module
 */
import { statSync } from "node:fs";

/**
 * Whether `path` is a regular file with an execute bit.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { executable } from "./_executable.ts";
 * equal(executable("/bin/sh"), true);
 * equal(executable("/etc/hostname-nonexistent"), false);
 * ```
 */
export function executable(path: string): boolean {
  try {
    const s = statSync(path);
    return s.isFile() && (s.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}
