import { lstatSync, realpathSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import process from "node:process";
import { sha256Hex } from "../digest/sha256.ts";
import { KeyError } from "./errors.ts";

/** The environment variables key management reads. */
export interface KeyEnv {
  /** Overrides the MAC key file path. */
  readonly VOUCH_KEY_FILE?: string | undefined;
  /** Base of the state directory. */
  readonly XDG_STATE_HOME?: string | undefined;
  /** Fallback base: `$HOME/.local/state`. */
  readonly HOME?: string | undefined;
}

/** Reads {@linkcode KeyEnv} from the process environment. */
export function processKeyEnv(): KeyEnv {
  return {
    VOUCH_KEY_FILE: process.env["VOUCH_KEY_FILE"],
    XDG_STATE_HOME: process.env["XDG_STATE_HOME"],
    HOME: process.env["HOME"],
  };
}

/**
 * The directory that holds per-repository keys: `$XDG_STATE_HOME/vouch/keys`,
 * defaulting to `~/.local/state/vouch/keys`.
 *
 * @example
 * ```ts
 * import { keyDirectory } from "./paths.ts";
 * if (keyDirectory({ HOME: "/home/a" }) !== "/home/a/.local/state/vouch/keys") throw new Error();
 * if (keyDirectory({ XDG_STATE_HOME: "/s", HOME: "/h" }) !== "/s/vouch/keys") throw new Error();
 * ```
 */
export function keyDirectory(env: KeyEnv): string {
  const base = env.XDG_STATE_HOME && isAbsolute(env.XDG_STATE_HOME)
    ? env.XDG_STATE_HOME
    : env.HOME
    ? join(env.HOME, ".local", "state")
    : null;
  if (base === null) {
    throw new KeyError(
      "no_state_dir",
      "Cannot locate the key directory: set XDG_STATE_HOME, HOME or VOUCH_KEY_FILE",
    );
  }
  return join(base, "vouch", "keys");
}

/** Canonical absolute path of a directory (realpath when it exists). */
export function canonicalRepoRoot(repoRoot: string): string {
  try {
    return realpathSync(repoRoot);
  } catch {
    return resolve(repoRoot);
  }
}

/**
 * A stable id for a repository: the first 24 hex of SHA-256 of its real path.
 *
 * @example
 * ```ts
 * import { repositoryKeyId } from "./paths.ts";
 * if (repositoryKeyId("/nonexistent/repo").length !== 24) throw new Error();
 * ```
 */
export function repositoryKeyId(repoRoot: string): string {
  return sha256Hex(canonicalRepoRoot(repoRoot)).slice("sha256:".length, "sha256:".length + 24);
}

/** Throws `inside_worktree` when `file` lies inside `repoRoot`. */
export function assertOutsideRepository(file: string, repoRoot: string): void {
  const root = canonicalRepoRoot(repoRoot);
  let dir = resolve(file, "..");
  try {
    dir = realpathSync(dir);
  } catch {
    // not created yet: compare lexically
  }
  const rel = relative(root, join(dir, "x"));
  if (!rel.startsWith("..") && !isAbsolute(rel)) {
    throw new KeyError(
      "inside_worktree",
      `Cannot use key file ${file}: it is inside the repository ${root}, where a backend could read it`,
    );
  }
}

/**
 * The repository a path belongs to: the nearest ancestor directory (or the path
 * itself) containing `.git`, else the starting directory.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
 * import { findRepositoryRoot } from "./paths.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-"));
 * mkdirSync(`${dir}/.git`);
 * mkdirSync(`${dir}/a/b`, { recursive: true });
 * if (findRepositoryRoot(`${dir}/a/b`) !== realpathSync(dir)) throw new Error();
 * rmSync(dir, { recursive: true, force: true });
 * ```
 */
export function findRepositoryRoot(start: string): string {
  const first = canonicalRepoRoot(start);
  let dir = first;
  while (true) {
    try {
      lstatSync(join(dir, ".git"));
      return dir;
    } catch {
      const parent = resolve(dir, "..");
      if (parent === dir) return first;
      dir = parent;
    }
  }
}
