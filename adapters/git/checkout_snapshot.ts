/**
 * Detecting changes outside the worktree: a snapshot of the user's checkout
 * (HEAD, refs, index, `git status`, the content of every dirty or untracked
 * file, the ignored entries, `.git/config` and hooks) taken before a backend
 * runs and compared after.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { lstat, readdir, readFile, readlink } from "node:fs/promises";
import { join } from "node:path";
import { gitChecked, splitNul } from "./git_checked.ts";

/** A snapshot of the user's checkout. Compare two with {@linkcode compareCheckoutSnapshots}. */
export interface CheckoutSnapshot {
  readonly repo: string;
  /** Named components, each a `sha256:<hex>` digest of what it covers. */
  readonly parts: Readonly<Record<string, string>>;
  /** Per dirty/untracked path: a digest of its content (or its type and size). */
  readonly files: Readonly<Record<string, string>>;
  /** Absolute common git dir (for watchers of what git does not track). */
  readonly commonDir: string;
  /**
   * The ignored entries (`git ls-files --others --ignored --directory`; a
   * directory ends in `/`), `.vouch` excluded. Only their names are in `parts`;
   * a watcher that needs their contents walks them itself.
   */
  readonly ignored: readonly string[];
}

/** One difference between two snapshots. */
export interface CheckoutChange {
  /** `part` (e.g. `status`, `head`, `git-config`) or `file`. */
  readonly kind: "part" | "file";
  /** The part name or the path. */
  readonly name: string;
}

/** Entries vouch itself writes in the checkout (its state dir); not counted as changes. */
const VOUCH_OWN: ReadonlySet<string> = new Set([".vouch"]);

const MAX_HASH_BYTES = 64 * 1024 * 1024;

function digest(data: string | Uint8Array): string {
  return "sha256:" + createHash("sha256").update(data).digest("hex");
}

/**
 * Content digests already taken, by absolute path, with the stat data they were
 * taken at: a dirty file whose stat data did not move is not read again (two
 * snapshots per round read each dirty file once, not twice).
 */
const digestCache = new Map<string, { stat: string; digest: string }>();
const MAX_CACHED_DIGESTS = 10_000;
/**
 * Stat data is trusted only for files whose last change is this much older than
 * the read: node:fs may report the change time in whole seconds (Deno does), so
 * a rewrite later in that same second could otherwise keep every stamp.
 */
const SETTLED_MS = 2_500;

async function fileDigest(path: string): Promise<string> {
  try {
    const started = Date.now();
    const st = await lstat(path, { bigint: true });
    if (st.isSymbolicLink()) return digest("symlink:" + await readlink(path));
    if (st.isDirectory()) return "dir";
    if (st.size > MAX_HASH_BYTES) return `large:${st.size}:${st.mtimeMs}`;
    const stat = `${st.ino}:${st.size}:${st.mode}:${st.mtimeNs}:${st.ctimeNs}`;
    const cached = digestCache.get(path);
    if (cached !== undefined && cached.stat === stat) return cached.digest;
    const d = digest(await readFile(path));
    const changedMs = Number(st.ctimeNs > st.mtimeNs ? st.ctimeNs : st.mtimeNs) / 1e6;
    if (changedMs + SETTLED_MS < started) {
      if (digestCache.size >= MAX_CACHED_DIGESTS) digestCache.clear();
      digestCache.set(path, { stat, digest: d });
    } else {
      digestCache.delete(path);
    }
    return d;
  } catch {
    return "missing";
  }
}

async function dirListingDigest(
  dir: string,
  skip: ReadonlySet<string> = new Set(),
): Promise<string> {
  const entries: string[] = [];
  try {
    for (const name of await readdir(dir)) {
      const e = { name };
      if (skip.has(e.name)) continue;
      entries.push(`${e.name}:${await fileDigest(join(dir, e.name))}`);
    }
  } catch {
    return "missing";
  }
  return digest(entries.sort().join("\n"));
}

