/**
 * Detects writes outside the worktree, taken before a backend round and
 * compared after it. On top of the sandbox (which makes such writes fail),
 * this catches a backend that ran unconfined.
 *
 * One mechanism per kind of place:
 * - the user's checkout is judged by {@linkcode snapshotCheckout}
 *   (`adapters/git`): HEAD, refs, index, `git status`, the CONTENT of every
 *   dirty or untracked file, the ignored listing, config and hooks. A rewrite
 *   that keeps size and mtime is still seen.
 * - what git does not track is watched here by a stat walk (type, size, mode,
 *   mtime, ctime, inode, symlink target): the inside of the checkout's ignored
 *   entries (`node_modules/`, `build/`, ...), the git dir's other files
 *   (`info/exclude`, `modules/`, ...) and extra trees such as the worktree's
 *   container. One `find` process walks them all; it never reads file
 *   contents and never follows symlinks.
 *
 * @module
 */
import process from "node:process";
import { spawnChild } from "../process/_spawn.ts";
import {
  type CheckoutSnapshot,
  compareCheckoutSnapshots,
  snapshotCheckout,
} from "../git/checkout_snapshot.ts";
import { concatBytes } from "../bytes/concat.ts";

/** A watched tree and the relative paths inside it to skip. */
export interface WatchedTree {
  /** Absolute directory (or file). */
  readonly root: string;
  /** Relative paths (and everything below them) to skip. */
  readonly skip: readonly string[];
}

/** What to watch: the user's checkout and other trees. */
export interface OutsideScope {
  /** Top level of the user's checkout (judged by content), or `null` for none. */
  readonly checkout: string | null;
  /** Other trees, watched by stat (e.g. the worktree container minus the worktree). */
  readonly trees: readonly WatchedTree[];
}

/** A stat snapshot of several trees: `absolute path` -> fingerprint. */
export interface StatSnapshot {
  readonly entries: ReadonlyMap<string, string>;
  /** Whether the entry limit cut the walk short (then detection is partial). */
  readonly truncated: boolean;
}

/** Everything outside the worktree, before or after a round. */
export interface OutsideSnapshot {
  /** The watched checkout's top level (`null`: none watched). */
  readonly checkoutRoot: string | null;
  /** The checkout's content-aware snapshot; `null` when there is none or git could not read it. */
  readonly checkout: CheckoutSnapshot | null;
  /** Why the checkout could not be read (`null` when it was, or when none is watched). */
  readonly checkoutError: string | null;
  /** The stat-watched rest. */
  readonly stat: StatSnapshot;
}

/** Maximum entries walked per snapshot (bounded memory and time). */
export const MAX_WATCHED_ENTRIES = 200_000;

/**
 * Paths of the common git dir the stat walk skips: what vouch itself changes
 * while it works (objects written by `git add` in a worktree, worktree admin
 * dirs, reflogs, the index lock) and what {@linkcode snapshotCheckout} already
 * judges by content (HEAD, refs, index, config, hooks, attributes).
 */
export const GIT_DIR_SKIP: readonly string[] = [
  "objects",
  "worktrees",
  "logs",
  "index.lock",
  "index",
  "HEAD",
  "refs",
  "packed-refs",
  "config",
  "hooks",
  "info/attributes",
];

/** Starting points per `find` process (argv stays far below the system's limit). */
const ROOTS_PER_WALK = 500;

/**
 * `%p`, then type, mode, size, mtime, ctime (ns), inode and symlink target:
 * a directory's fingerprint is its type and mode only (what appears or goes
 * below it has fingerprints of its own), a symlink's its target, anything
 * else all of its stat data.
 */
const FORMAT = "%p\\0%y %m %s %T@ %C@ %i %l\\0";

/** A literal path as a `find -path` pattern. */
const escapeGlob = (path: string) => path.replace(/[\\*?[\]]/g, (c) => `\\${c}`);

