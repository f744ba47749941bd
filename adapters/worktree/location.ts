/**
 * Where vouch keeps its throwaway worktrees: a vouch-owned directory outside
 * every repository.
 *
 * Default root, first that applies: `$VOUCH_WORKTREE_ROOT`,
 * `$XDG_STATE_HOME/vouch/worktrees`, `$HOME/.local/state/vouch/worktrees`,
 * `<tmp>/vouch-worktrees`. Inside it: `<repo-key>/<task>-<attempt>[-verify]/`
 * holding `owner.json` (the ownership marker) and `tree/` (the checkout).
 *
 * @module
 */
import { createHash } from "node:crypto";
import { join } from "node:path";

function env(name: string): string | undefined {
  try {
    return Deno.env.get(name) || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The default worktree root (see the module doc).
 *
 * @example
 * ```ts
 * import { defaultWorktreeRoot } from "./location.ts";
 * if (!defaultWorktreeRoot().startsWith("/")) throw new Error();
 * ```
 */
export function defaultWorktreeRoot(): string {
  const explicit = env("VOUCH_WORKTREE_ROOT");
  if (explicit) return explicit;
  const state = env("XDG_STATE_HOME");
  if (state && state.startsWith("/")) return join(state, "vouch", "worktrees");
  const home = env("HOME");
  if (home && home.startsWith("/")) return join(home, ".local", "state", "vouch", "worktrees");
  return join(env("TMPDIR") ?? "/tmp", "vouch-worktrees");
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
