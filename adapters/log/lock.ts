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
import { hostname } from "node:os";
import process from "node:process";
import { EventLogError } from "./errors.ts";

/** What the lock file holds: who owns the log. */
export interface LockOwner {
  /** Process id of the writer. */
  readonly pid: number;
  /** Host name of the writer. */
  readonly host: string;
  /** The writer's start time from `/proc/<pid>/stat` (null where unavailable). */
  readonly start: string | null;
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

function procStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 22 (starttime); the comm field may contain spaces, so split after ")".
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return rest[19] ?? null;
  } catch {
    return null;
  }
}

function hostName(): string {
  try {
    return hostname();
  } catch {
    return "unknown";
  }
}

/**
 * Whether the owner recorded in a lock file is certainly gone: same host, and
 * `/proc/<pid>` is missing or belongs to a process with a different start time
 * (pid reuse). Where `/proc` is unavailable nothing is ever considered stale.
 */
export function isStaleOwner(owner: LockOwner): boolean {
  if (owner.host !== hostName()) return false;
  let procAvailable = false;
  try {
    statSync("/proc/self/stat");
    procAvailable = true;
  } catch {
    procAvailable = false;
  }
  if (!procAvailable) return false;
  const start = procStart(owner.pid);
  if (start === null) return true;
  return owner.start !== null && owner.start !== start;
}

function readOwner(path: string): LockOwner | null {
  try {
    const v = JSON.parse(readFileSync(path, "utf8")) as Partial<LockOwner>;
    if (typeof v.pid === "number" && typeof v.host === "string") {
      return { pid: v.pid, host: v.host, start: typeof v.start === "string" ? v.start : null };
    }
    return null;
  } catch {
    return null;
  }
}

/**
 * Takes the single-writer lock `<log>.lock`: `{pid, host, start}` is written to a
 * temp file created with `createNew`, which is then hard-linked to the lock path
 * (atomic, fails if it exists). If the file exists
 * and its owner is provably dead on this host, the stale lock is moved aside and
 * the acquisition retried once; otherwise throws `EventLogError("locked")`.
 *
 * @example
 * ```ts
 * import { throws } from "node:assert/strict";
 * import { acquireWriterLock } from "./lock.ts";
 * const dir = Deno.makeTempDirSync();
 * const lock = acquireWriterLock(`${dir}/events.jsonl.lock`);
 * throws(() => acquireWriterLock(`${dir}/events.jsonl.lock`), { code: "locked" });
 * lock.release();
 * acquireWriterLock(`${dir}/events.jsonl.lock`).release(); // free again
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function acquireWriterLock(path: string): WriterLock {
  const me: LockOwner = { pid: process.pid, host: hostName(), start: procStart(process.pid) };
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
    return {
      path,
      brokeStale,
      release() {
        if (released) return;
        released = true;
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
  }
  throw new EventLogError(
    "locked",
    `Cannot open log for writing: ${path} is held by another writer`,
  );
}
