/**
 * Where vouch keeps its throwaway worktrees: a vouch-owned directory outside
 * every repository, whose absolute path has NO dot-directory component (test
 * suites such as express's, through `send`, refuse to serve files under a
 * path containing `/.something/`, so a root under `~/.local/state` made their
 * own tests fail).
 *
 * Default root, first that applies:
 *
 * 1. `--worktree-root DIR` (the commands that create worktrees take it);
 * 2. `$VOUCH_WORKTREE_ROOT`;
 * 3. `<tmp>/vouch-<user>/worktrees`, where `<tmp>` is `$TMPDIR` when it is an
 *    absolute, dot-free path, else `/var/tmp` (disk-backed, survives a reboot
 *    so `vouch gc` can clean up), else `/tmp`; `<user>` is the account vouch
 *    runs as (`/etc/passwd`, `uid<N>` without an entry), not `$USER`, which
 *    `env -i`, services and `setpriv` leave unset or naming another account.
 *
 * The default per-user directory is created `0700`; one that already exists
 * as a symlink or open to group/others is refused (a shared temp dir is
 * writable by everyone). Inside the root: `<repo-key>/<task>-<attempt>[-verify]/`
 * holding `owner.json` (the ownership marker) and `tree/` (the checkout).
 *
 * @module
 */