/**
 * Takes a stat snapshot of `trees`: one `find` process walks them all (up to
 * {@linkcode ROOTS_PER_WALK} roots each), never following a symlink and never
 * reading a file's content, so a 30,000-entry `node_modules` costs a stat per
 * entry in C rather than a JavaScript call per entry.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { diffStatSnapshots, snapshotTrees } from "./outside_writes.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-"));
 * const before = await snapshotTrees([{ root: dir, skip: [] }]);
 * writeFileSync(`${dir}/escaped.txt`, "x");
 * const after = await snapshotTrees([{ root: dir, skip: [] }]);
 * if (diffStatSnapshots(before, after).length !== 1) throw new Error();
 * rmSync(dir, { recursive: true, force: true });
 * ```
 */
export async function snapshotTrees(trees: readonly WatchedTree[]): Promise<StatSnapshot> {
  const entries = new Map<string, string>();
  let truncated = false;
  for (let i = 0; i < trees.length && !truncated; i += ROOTS_PER_WALK) {
    const batch = trees.slice(i, i + ROOTS_PER_WALK);
    const prune: string[] = [];
    for (const tree of batch) {
      for (const rel of tree.skip) prune.push("-path", escapeGlob(`${tree.root}/${rel}`), "-o");
    }
    const args = [
      ...batch.map((t) => t.root.startsWith("/") ? t.root : `./${t.root}`),
      ...(prune.length > 0 ? ["(", ...prune.slice(0, -1), ")", "-prune", "-o"] : []),
      "-printf",
      FORMAT,
    ];
    const out = await runFind(args, MAX_WATCHED_ENTRIES * 512);
    truncated = out.truncated;
    const parts = out.text.split("\0");
    for (let j = 0; j + 1 < parts.length; j += 2) {
      if (entries.size >= MAX_WATCHED_ENTRIES) {
        truncated = true;
        break;
      }
      entries.set(parts[j]!, print(parts[j + 1]!));
    }
    // A root that does not exist (an ignored entry gone, a tree not made yet) says so.
    for (const tree of batch) if (!entries.has(tree.root)) entries.set(tree.root, "missing");
  }
  return { entries, truncated };
}

/** The fingerprint of one `find` record (see {@linkcode FORMAT}). */
function print(meta: string): string {
  const [type = "?", mode = "", size = "", mtime = "", ctime = "", ino = ""] = meta.split(" ", 6);
  if (type === "d") return `d:${mode}`;
  // The target may hold spaces: everything after the sixth space.
  if (type === "l") return `l:${meta.split(" ").slice(6).join(" ")}`;
  // ctime cannot be set back by the writer (`touch -r` restores mtime only).
  return `${type}:${size}:${mode}:${mtime}:${ctime}:${ino}`;
}

/** Runs `find` with `args`; keeps at most `maxBytes` of its output (then `truncated`). */
async function runFind(
  args: readonly string[],
  maxBytes: number,
): Promise<{ text: string; truncated: boolean }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  let stop: (() => void) | null = null;
  const child = await spawnChild({
    program: "find",
    args,
    cwd: "/",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LC_ALL: "C" },
    detached: false,
    stdin: undefined,
    openStdin: undefined,
    onStdout: (c) => {
      if (truncated) return;
      if (size + c.length > maxBytes) {
        truncated = true;
        stop?.();
        return;
      }
      chunks.push(c);
      size += c.length;
    },
    onStderr: () => {},
  });
  stop = () => child.kill("SIGKILL");
  if (truncated) stop();
  // Exit 1: something could not be read or vanished; what was read still counts (as before:
  // an unreadable directory shows up through its own fingerprint).
  await Promise.all([child.status, child.outDone, child.errDone]);
  const text = new TextDecoder().decode(concatBytes(chunks));
  // A record cut short by the kill is dropped with the rest.
  return {
    text: truncated ? text.slice(0, text.lastIndexOf("\0", text.length - 1)) : text,
    truncated,
  };
}

/**
 * Absolute paths created, removed or changed between two stat snapshots, sorted.
 *
 * @example
 * ```ts
 * import { diffStatSnapshots } from "./outside_writes.ts";
 * const a = { entries: new Map([["/x", "f:1:420:0"]]), truncated: false };
 * const b = { entries: new Map([["/x", "f:2:420:5"]]), truncated: false };
 * if (diffStatSnapshots(a, b)[0] !== "/x") throw new Error();
 * ```
 */