/**
 * Takes a snapshot of the checkout at `repo` (its top level) and its common git dir.
 *
 * @example
 * ```ts
 * import { deepEqual, ok } from "node:assert/strict";
 * import { execFileSync } from "node:child_process";
 * import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * const scratch = mkdtempSync(join(tmpdir(), "vouch-example-"));
 * const repo = join(scratch, "repo");
 * execFileSync("git", ["init", "-q", repo]);
 * writeFileSync(join(repo, "a.txt"), "a\n");
 * execFileSync("git", ["add", "."], { cwd: repo });
 * execFileSync("git", ["-c", "user.email=e@x", "-c", "user.name=e", "commit", "-qm", "init"], { cwd: repo });
 * const patch = new TextEncoder().encode(
 *   "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n",
 * );
 * import { compareCheckoutSnapshots, snapshotCheckout } from "./checkout_snapshot.ts";
 * const before = await snapshotCheckout(repo);
 * deepEqual(compareCheckoutSnapshots(before, await snapshotCheckout(repo)), []);
 * writeFileSync(join(repo, "a.txt"), "changed behind vouch's back\n"); // e.g. by the backend
 * const changes = compareCheckoutSnapshots(before, await snapshotCheckout(repo));
 * ok(changes.some((c) => c.kind === "file" && c.name === "a.txt"));
 * rmSync(scratch, { recursive: true, force: true });
 * ```
 */
export async function snapshotCheckout(repo: string): Promise<CheckoutSnapshot> {
  const g = (args: string[]) => gitChecked(args, { cwd: repo, timeoutMs: 120_000 });
  // Independent read-only queries (GIT_OPTIONAL_LOCKS=0: status never rewrites the index), run
  // side by side: a snapshot is taken twice per backend round.
  const [located, status, ignored, refs] = await Promise.all([
    // Common dir, git dir and HEAD's commit in one call; an unborn HEAD fails it, so ask again.
    g(["rev-parse", "--path-format=absolute", "--git-common-dir", "--git-dir", "HEAD"])
      .catch(() => g(["rev-parse", "--path-format=absolute", "--git-common-dir", "--git-dir"])),
    g(["status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignore-submodules=none"]),
    g(["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"]),
    g(["for-each-ref", "--format=%(refname) %(objectname)"]),
  ]);
  const [common = "", gitDir = "", head = "none"] = located.stdout.head.trim().split("\n");
  // HEAD's file says which branch it names ("ref: refs/heads/x") or the commit when detached.
  const symbolic = await readFile(join(gitDir, "HEAD"), "utf8").catch(() => "unreadable");
  const ignoredPaths = splitNul(ignored.stdout.head).filter((p) =>
    !VOUCH_OWN.has(p.replace(/\/$/, ""))
  );
  const paths: string[] = [];
  const entries = splitNul(status.stdout.head);
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    paths.push(e.slice(3));
    if (e[0] === "R" || e[0] === "C") i += 1; // the next entry is the source path
  }
  const digests = await Promise.all(paths.map((p) => fileDigest(join(repo, p))));
  const files: Record<string, string> = {};
  paths.forEach((p, i) => files[p] = digests[i]!);
  const [index, config, hooks, attributes, topLevel] = await Promise.all([
    fileDigest(join(gitDir, "index")),
    fileDigest(join(common, "config")),
    dirListingDigest(join(common, "hooks")),
    fileDigest(join(common, "info", "attributes")),
    dirListingDigest(repo, VOUCH_OWN),
  ]);
  return {
    repo,
    parts: {
      head: digest(head + "\n" + symbolic),
      status: digest(status.stdout.head),
      ignored: digest(ignoredPaths.join("\0")),
      refs: digest(refs.stdout.head),
      index,
      "git-config": config,
      hooks,
      "info-attributes": attributes,
      "top-level": topLevel,
    },
    files,
    commonDir: common,
    ignored: ignoredPaths,
  };
}

/**
 * Lists every difference between two snapshots (empty = untouched).
 *
 * @example
 * ```ts
 * import { compareCheckoutSnapshots } from "./checkout_snapshot.ts";
 * const s = { repo: "/r", parts: { status: "sha256:1" }, files: {}, commonDir: "/r/.git", ignored: [] };
 * const t = { ...s, parts: { status: "sha256:2" }, files: { "x": "sha256:3" } };
 * if (compareCheckoutSnapshots(s, t).length !== 2) throw new Error();
 * ```
 */
export function compareCheckoutSnapshots(
  before: CheckoutSnapshot,
  after: CheckoutSnapshot,
): CheckoutChange[] {
  const changes: CheckoutChange[] = [];
  const partNames = new Set([...Object.keys(before.parts), ...Object.keys(after.parts)]);
  for (const name of [...partNames].sort()) {
    if (before.parts[name] !== after.parts[name]) changes.push({ kind: "part", name });
  }
  const paths = new Set([...Object.keys(before.files), ...Object.keys(after.files)]);
  for (const name of [...paths].sort()) {
    if (before.files[name] !== after.files[name]) changes.push({ kind: "file", name });
  }
  return changes;
}