import { createHash } from "node:crypto";
import { lstatSync, mkdtempSync, readFileSync, rmdirSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import process from "node:process";

function env(name: string): string | undefined {
  try {
    return process.env[name] || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The first dot-directory component of an absolute path (`.local` in
 * `/root/.local/state`), or `null` when there is none.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { dotDirectoryIn } from "./location.ts";
 * equal(dotDirectoryIn("/root/.local/state/vouch"), ".local");
 * equal(dotDirectoryIn("/var/tmp/vouch-root/worktrees"), null);
 * ```
 */
export function dotDirectoryIn(path: string): string | null {
  return path.split("/").find((part) => part.startsWith(".") && part !== "." && part !== "..") ??
    null;
}

function isDir(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Options of {@linkcode defaultWorktreeRoot} (the environment by default). */
export interface WorktreeRootOptions {
  /** Read the environment from here instead of the process. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The default worktree root (see the module doc): an absolute path.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { defaultWorktreeRoot, dotDirectoryIn } from "./location.ts";
 * const root = defaultWorktreeRoot({ env: { TMPDIR: "/scratch", USER: "ann" } });
 * equal(root, "/scratch/vouch-ann/worktrees");
 * equal(dotDirectoryIn(defaultWorktreeRoot({ env: { TMPDIR: "/home/ann/.tmp" } })), null);
 * equal(defaultWorktreeRoot({ env: { VOUCH_WORKTREE_ROOT: "/w" } }), "/w");
 * ```
 */
export function defaultWorktreeRoot(options: WorktreeRootOptions = {}): string {
  const get = (name: string) =>
    options.env !== undefined ? options.env[name] || undefined : env(name);
  const explicit = get("VOUCH_WORKTREE_ROOT");
  if (explicit) return resolve(explicit);
  const tmpdir = get("TMPDIR");
  const tmp = tmpdir !== undefined && isAbsolute(tmpdir) && dotDirectoryIn(tmpdir) === null
    ? tmpdir
    : isDir("/var/tmp")
    ? "/var/tmp"
    : "/tmp";
  // The account of the process's real uid, not $USER: `env -i`, a service, `setpriv` or `su`
  // without -l leave $USER unset or naming another account, whose 0700 directory is then not
  // ours (every worktree failed with EACCES as uid 65534 beside root's `/var/tmp/vouch-user`).
  const name = options.env !== undefined
    ? get("USER") ?? get("LOGNAME") ?? "user"
    : processUserName(resolve(tmp)) ?? get("USER") ?? get("LOGNAME") ?? "user";
  const user = name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 32);
  return join(resolve(tmp), `vouch-${user}`, "worktrees");
}

let ownUid: string | null | undefined;

/**
 * The name of the account this process runs as, from `/etc/passwd` (`uid<N>`
 * without an entry); null when it cannot tell. The uid is the owner of a
 * directory made for the purpose in `tmp` (once per process): the CLI's flags
 * grant reads and writes, not `--allow-sys=uid`, and Deno refuses `/proc/self`.
 */
function processUserName(tmp: string): string | null {
  if (ownUid === undefined) {
    ownUid = null;
    try {
      const probe = mkdtempSync(join(tmp, "vouch-uid-"));
      try {
        ownUid = String(statSync(probe).uid);
      } finally {
        rmdirSync(probe);
      }
    } catch {
      // Not writable: fall back to the environment.
    }
  }
  const uid = ownUid;
  if (uid === null) return null;
  try {
    for (const line of readFileSync("/etc/passwd", "utf8").split("\n")) {
      const f = line.split(":");
      if (f.length > 3 && f[2] === uid && f[0] !== "") return f[0]!;
    }
  } catch {
    // No passwd file: the number.
  }
  return `uid${uid}`;
}

/**
 * Checks the per-user directory of the default root after it was created
 * (`<tmp>/vouch-<user>`; nothing to check when `$VOUCH_WORKTREE_ROOT` is set): it must be a real directory (not a symlink) closed
 * to group and others. Returns the problem as a sentence, or `null`. Roots
 * given explicitly (flag, `VOUCH_WORKTREE_ROOT`) are the user's choice and
 * not checked.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { worktreeRootProblem } from "./location.ts";
 * equal(worktreeRootProblem("/nonexistent/vouch-ann/worktrees"), null);
 * ```
 */
export function worktreeRootProblem(
  root: string,
  options: WorktreeRootOptions = {},
): string | null {
  const explicit = options.env !== undefined
    ? options.env["VOUCH_WORKTREE_ROOT"]
    : env("VOUCH_WORKTREE_ROOT");
  if (explicit) return null;
  const owner = resolve(root, "..");
  let info;
  try {
    info = lstatSync(owner);
  } catch {
    return null;
  }
  if (info.isSymbolicLink()) {
    return `Cannot use worktree root ${root}: ${owner} is a symlink (set --worktree-root or VOUCH_WORKTREE_ROOT)`;
  }
  if ((info.mode & 0o077) !== 0) {
    return `Cannot use worktree root ${root}: ${owner} is open to other users (mode ${
      (info.mode & 0o777).toString(8)
    }); remove it or set --worktree-root / VOUCH_WORKTREE_ROOT`;
  }
  return null;
}

/**
 * Where earlier vouch versions put worktrees by default (`$XDG_STATE_HOME/vouch/worktrees`,
 * `$HOME/.local/state/vouch/worktrees`): `vouch gc` still cleans them up.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { legacyWorktreeRoots } from "./location.ts";
 * deepEqual(legacyWorktreeRoots({ env: { HOME: "/home/ann" } }), [
 *   "/home/ann/.local/state/vouch/worktrees",
 * ]);
 * ```
 */
export function legacyWorktreeRoots(options: WorktreeRootOptions = {}): string[] {
  const get = (name: string) =>
    options.env !== undefined ? options.env[name] || undefined : env(name);
  const out: string[] = [];
  const state = get("XDG_STATE_HOME");
  if (state !== undefined && isAbsolute(state)) out.push(join(state, "vouch", "worktrees"));
  const home = get("HOME");
  if (home !== undefined && isAbsolute(home)) {
    out.push(join(home, ".local", "state", "vouch", "worktrees"));
  }
  return [...new Set(out)];
}

/**
 * A short stable key for a repository path (first 16 hex of its SHA-256).
 *
 * @example
 * ```ts
 * import { repoKey } from "./location.ts";
 * if (repoKey("/a").length !== 16) throw new Error();
 * ```
 */
export function repoKey(repoTop: string): string {
  return createHash("sha256").update(repoTop).digest("hex").slice(0, 16);
}

/** Task ids are used in file names: letters, digits, `.`, `_`, `-`; 1-100 chars; no leading dot. */
export const TASK_ID_PATTERN: RegExp = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$/;
