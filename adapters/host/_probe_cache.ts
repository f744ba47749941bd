/**
 * A bwrap that worked, remembered across runs of one user in one boot: the
 * sandbox probe (`bwrap --version` and a full sandboxed `true`, about 15
 * processes, 0.3 s of every `vouch run`'s start on a busy box) runs once per
 * boot instead of once per run. The key is the boot id, the uid, the bwrap
 * executable (path, device, inode, size, mtime) and prlimit's path: a reboot
 * or a changed bwrap probes again. Only a success is kept, in a file of the
 * user's own (mode 0600; a file someone else owns or may write is ignored).
 * Fail closed: a remembered success never confines less, a sandbox that broke
 * since fails its run's first start; `vouch doctor` always probes afresh and
 * forgets a success that no longer holds.
 *
 * @module
 */
import { lstatSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { bootId } from "../log/lock.ts";
import { prlimitPath } from "../process/_kernel_limits.ts";

/** What is remembered: the probe's bwrap availability. */
export interface RememberedBwrap {
  readonly available: true;
  readonly path: string;
  readonly version: string | null;
  readonly reason: null;
}

/** The file of this user's remembered probe in `dir`. */
function fileIn(dir: string, user: number): string {
  return join(dir, `vouch-sandbox-probe-${user}.json`);
}

/**
 * The key of a probe of `bwrapPath` by uid `user` here and now, or null when
 * there is none to trust (no boot id, no such executable). The uid is the
 * owner of a file the caller made (Deno's CLI flags refuse `getuid`).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { probeKey } from "./_probe_cache.ts";
 * equal(probeKey("/nonexistent/bwrap", 0), null);
 * ```
 */
export function probeKey(bwrapPath: string, user: number): string | null {
  const boot = bootId();
  if (boot === null) return null;
  let s;
  try {
    s = statSync(bwrapPath);
  } catch {
    return null;
  }
  if (!s.isFile()) return null;
  return JSON.stringify({
    v: 1,
    boot,
    uid: user,
    bwrap: [bwrapPath, s.dev, s.ino, s.size, s.mtimeMs],
    prlimit: prlimitPath(),
  });
}

/**
 * The success uid `user` remembered under `key` in `dir` (default the temp dir), or null.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { rememberedProbe } from "./_probe_cache.ts";
 * equal(rememberedProbe("no such key", 0, "/nonexistent"), null);
 * ```
 */
export function rememberedProbe(
  key: string,
  user: number,
  dir: string = tmpdir(),
): RememberedBwrap | null {
  const file = fileIn(dir, user);
  try {
    const info = lstatSync(file);
    if (!info.isFile() || info.uid !== user || (info.mode & 0o022) !== 0) return null;
    const data: unknown = JSON.parse(readFileSync(file, "utf8"));
    const d = data as { key?: unknown; path?: unknown; version?: unknown };
    if (d.key !== key || typeof d.path !== "string") return null;
    const version = typeof d.version === "string" ? d.version : null;
    return { available: true, path: d.path, version, reason: null };
  } catch {
    return null;
  }
}

/**
 * Remembers a probe's success (its bwrap and version line) under `key` in `dir` (default the temp dir);
 * never throws (a probe that cannot be remembered runs again next time).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { mkdtempSync, rmSync, statSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { rememberedProbe, rememberProbe } from "./_probe_cache.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-probe-"));
 * const me = statSync(dir).uid;
 * rememberProbe("k", me, "/usr/bin/bwrap", null, dir);
 * equal(rememberedProbe("k", me, dir)?.path, "/usr/bin/bwrap");
 * equal(rememberedProbe("another key", me, dir), null);
 * rmSync(dir, { recursive: true });
 * ```
 */
export function rememberProbe(
  key: string,
  user: number,
  path: string,
  version: string | null,
  dir: string = tmpdir(),
): void {
  const file = fileIn(dir, user);
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  try {
    const text = JSON.stringify({ key, path, version });
    writeFileSync(temp, text, { mode: 0o600, flag: "wx" });
    renameSync(temp, file);
  } catch {
    try {
      rmSync(temp, { force: true });
    } catch { /* left in the temp dir */ }
  }
}

/**
 * Forgets uid `user`'s remembered probe in `dir` (a fresh probe failed); never throws.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { mkdtempSync, rmSync, statSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { forgetProbe, rememberedProbe, rememberProbe } from "./_probe_cache.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-probe-"));
 * const me = statSync(dir).uid;
 * rememberProbe("k", me, "/usr/bin/bwrap", null, dir);
 * forgetProbe(me, dir);
 * equal(rememberedProbe("k", me, dir), null);
 * rmSync(dir, { recursive: true });
 * ```
 */
export function forgetProbe(user: number, dir: string = tmpdir()): void {
  try {
    const file = fileIn(dir, user);
    if (lstatSync(file).uid === user) rmSync(file, { force: true });
  } catch {
    // nothing remembered
  }
}
