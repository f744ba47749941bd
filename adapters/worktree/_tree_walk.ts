/**
 * Stat data of a whole tree, or of some paths in it, from ONE `find` process
 * (GNU findutils): type, inode, nanosecond change time, size and permission
 * bits of every entry, symlinks never followed and file contents never read.
 * One process printing every entry costs a few tens of milliseconds on a
 * 30,000-file tree, where a stat call per path from JavaScript costs seconds.
 * The change time is the one stamp no user-space call can set back (unlike
 * `mtime`); Deno's node:fs reports it in whole seconds only, `find` in
 * nanoseconds.
 *
 * @module
 */
import process from "node:process";
import { spawnChild } from "../process/_spawn.ts";
import { permissionDenied } from "../process/permission.ts";
import { concatBytes } from "../bytes/concat.ts";

/**
 * An entry's stat signature, `type inode ctime size mode` (`find`'s `%y %i
 * %C@ %s %m`): equal signatures mean an untouched entry. The type is its
 * first character (`f` file, `d` directory, `l` symlink, ...).
 */
export type EntrySig = string;

/**
 * The permission bits a signature records.
 *
 * @example
 * ```ts
 * import { sigMode } from "./_tree_walk.ts";
 * if (sigMode("d 12 1796131598.3935118950 4096 755") !== 0o755) throw new Error();
 * ```
 */
export function sigMode(sig: EntrySig): number {
  return parseInt(sig.slice(sig.lastIndexOf(" ") + 1), 8);
}

/** What {@linkcode walkTree} saw. */
export interface Walk {
  /** Relative path (`""` the root) -> its signature, parents before their children. */
  readonly entries: Map<string, EntrySig>;
  /** Whether `find` reported no error (an unreadable directory, a vanished path). */
  readonly complete: boolean;
  /** The newest change time of an entry, directories included (ms; 0 when none). */
  readonly newestCtimeMs: number;
  /** The same as `find` printed it (`sec.fraction`, `"0"` when none): exact, for `-newerct`. */
  readonly newestCtime: string;
}

/** Options of {@linkcode walkTree}. */
export interface WalkOptions {
  /** Only these relative paths (no descent); default: the whole tree. */
  readonly paths?: readonly string[];
  /** Relative paths of the top level to skip (and everything below them), e.g. `.git`. */
  readonly skipTop?: readonly string[];
  /**
   * Only entries whose change time is later than this (`sec.fraction`, see
   * {@linkcode Walk.newestCtime}): every entry is still stat-ed, but only what
   * changed is printed and parsed.
   */
  readonly changedAfter?: string;
}

const FORMAT = "%p\\0%y %i %C@ %s %m\\0";

/**
 * Walks `root` (or only `opts.paths` in it) with one `find` process.
 *
 * @example
 * ```ts
 * import { equal, ok } from "node:assert/strict";
 * import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { walkTree } from "./_tree_walk.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-example-"));
 * mkdirSync(join(dir, "src"));
 * writeFileSync(join(dir, "src", "a.ts"), "a\n");
 * const walk = await walkTree(dir);
 * ok(walk.complete);
 * equal(walk.entries.get("src")?.[0], "d");
 * equal(walk.entries.get("src/a.ts")?.[0], "f");
 * ok(walk.newestCtimeMs > 0);
 * rmSync(dir, { recursive: true, force: true });
 * ```
 */
export async function walkTree(root: string, opts: WalkOptions = {}): Promise<Walk> {
  const args: string[] = [];
  if (opts.paths !== undefined) {
    if (opts.paths.length === 0) {
      return { entries: new Map(), complete: true, newestCtimeMs: 0, newestCtime: "0" };
    }
    // Each path a starting point of its own (`./` first: never read as an expression).
    args.push(...opts.paths.map((p) => `./${p}`), "-maxdepth", "0", "-printf", FORMAT);
  } else {
    args.push(".");
    for (const top of opts.skipTop ?? []) {
      args.push("-path", `./${escapeGlob(top)}`, "-prune", "-o");
    }
    if (opts.changedAfter !== undefined) args.push("-newerct", `@${opts.changedAfter}`);
    args.push("-printf", FORMAT);
  }
  const chunks: Uint8Array[] = [];
  const child = await spawnChild({
    program: "find",
    args,
    cwd: root,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LC_ALL: "C" },
    detached: false,
    stdin: undefined,
    openStdin: undefined,
    onStdout: (c) => chunks.push(c),
    onStderr: () => {},
  }).catch((error) => {
    // Deno's --allow-run refusing `find` is a permission error naming the flag.
    throw permissionDenied(error) ?? error;
  });
  const [{ code }] = await Promise.all([child.status, child.outDone, child.errDone]);
  // 1: some entry could not be read (or vanished); the caller decides what that means.
  if (code !== 0 && code !== 1) throw new Error(`find exited ${code}`);
  const parts = new TextDecoder().decode(concatBytes(chunks)).split("\0");
  const entries = new Map<string, EntrySig>();
  let newest = 0;
  let newestCtime = "0";
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const raw = parts[i]!;
    const sig = parts[i + 1]!;
    entries.set(raw.length > 1 ? raw.slice(2) : "", sig);
    const from = sig.indexOf(" ", 2) + 1;
    const ctime = sig.slice(from, sig.indexOf(" ", from));
    const ctimeMs = Number(ctime) * 1000;
    if (ctimeMs > newest) {
      newest = ctimeMs;
      newestCtime = ctime;
    }
  }
  return { entries, complete: code === 0, newestCtimeMs: newest, newestCtime };
}

/** A literal path as a `find -path` pattern. */
function escapeGlob(path: string): string {
  return path.replace(/[\\*?[\]]/g, (c) => `\\${c}`);
}
