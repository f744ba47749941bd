/**
 * The sandbox an agent (codex, claude, `command:`) runs in: the checks'
 * allowlisted root plus the network, its worktree read-write, the main
 * repository's git view (`_git_view.ts`) read-only with a private object directory and index,
 * and a private HOME holding a per-run copy of the agent CLI's own state.
 */
import { realpathSync } from "node:fs";
import { cpSync, mkdirSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { bwrapProfile, worktreeGitPaths } from "./bwrap.ts";
import { DEFAULT_AGENT_LIMITS, type SandboxLimits } from "./limits.ts";
import { userMapOfHost } from "./_user_map.ts";
import type { BwrapSandbox, SandboxProfile } from "./profile.ts";

/** HOME-relative state each agent CLI needs, copied into its per-run HOME. */
export const AGENT_STATE_ENTRIES: Readonly<Record<string, readonly string[]>> = {
  codex: [".codex"],
  claude: [".claude", ".claude.json"],
};

/** Directories of an agent's state not worth copying (history, caches, logs). */
const SKIP_STATE_DIRS = new Set([
  "sessions",
  "log",
  "logs",
  "projects",
  "tmp",
  "cache",
  "shell-snapshots",
  "todos",
  "statsig",
  "file-history",
]);
const MAX_STATE_FILE_BYTES = 8 * 1024 * 1024;

/** Options of {@linkcode agentProfile}. */
export interface AgentProfileOptions {
  /** The agent's worktree (read-write). */
  readonly worktree: string;
  /** A fresh private directory for this run (read-write: HOME copy, git objects, index). */
  readonly scratch: string;
  /** The user's HOME (state is copied from it; it is never mounted). */
  readonly home?: string;
  /** HOME-relative state entries to copy (default: none). */
  readonly stateEntries?: readonly string[];
  /** Host directories the agent may write in place (e.g. an explicit `CODEX_HOME`). */
  readonly stateDirs?: readonly string[];
  /** Extra read-only paths (the `command:` program's directory). */
  readonly readOnly?: readonly string[];
  /** The key store (never visible). */
  readonly keyStoreDir?: string;
  /** bwrap executable. */
  readonly bwrapPath?: string;
  /** Limits (default {@linkcode DEFAULT_AGENT_LIMITS}). */
  readonly limits?: SandboxLimits;
}

function copyState(from: string, to: string): void {
  cpSync(from, to, {
    recursive: true,
    dereference: false,
    filter: (src) => {
      try {
        const s = statSync(src);
        if (s.isDirectory()) return src === from || !SKIP_STATE_DIRS.has(src.split("/").at(-1)!);
        return s.isFile() && s.size <= MAX_STATE_FILE_BYTES;
      } catch {
        return false;
      }
    },
  });
}

/**
 * Builds the agent's profile and prepares `scratch` (state copy, private git
 * object directory and index).
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdtempSync, realpathSync, rmSync } from "node:fs";
 * import { equal, ok } from "node:assert/strict";
 * import { agentProfile } from "./agent_profile.ts";
 * const wt = mkdtempSync(join(tmpdir(), "vouch-"));
 * const scratch = mkdtempSync(join(tmpdir(), "vouch-"));
 * const p = agentProfile({ worktree: wt, scratch, bwrapPath: "/usr/bin/bwrap", home: "/nonexistent-home" });
 * equal(p.shareNetwork, true);
 * ok(p.writable.includes(realpathSync(scratch)));
 * rmSync(wt, { recursive: true, force: true });
 * rmSync(scratch, { recursive: true, force: true });
 * ```
 */
export function agentProfile(options: AgentProfileOptions): BwrapSandbox {
  const scratch = realpathSync(options.scratch);
  const homeCopy = join(scratch, "home");
  const gitScratch = join(scratch, "git");
  mkdirSync(homeCopy, { recursive: true, mode: 0o700 });
  mkdirSync(join(gitScratch, "objects"), { recursive: true, mode: 0o700 });
  const home = options.home !== undefined && isAbsolute(options.home) ? options.home : null;
  if (home !== null) {
    for (const entry of options.stateEntries ?? []) {
      const src = join(home, entry);
      try {
        statSync(src);
      } catch {
        continue;
      }
      copyState(src, join(homeCopy, entry));
    }
  }
  // As root the agent is host uid 65534, and its trees are handed to that uid: a state dir of
  // the user's (an explicit `CODEX_HOME`) is never handed over (any `nobody` process could then
  // rewrite root's agent config): the agent writes a per-run copy, seen at the dir's own path.
  const mapped = userMapOfHost() !== null;
  const stateDirs = mapped ? [] : options.stateDirs ?? [];
  const stateViews = !mapped ? [] : (options.stateDirs ?? []).flatMap((dir, i) => {
    if (!isAbsolute(dir)) return [];
    const copy = join(scratch, "state", String(i));
    try {
      copyState(realpathSync(dir), copy);
    } catch {
      return [];
    }
    return [{ source: copy, path: realpathSync(dir), writable: true }];
  });
  const base = bwrapProfile({
    worktree: options.worktree,
    ...(home !== null ? { home } : {}),
    ...(options.keyStoreDir !== undefined ? { keyStoreDir: options.keyStoreDir } : {}),
    ...(options.bwrapPath !== undefined ? { bwrapPath: options.bwrapPath } : {}),
    extraWritable: [scratch, ...stateDirs],
    extraReadOnly: options.readOnly ?? [],
    limits: options.limits ?? DEFAULT_AGENT_LIMITS,
  });
  // git in the worktree reads the real objects, writes new ones privately, uses a private index.
  const gitPaths = worktreeGitPaths(base.writable[0]!);
  const gitEnv: Record<string, string> = {};
  const common = gitPaths.at(-1);
  if (common !== undefined) {
    gitEnv.GIT_OBJECT_DIRECTORY = join(gitScratch, "objects");
    gitEnv.GIT_ALTERNATE_OBJECT_DIRECTORIES = join(common, "objects");
    const gitdir = gitPaths.length > 1 ? gitPaths[1]! : common;
    try {
      cpSync(join(gitdir, "index"), join(gitScratch, "index"));
      gitEnv.GIT_INDEX_FILE = join(gitScratch, "index");
    } catch {
      // no index yet: git status works without one
    }
  }
  // As root, mapped like a check (its uid 0 is host uid 65534): the scratch (HOME copy, git
  // objects, index) is handed to that uid with the worktree before each child.
  return {
    ...base,
    shareNetwork: true,
    home: home ?? "/tmp/vouch-home",
    homeSource: homeCopy,
    ...(stateViews.length > 0 ? { views: [...(base.views ?? []), ...stateViews] } : {}),
    env: { ...base.env, ...gitEnv },
  };
}

/**
 * The profile an agent's tool commands run in (the native loop's
 * `run_command`, ACP `terminal/create`): the agent's own confinement with no
 * network at all (`--unshare-net`), whatever the agent process itself may
 * reach for its model (its egress forwarder, `launcher`, is dropped). `none`
 * is unchanged (it never isolated anything).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { toolCommandProfile } from "./agent_profile.ts";
 * const p = toolCommandProfile({ kind: "bwrap", bwrapPath: "/usr/bin/bwrap", writable: ["/wt"],
 *   readOnly: [], hiddenDirs: [], hiddenFiles: [], shareNetwork: true });
 * equal(p.kind === "bwrap" && p.shareNetwork, false);
 * ```
 */
export function toolCommandProfile<P extends SandboxProfile>(profile: P): P {
  if (profile.kind !== "bwrap") return profile;
  const { launcher: _egress, ...rest } = profile;
  return { ...rest, shareNetwork: false } as P;
}
