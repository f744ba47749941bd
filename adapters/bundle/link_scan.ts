/**
 * What the outer sandbox of a bundle evaluation cannot hold: both Deno's
 * `--allow-read=DIR` and Node's `--allow-fs-read=DIR` check the path a read
 * names, then follow symbolic links, so a symlink inside the granted bundle
 * reads any file outside it (and a hard link is another name of a file that
 * may live anywhere on the same file system). The evaluator itself refuses
 * both (`files.ts`: lstat per component, one link), but the permission layer
 * is there for an evaluator that is exploited; so before granting the bundle,
 * the parent walks it with `lstat` and refuses (fail closed) a symlink whose
 * `realpath` leaves the bundle or cannot be resolved, a regular file with more
 * than one link, and a tree too large or too deep to walk.
 *
 * @module
 */
import { lstat, opendir, realpath } from "node:fs/promises";
import { isAbsolute, join, relative } from "node:path";

/** Bounds of the walk (the same as the evaluator's own listing). */
export interface LinkScanOptions {
  /** @default 10000 */
  readonly maxEntries?: number;
  /** @default 32 */
  readonly maxDepth?: number;
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * `null` when no entry of the bundle leads outside it, else why it may not be
 * granted (one line naming the entry). Never throws: an error is a refusal.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
 * import { equal, match } from "node:assert/strict";
 * import { findEscapingLink } from "./link_scan.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-"));
 * mkdirSync(`${dir}/b`);
 * writeFileSync(`${dir}/b/a.txt`, "a");
 * symlinkSync("a.txt", `${dir}/b/inner`);
 * equal(await findEscapingLink(`${dir}/b`), null);
 * symlinkSync("/etc/passwd", `${dir}/b/out`);
 * match((await findEscapingLink(`${dir}/b`))!, /out is a symbolic link leaving the bundle/);
 * rmSync(dir, { recursive: true, force: true });
 * ```
 */
export async function findEscapingLink(
  bundleDir: string,
  options: LinkScanOptions = {},
): Promise<string | null> {
  const maxEntries = options.maxEntries ?? 10_000;
  const maxDepth = options.maxDepth ?? 32;
  let root: string;
  try {
    root = await realpath(bundleDir);
  } catch {
    return null; // no bundle, nothing to reach through it: the evaluator reports it missing
  }
  let seen = 0;
  const walk = async (dir: string, prefix: string, depth: number): Promise<string | null> => {
    if (depth > maxDepth) return `the bundle nests deeper than ${maxDepth} directories`;
    for await (const entry of await opendir(dir)) {
      if (++seen > maxEntries) return `the bundle has more than ${maxEntries} entries`;
      const path = join(dir, entry.name);
      const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      const info = await lstat(path);
      if (info.isSymbolicLink()) {
        let target: string;
        try {
          target = await realpath(path);
        } catch {
          return `${rel} is a symbolic link that cannot be resolved (dangling or looping)`;
        }
        if (!inside(root, target)) return `${rel} is a symbolic link leaving the bundle`;
      } else if (info.isDirectory()) {
        const problem = await walk(path, rel, depth + 1);
        if (problem !== null) return problem;
      } else if (info.isFile() && info.nlink !== 1) {
        return `${rel} has ${info.nlink} hard links (another name may be outside the bundle)`;
      }
    }
    return null;
  };
  try {
    return await walk(root, "", 0);
  } catch (error) {
    return `the bundle cannot be walked: ${(error as Error).message}`;
  }
}
