import {
  closeSync,
  constants,
  fdatasyncSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { execFileSync } from "node:child_process";
import { hostname } from "node:os";
import process from "node:process";
import { processStartTime } from "../process/start_time.ts";
import { EventLogError } from "./errors.ts";

/** What the lock file holds: who owns the log. */
export interface LockOwner {
  /** Process id of the writer. */
  readonly pid: number;
  /** Host name of the writer. */
  readonly host: string;
  /** The writer's start time from `/proc/<pid>/stat` (null where unavailable). */
  readonly start: string | null;
  /**
   * The kernel's boot id when the lock was taken (`/proc/sys/kernel/random/boot_id`;
   * null where unreadable, and in locks written before it was recorded). A
   * different boot id on the same host means the owner died with the boot.
   */
  readonly boot: string | null;
}

/** A held writer lock; release it with {@linkcode WriterLock.release}. */
export interface WriterLock {
  /** Path of the lock file. */
  readonly path: string;
  /** Whether a stale lock (dead owner) was broken to acquire this one. */
  readonly brokeStale: LockOwner | null;
  /** Removes the lock file. Safe to call twice. */
  release(): void;
}

function hostName(): string {
  try {
    return hostname();
  } catch {
    return "unknown";
  }
}

const BOOT_ID = "/proc/sys/kernel/random/boot_id";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
let bootCache: string | null | undefined;

/**
 * This boot's id. Read directly where the runtime allows it (Node, `deno -A`);
 * under the CLI's Deno flags `/proc` reads are refused ("Requires all access"),
 * so `/bin/sh` reads it with its `read` builtin (`/bin/sh` is in the CLI's
 * `--allow-run` list anyway, as the cgroup launcher; children are not bound by
 * Deno's permissions). Null where neither works (no `/proc`, no `/bin/sh`).
 */
export function bootId(): string | null {
  if (bootCache !== undefined) return bootCache;
  let text: string | null = null;
  try {
    text = readFileSync(BOOT_ID, "utf8");
  } catch {
    try {
      text = execFileSync("/bin/sh", ["-c", 'read -r id < "$1" && echo "$id"', "sh", BOOT_ID], {
        encoding: "utf8",
        timeout: 5_000,
        stdio: ["ignore", "pipe", "ignore"],
      });
    } catch {
      text = null;
    }
  }
  const id = text?.trim() ?? "";
  bootCache = UUID.test(id) ? id : null;
  return bootCache;
}

/**
 * Whether a process with this pid exists on this host: `kill(pid, 0)` (no
 * signal is sent), which the CLI's Deno flags allow (`--allow-run`) where
 * `/proc/<pid>` is refused. ESRCH: gone. EPERM: alive, someone else's. Null
 * when the question cannot be asked (no permission to signal at all).
 */
function pidAlive(pid: number): boolean | null {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === "ESRCH") return false;
    if (code === "EPERM") return true;
    // Deno without --allow-run refuses the call itself: ask /proc instead.
    try {
      statSync("/proc/self/stat");
    } catch {
      return null;
    }
    return processStartTime(pid) !== null;
  }
}

/**
 * Whether the owner recorded in a lock file is certainly gone: same host, and
 * either another boot (the boot id differs) or no process with its pid exists
 * (`kill(pid, 0)` says ESRCH), or `/proc` shows its pid now belongs to a
 * process with a different start time (pid reuse). Where none of this can be
 * asked, nothing is ever considered stale (a live owner's lock is never broken).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import process from "node:process";
 * import { hostname } from "node:os";
 * import { bootId, isStaleOwner } from "./lock.ts";
 * const host = hostname();
 * equal(isStaleOwner({ pid: process.pid, host, start: null, boot: bootId() }), false);
 * equal(isStaleOwner({ pid: process.pid, host: "elsewhere", start: null, boot: null }), false);
 * ```
 */
export function isStaleOwner(owner: LockOwner): boolean {
  if (owner.host !== hostName()) return false;
  const boot = bootId();
  if (owner.boot !== null && boot !== null && owner.boot !== boot) return true;
  const alive = pidAlive(owner.pid);
  if (alive === null) return false;
  if (!alive) return true;
  // Alive: pid reuse shows only where /proc can be read (a different start time).
  const start = processStartTime(owner.pid);
  return owner.start !== null && start !== null && owner.start !== start;
}

/** The locks this process holds (released on `release`, or all at once when leaving). */
const held = new Set<WriterLock>();

/**
 * Releases every writer lock this process holds, synchronously: for a process
 * that must leave at once (a second Ctrl-C) and would otherwise leave its
 * lock behind. Returns how many were released.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdtempSync, rmSync } from "node:fs";
 * import { equal, throws } from "node:assert/strict";
 * import { acquireWriterLock, releaseHeldWriterLocks } from "./lock.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-"));
 * acquireWriterLock(`${dir}/events.jsonl.lock`);
 * throws(() => acquireWriterLock(`${dir}/events.jsonl.lock`), { code: "locked" });
 * equal(releaseHeldWriterLocks(), 1);
 * acquireWriterLock(`${dir}/events.jsonl.lock`).release(); // free again
 * rmSync(dir, { recursive: true, force: true });
 * ```
 */