export function diffStatSnapshots(before: StatSnapshot, after: StatSnapshot): string[] {
  const changed: string[] = [];
  for (const [path, value] of before.entries) {
    if (after.entries.get(path) !== value) changed.push(path);
  }
  for (const path of after.entries.keys()) if (!before.entries.has(path)) changed.push(path);
  return changed.sort();
}

/**
 * Snapshots everything outside the worktree: the checkout by content
 * ({@linkcode snapshotCheckout}), then by stat what git does not track (its
 * ignored entries and the rest of its git dir) and `scope.trees`.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { diffOutsideSnapshots, snapshotOutside } from "./outside_writes.ts";
 * const container = mkdtempSync(join(tmpdir(), "vouch-example-"));
 * mkdirSync(join(container, "tree")); // the worktree itself: the backend may write there
 * const scope = { checkout: null, trees: [{ root: container, skip: ["tree"] }] };
 * const before = await snapshotOutside(scope);
 * writeFileSync(join(container, "tree", "fix.ts"), "inside: fine\n"); // ... the backend runs ...
 * writeFileSync(join(container, "planted.sh"), "outside: caught\n");
 * const writes = diffOutsideSnapshots(before, await snapshotOutside(scope));
 * deepEqual(writes, [join(container, "planted.sh")]);
 * rmSync(container, { recursive: true, force: true });
 * ```
 */
export async function snapshotOutside(scope: OutsideScope): Promise<OutsideSnapshot> {
  let checkout: CheckoutSnapshot | null = null;
  let checkoutError: string | null = null;
  const trees: WatchedTree[] = [];
  if (scope.checkout !== null) {
    try {
      checkout = await snapshotCheckout(scope.checkout);
      for (const entry of checkout.ignored) {
        trees.push({ root: `${scope.checkout}/${entry.replace(/\/$/, "")}`, skip: [] });
      }
      trees.push({ root: checkout.commonDir, skip: GIT_DIR_SKIP });
    } catch (error) {
      checkoutError = error instanceof Error ? error.message : String(error);
    }
  }
  trees.push(...scope.trees);
  return {
    checkoutRoot: scope.checkout,
    checkout,
    checkoutError,
    stat: await snapshotTrees(trees),
  };
}

/**
 * Every write outside the worktree between two snapshots, sorted: absolute
 * paths for files (content changes in the checkout, stat changes elsewhere),
 * `<checkout>/.git#<part>` for a changed part of the checkout's git state
 * (`status`, `refs`, `head`, `index`, `git-config`, `hooks`, `ignored`, ...).
 * A checkout git could not read, before or after, is a change too
 * (`#unreadable`): fail closed.
 *
 * @example
 * ```ts
 * import { diffOutsideSnapshots } from "./outside_writes.ts";
 * const checkout = {
 *   repo: "/r", parts: { status: "sha256:1" }, files: { "a.txt": "sha256:2" },
 *   commonDir: "/r/.git", ignored: [],
 * };
 * const stat = { entries: new Map(), truncated: false };
 * const before = { checkoutRoot: "/r", checkout, checkoutError: null, stat };
 * const after = { ...before, checkout: { ...checkout, files: { "a.txt": "sha256:3" } } };
 * if (diffOutsideSnapshots(before, after)[0] !== "/r/a.txt") throw new Error();
 * ```
 */
export function diffOutsideSnapshots(before: OutsideSnapshot, after: OutsideSnapshot): string[] {
  const changed = new Set(diffStatSnapshots(before.stat, after.stat));
  const b = before.checkout;
  const a = after.checkout;
  if (b !== null && a !== null) {
    for (const c of compareCheckoutSnapshots(b, a)) {
      changed.add(c.kind === "file" ? `${b.repo}/${c.name}` : `${b.repo}/.git#${c.name}`);
    }
  } else if (before.checkoutError !== null || after.checkoutError !== null) {
    changed.add(`${before.checkoutRoot ?? after.checkoutRoot ?? ""}/.git#unreadable`);
  }
  return [...changed].sort();
}
