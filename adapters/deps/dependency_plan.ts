/**
 * The stated answer to "a fresh worktree has no installed dependencies":
 *
 * - When the patch touches no dependency manifest or lockfile, the base
 *   checkout's installed dependency directories (`node_modules`, `.venv`,
 *   `venv`, `vendor`, `target`, at any depth, untracked or ignored, real
 *   directories or symlinks to one) are given to the clean tree as private,
 *   writable copies at the same relative path (copy-on-write clones where the
 *   filesystem supports them), so checks see exactly what the user's tree had,
 *   may write caches into them (eslint's `node_modules/.cache`), and never
 *   change the user's.
 * - When the contract declares `setup` commands, nothing is copied: setup
 *   installs into the clean tree itself.
 * - A patch that changes dependency manifests or lockfiles without setup is
 *   refused: it cannot be verified against dependencies that do not match it.
 * - A patch that writes under one of the installed dependency directories the
 *   clean tree is to get (`venv/bin/python`, `vendor/x/assert.go`) is refused
 *   too: its files would take the place of the user's directory, and the checks
 *   would run with the patch's interpreter or libraries.
 *
 * @module
 */
import { stat } from "node:fs/promises";
import { classifyPath } from "../../kernel/scope/classify.ts";
import { gitChecked, splitNul } from "../git/git_checked.ts";

/** Directory names treated as installed dependencies. */
export const DEPENDENCY_DIR_NAMES: readonly string[] = [
  "node_modules",
  ".venv",
  "venv",
  "vendor",
  "target",
];

/** Why a patch cannot be verified with the user's installed dependencies (stable codes). */
export type DependencyRefusalCode = "dependency_change_needs_setup" | "patch_writes_dependency_dir";

/** What to do about dependencies in the clean tree. */
export type DependencyPlan =
  | {
    /** Copy the user's installed dependency dirs (relative paths) into the clean tree. */
    readonly mode: "copy";
    readonly dirs: readonly string[];
  }
  | {
    /** Run the contract's setup commands in the clean tree; copy nothing. */
    readonly mode: "setup";
    /** Manifests/lockfiles the patch changes (may be empty). */
    readonly manifests: readonly string[];
  }
  | {
    /** Cannot verify: the patch changes manifests/lockfiles and there is no setup. */
    readonly mode: "refuse";
    readonly code: DependencyRefusalCode;
    /** Manifests/lockfiles the patch changes (empty for `patch_writes_dependency_dir`). */
    readonly manifests: readonly string[];
    /** A user-facing explanation. */
    readonly reason: string;
  };

/**
 * The changed paths that are dependency manifests or lockfiles.
 *
 * @example
 * ```ts
 * import { dependencyManifests } from "./dependency_plan.ts";
 * const m = dependencyManifests(["src/a.ts", "package.json", "web/yarn.lock"]);
 * if (m.join() !== "package.json,web/yarn.lock") throw new Error(m.join());
 * ```
 */
export function dependencyManifests(changed: readonly string[]): string[] {
  return changed.filter((p) =>
    classifyPath(p).some((c) => c === "dependency_manifest" || c === "lockfile")
  );
}

/**
 * Finds the installed dependency directories of a checkout: untracked or
 * ignored directories (or symlinks to directories) named like
 * {@linkcode DEPENDENCY_DIR_NAMES}, at any depth (outermost only), as
 * repository-relative paths. Tracked directories (a committed `vendor/`, also
 * one with untracked files inside) are part of every worktree already and not
 * listed.
 *
 * @example
 * ```ts ignore
 * import { findDependencyDirs } from "./dependency_plan.ts";
 * console.log(await findDependencyDirs("/path/to/repo")); // ["node_modules", "web/node_modules"]
 * ```
 */