export function releaseHeldWriterLocks(): number {
  const locks = [...held];
  for (const lock of locks) lock.release();
  return locks.length;
}

/**
 * The note a command prints after taking over a dead writer's lock.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { staleLockNote } from "./lock.ts";
 * equal(
 *   staleLockNote({ pid: 7, host: "vm", start: null, boot: null }, "/r/.vouch/events.jsonl.lock"),
 *   "vouch: note: took over the lock /r/.vouch/events.jsonl.lock of pid 7 on vm (that process is gone)",
 * );
 * ```
 */
export function staleLockNote(owner: LockOwner, path: string): string {
  return `vouch: note: took over the lock ${path} of pid ${owner.pid} on ${owner.host} (that process is gone)`;
}

function readOwner(path: string): LockOwner | null {
  try {
    const v = JSON.parse(readFileSync(path, "utf8")) as Partial<LockOwner>;
    if (typeof v.pid === "number" && typeof v.host === "string") {
      return {
        pid: v.pid,
        host: v.host,
        start: typeof v.start === "string" ? v.start : null,
        boot: typeof v.boot === "string" ? v.boot : null,
      };
    }
    return null;
  } catch {
    return null;
  }
}

/**
 * Takes the single-writer lock `<log>.lock`: `{pid, host, start, boot}` is written to a
 * temp file created with `createNew`, which is then hard-linked to the lock path
 * (atomic, fails if it exists). If the file exists
 * and its owner is provably dead on this host, the stale lock is moved aside and
 * the acquisition retried once; otherwise throws `EventLogError("locked")`.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdtempSync, rmSync } from "node:fs";
 * import { throws } from "node:assert/strict";
 * import { acquireWriterLock } from "./lock.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-"));
 * const lock = acquireWriterLock(`${dir}/events.jsonl.lock`);
 * throws(() => acquireWriterLock(`${dir}/events.jsonl.lock`), { code: "locked" });
 * lock.release();
 * acquireWriterLock(`${dir}/events.jsonl.lock`).release(); // free again
 * rmSync(dir, { recursive: true, force: true });
 * ```
 */
export function acquireWriterLock(path: string): WriterLock {
  const me: LockOwner = {
    pid: process.pid,
    host: hostName(),
    start: processStartTime(process.pid),
    boot: bootId(),
  };
  let brokeStale: LockOwner | null = null;
  for (let attempt = 0; attempt < 2; attempt++) {
    // Write the owner into a private temp file first, then hard-link it into
    // place: link() is atomic and fails if the lock exists (like O_EXCL), and a
    // crash can never leave an empty, ownerless lock file behind.
    const tmp = `${path}.tmp-${process.pid}-${crypto.randomUUID()}`;
    try {
      const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
      try {
        const bytes = new TextEncoder().encode(JSON.stringify(me) + "\n");
        let off = 0;
        while (off < bytes.length) off += writeSync(fd, bytes, off);
        fdatasyncSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      throw new EventLogError("io", `Cannot create lock file ${path}: ${String(error)}`, {
        cause: error,
      });
    }
    try {
      linkSync(tmp, path);
    } catch (error) {
      rmSync(tmp, { force: true });
      if ((error as { code?: string } | null)?.code !== "EEXIST") {
        throw new EventLogError("io", `Cannot create lock file ${path}: ${String(error)}`, {
          cause: error,
        });
      }
      const owner = readOwner(path);
      if (attempt === 0 && owner !== null && isStaleOwner(owner)) {
        // Move the stale file aside (atomic) and retry once. Residual race,
        // documented: two processes breaking the same stale lock within the same
        // instant can both succeed; a live owner's lock is never broken.
        try {
          renameSync(path, `${path}.stale-${owner.pid}-${process.pid}`);
          rmSync(`${path}.stale-${owner.pid}-${process.pid}`);
        } catch {
          // someone else broke it first; retry the link
        }
        brokeStale = owner;
        continue;
      }
      const who = owner ? `pid ${owner.pid} on ${owner.host}` : "an unreadable owner";
      throw new EventLogError(
        "locked",
        `Cannot open log for writing: ${path} is held by ${who}; if that process is gone, remove the lock file`,
      );
    }
    rmSync(tmp);
    let released = false;
    const lock: WriterLock = {
      path,
      brokeStale,
      release() {
        if (released) return;
        released = true;
        held.delete(lock);
        const owner = readOwner(path);
        if (owner && owner.pid === me.pid && owner.start === me.start) {
          try {
            rmSync(path);
          } catch {
            // already gone
          }
        }
      },
    };
    held.add(lock);
    return lock;
  }
  throw new EventLogError(
    "locked",
    `Cannot open log for writing: ${path} is held by another writer`,
  );
}
