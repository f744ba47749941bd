/**
 * Detecting changes outside the worktree: a snapshot of the user's checkout
 * (HEAD, refs, index, `git status`, the content of every dirty or untracked
 * file, the ignored entries, `.git/config` and hooks) taken before a backend
 * runs and compared after.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { gitChecked, splitNul } from "./git_checked.ts";

/** A snapshot of the user's checkout. Compare two with {@linkcode compareCheckoutSnapshots}. */
export interface CheckoutSnapshot {
  readonly repo: string;
  /** Named components, each a `sha256:<hex>` digest of what it covers. */
  readonly parts: Readonly<Record<string, string>>;
  /** Per dirty/untracked path: a digest of its content (or its type and size). */
  readonly files: Readonly<Record<string, string>>;
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

async function fileDigest(path: string): Promise<string> {
  try {
    const st = await Deno.lstat(path);
    if (st.isSymlink) return digest("symlink:" + await Deno.readLink(path));
    if (st.isDirectory) return "dir";
    if (st.size > MAX_HASH_BYTES) return `large:${st.size}:${st.mtime?.getTime() ?? 0}`;
    return digest(await Deno.readFile(path));
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
    for await (const e of Deno.readDir(dir)) {
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
 * ```ts ignore
 * import { compareCheckoutSnapshots, snapshotCheckout } from "./checkout_snapshot.ts";
 * const before = await snapshotCheckout(repo);
 * // ... run the backend ...
 * const changes = compareCheckoutSnapshots(before, await snapshotCheckout(repo));
 * ```
 */
export async function snapshotCheckout(repo: string): Promise<CheckoutSnapshot> {
  const g = (args: string[]) => gitChecked(args, { cwd: repo, timeoutMs: 120_000 });
  const common = (await g(["rev-parse", "--path-format=absolute", "--git-common-dir"])).stdout
    .head.trim();
  const gitDir = (await g(["rev-parse", "--path-format=absolute", "--git-dir"])).stdout.head.trim();
  const status = await g([
    "status",
    "--porcelain=v1",
    "-z",
    "--untracked-files=all",
    "--ignore-submodules=none",
  ]);
  const ignored = await g([
    "ls-files",
    "-z",
    "--others",
    "--ignored",
    "--exclude-standard",
    "--directory",
  ]);
  const refs = await g(["for-each-ref", "--format=%(refname) %(objectname)"]);
  const head = await g(["rev-parse", "HEAD"]).then((r) => r.stdout.head.trim()).catch(() => "none");
  const symbolic = await gitChecked(["symbolic-ref", "-q", "HEAD"], { cwd: repo })
    .then((r) => r.stdout.head.trim()).catch(() => "detached");
  const files: Record<string, string> = {};
  const entries = splitNul(status.stdout.head);
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    const path = e.slice(3);
    if (e[0] === "R" || e[0] === "C") i += 1; // the next entry is the source path
    files[path] = await fileDigest(join(repo, path));
  }
  return {
    repo,
    parts: {
      head: digest(head + "\n" + symbolic),
      status: digest(status.stdout.head),
      ignored: digest(
        splitNul(ignored.stdout.head).filter((p) => !VOUCH_OWN.has(p.replace(/\/$/, ""))).join(
          "\0",
        ),
      ),
      refs: digest(refs.stdout.head),
      index: await fileDigest(join(gitDir, "index")),
      "git-config": await fileDigest(join(common, "config")),
      hooks: await dirListingDigest(join(common, "hooks")),
      "info-attributes": await fileDigest(join(common, "info", "attributes")),
      "top-level": await dirListingDigest(repo, VOUCH_OWN),
    },
    files,
  };
}

/**
 * Lists every difference between two snapshots (empty = untouched).
 *
 * @example
 * ```ts
 * import { compareCheckoutSnapshots } from "./checkout_snapshot.ts";
 * const s = { repo: "/r", parts: { status: "sha256:1" }, files: {} };
 * const t = { repo: "/r", parts: { status: "sha256:2" }, files: { "x": "sha256:3" } };
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