export async function findDependencyDirs(repo: string): Promise<string[]> {
  const names = new Set(DEPENDENCY_DIR_NAMES);
  const found = new Set<string>();
  for (const extra of [["--ignored", "--exclude-standard"], ["--exclude-standard"]]) {
    const r = await gitChecked(["ls-files", "-z", "--others", "--directory", ...extra], {
      cwd: repo,
      timeoutMs: 120_000,
    });
    for (const entry of splitNul(r.stdout.head)) {
      // A symlinked dependency dir is listed like a file (no trailing slash).
      const rel = entry.endsWith("/") ? entry.slice(0, -1) : entry;
      const parts = rel.split("/");
      if (!entry.endsWith("/") && !names.has(parts.at(-1)!)) continue;
      // With --directory git lists the outermost untracked dir: a dependency dir is listed
      // itself when none of it is tracked. A deeper entry (`vendor/x/.cache/` of a committed
      // vendor/) is a tracked dir's untracked part: in every worktree already, never provided.
      if (!names.has(parts.at(-1)!)) continue;
      found.add(rel);
    }
  }
  const outermost = [...found].sort().filter((p, _i, all) =>
    !all.some((q) => q !== p && p.startsWith(q + "/"))
  );
  const present: string[] = [];
  for (const rel of outermost) {
    // Follows a symlink: `node_modules -> ../shared/node_modules` counts when it points at a dir.
    const info = await stat(`${repo}/${rel}`).catch(() => null);
    if (info?.isDirectory()) present.push(rel);
  }
  return present;
}

/**
 * Decides how the clean tree gets its dependencies.
 *
 * @example
 * ```ts
 * import { planDependencies } from "./dependency_plan.ts";
 * const p = planDependencies(["package.json"], ["node_modules"], { hasSetup: false });
 * if (p.mode !== "refuse") throw new Error();
 * const q = planDependencies(["src/x.js"], ["node_modules"], { hasSetup: false });
 * if (q.mode !== "copy" || q.dirs[0] !== "node_modules") throw new Error();
 * ```
 */
export function planDependencies(
  changed: readonly string[],
  installedDirs: readonly string[],
  opts: {
    readonly hasSetup: boolean;
    /** Every path the patch writes, when `changed` leaves some out (default: `changed`). */
    readonly written?: readonly string[];
  },
): DependencyPlan {
  const manifests = dependencyManifests(changed);
  if (opts.hasSetup) return { mode: "setup", manifests };
  if (manifests.length > 0) {
    return {
      mode: "refuse",
      code: "dependency_change_needs_setup",
      manifests,
      reason: `Cannot verify: the patch changes dependency manifest or lockfile ${
        manifests.slice(0, 5).join(", ")
      }${manifests.length > 5 ? ", ..." : ""}; the installed dependencies${
        installedDirs.length > 0 ? ` (${installedDirs.join(", ")})` : ""
      } would not match it. Declare setup commands in the contract (for example \`npm ci\`) so vouch installs them in the clean tree.`,
    };
  }
  const hit = dependencyDirWrite(opts.written ?? changed, installedDirs);
  if (hit !== null) {
    return {
      mode: "refuse",
      code: "patch_writes_dependency_dir",
      manifests: [],
      reason:
        `Cannot verify: the patch writes ${hit.path} under ${hit.dir}/, the installed dependency directory vouch gives the clean tree from your checkout; the checks would run with the patch's files there instead of yours. Leave ${hit.dir}/ out of the patch (or commit it, if it is source).`,
    };
  }
  return { mode: "copy", dirs: [...installedDirs] };
}

/**
 * The first of `written` (repository-relative paths the patch adds, changes,
 * deletes or renames to) that is one of `installedDirs` or under one, with
 * that directory; null when none is.
 *
 * @example
 * ```ts
 * import { dependencyDirWrite } from "./dependency_plan.ts";
 * const hit = dependencyDirWrite(["calc.py", "venv/bin/python"], ["venv", "web/node_modules"]);
 * if (hit?.dir !== "venv" || hit.path !== "venv/bin/python") throw new Error();
 * if (dependencyDirWrite(["venvs/x.py", "web/node_modules.md"], ["venv", "web/node_modules"])) {
 *   throw new Error();
 * }
 * ```
 */
export function dependencyDirWrite(
  written: readonly string[],
  installedDirs: readonly string[],
): { readonly dir: string; readonly path: string } | null {
  if (installedDirs.length === 0) return null;
  for (const path of written) {
    const dir = installedDirs.find((d) => path === d || path.startsWith(d + "/"));
    if (dir !== undefined) return { dir, path };
  }
  return null;
}
