/**
 * The paths a parsed patch changes, listed the way `git diff --name-status
 * --no-renames` lists them: one entry per path, `A` added, `D` deleted, `M`
 * modified (content or mode), `T` type change (a file that becomes a symlink,
 * or the reverse, which git writes as a deletion and a creation of the same
 * path); a rename or copy is its parts (the new path added, a renamed old path
 * deleted); sorted by the bytes of the path, as git sorts.
 *
 * @module
 */
import type { GitDiff } from "./types.ts";

/** One changed path, as `--name-status` names it. */
export interface ChangedPathEntry {
  /** Added, deleted, modified or type-changed. */
  readonly status: "A" | "D" | "M" | "T";
  /** The path. */
  readonly path: string;
}

/**
 * Lists the paths `diff` changes, as git's `--name-status --no-renames` would.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { parseGitDiff } from "./parse.ts";
 * import { changedPaths } from "./changed_paths.ts";
 * const diff = parseGitDiff(new TextEncoder().encode([
 *   "diff --git a/old.txt b/new.txt",
 *   "similarity index 100%",
 *   "rename from old.txt",
 *   "rename to new.txt",
 *   "diff --git a/a.txt b/a.txt",
 *   "old mode 100644",
 *   "new mode 100755",
 *   "",
 * ].join("\n")));
 * deepEqual(changedPaths(diff), [
 *   { status: "M", path: "a.txt" },
 *   { status: "A", path: "new.txt" },
 *   { status: "D", path: "old.txt" },
 * ]);
 * ```
 */
export function changedPaths(diff: GitDiff): ChangedPathEntry[] {
  const byPath = new Map<string, ChangedPathEntry["status"]>();
  const set = (path: string, status: "A" | "D" | "M") => {
    const before = byPath.get(path);
    // The same path deleted and created: git reports one type change.
    byPath.set(path, before === undefined || before === status ? status : "T");
  };
  for (const f of diff.files) {
    if (f.status === "added" || f.status === "copied") set(f.newPath!, "A");
    else if (f.status === "deleted") set(f.oldPath!, "D");
    else if (f.status === "renamed") {
      set(f.oldPath!, "D");
      set(f.newPath!, "A");
    } else {
      const path = f.newPath ?? f.oldPath!;
      const typeChanged = f.oldMode !== null && f.newMode !== null &&
        modeType(f.oldMode) !== modeType(f.newMode);
      byPath.set(path, typeChanged ? "T" : "M");
    }
  }
  return [...byPath].map(([path, status]) => ({ status, path }))
    .sort((a, b) => compareCodePoints(a.path, b.path));
}

/** The object type of a git mode (`100644` and `100755` are both files). */
function modeType(mode: string): string {
  return mode.slice(0, 2);
}

/** Code point order, which is the order of the strings' UTF-8 bytes (git's order). */
function compareCodePoints(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(j)!;
    if (x !== y) return x - y;
    i += x > 0xffff ? 2 : 1;
    j += y > 0xffff ? 2 : 1;
  }
  return (a.length - i) - (b.length - j);
}
