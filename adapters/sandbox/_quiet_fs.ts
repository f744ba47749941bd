/**
 * The file-system reads the sandbox's mount scans make: a path that vanished
 * or cannot be read is simply not there (null, or no entries), never an error,
 * and what must stay hidden is masked as the kind of entry it is.
 *
 * @module
 */
import type { Dirent, Stats } from "node:fs";
import { lstatSync, readdirSync, realpathSync } from "node:fs";
import type { RootMount } from "./profile.ts";

/**
 * `lstat` of `path`, or null when it cannot be read.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { lstatOrNull } from "./_quiet_fs.ts";
 * equal(lstatOrNull("/nonexistent/x"), null);
 * equal(lstatOrNull("/")?.isDirectory(), true);
 * ```
 */
export function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

/**
 * The canonical path of `path`, or null when it does not resolve.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { realPathOrNull } from "./_quiet_fs.ts";
 * equal(realPathOrNull("/nonexistent/x"), null);
 * equal(realPathOrNull("/"), "/");
 * ```
 */
export function realPathOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/**
 * The entries of directory `dir`, none when it cannot be listed.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { direntsOrNone } from "./_quiet_fs.ts";
 * deepEqual(direntsOrNone("/nonexistent/x"), []);
 * ```
 */
export function direntsOrNone(dir: string): Dirent[] {
  try {
    return [...readdirSync(dir, { withFileTypes: true })];
  } catch {
    return [];
  }
}

/**
 * The mount that hides `path` inside the sandbox: an empty directory over a
 * directory, an empty file over anything else.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { lstatSync } from "node:fs";
 * import { maskOf } from "./_quiet_fs.ts";
 * deepEqual(maskOf("/", lstatSync("/")), { kind: "mask-dir", path: "/" });
 * ```
 */
export function maskOf(path: string, info: Stats): RootMount {
  return info.isDirectory() ? { kind: "mask-dir", path } : { kind: "mask-file", path };
}
