/**
 * Toolchains outside the system directories, found from `PATH`: what a PATH
 * entry exposes is only what its programs need.
 *
 * For a PATH dir D (its real path):
 *
 * - D itself is bound read-only (unless it is HOME, an ancestor of HOME, a
 *   shared top-level dir, inside or containing vouch's keys/state, containing
 *   the checkout, the worktree, another worktree or a `.git`);
 * - every program in D is followed through its symlinks to its real file, and
 *   the install root of that file's directory is bound: `<x>/bin`,
 *   `<x>/sbin`, `<x>/shims` give `<x>` (so `lib/`, `share/` come along), a
 *   `node_modules/...` path gives that `node_modules`, anything else its own
 *   directory. An install root is used only when it is safe as above, at
 *   least two levels deep, not a shared dir (`/var/tmp`, ...), not private
 *   (closed to others) outside HOME, and under a HOME (yours, `/root`,
 *   `/home/<x>`) never a HOME-level dir but an app's own dot-dir (`~/.cargo`,
 *   `~/.rustup`, `~/.pyenv`, `~/.deno`, ...) or a venv (it holds
 *   `pyvenv.cfg`), never a dir of the user's own (`~/projects`), and never one of, or a dir containing, HOME's secret or
 *   data dirs (`~/.ssh`, `~/.config`, `~/.local/share`, `~/.local/state`,
 *   ...). Otherwise the program's directory alone is bound, under the same
 *   rules: a program whose directory is HOME itself or a HOME-level dir of the
 *   user's own (`~/bin/tool -> ~/notes/tool.sh`) is bound as that FILE alone,
 *   never its directory. So
 *   `~/.local/bin` binds `~/.local/bin` and the real installs its links point
 *   to (`~/.local/share/pipx/venvs/x`), never `~/.local`; `/X/bin` beside a
 *   checkout `/X/proj` binds `/X/bin`, never `/X`.
 *
 * The decision is {@linkcode planToolchainRoots}, a pure function of the
 * scanned facts; {@linkcode toolchainMounts} scans and adds the masks of the
 * secrets beside each root (top-level credential files, `credentials*`, a
 * toolchain home's user config such as `.cargo/config.toml`, and private
 * entries: `isToolchainSecret` in `_toolchain_secrets.ts`).
 *
 * @module
 */
import { readFileSync } from "node:fs";
import process from "node:process";
import { basename, dirname, join } from "node:path";
import type { RootMount } from "./profile.ts";
import { direntsOrNone, lstatOrNull, realPathOrNull } from "./_quiet_fs.ts";
import { toolchainSecretMasks } from "./_toolchain_secrets.ts";
import { SYSTEM_DIRS } from "./_system_root.ts";

/**
 * HOME-relative dirs holding secrets or personal data: never mounted, and no mount contains
 * them (a root equal to or inside one is refused too).
 */
export const HOME_PRIVATE_DIRS: readonly string[] = [
  ".ssh",
  ".gnupg",
  ".config",
  ".aws",
  ".azure",
  ".kube",
  ".docker",
  ".password-store",
  ".local/share/keyrings",
  ".local/state",
  ".mozilla",
];

/** HOME-relative data dirs never mounted whole (a toolchain deeper inside them may be). */
const HOME_DATA_DIRS: readonly string[] = [".local", ".local/share", ".local/lib", ".cache"];

/** Dirs never mounted as such: shared or host-private trees. */
const NEVER_ROOTS = new Set([
  "/",
  "/home",
  "/root",
  "/tmp",
  "/var",
  "/var/tmp",
  "/var/lib",
  "/var/cache",
  "/run",
  "/run/user",
  "/srv",
  "/mnt",
  "/media",
  "/dev",
  "/dev/shm",
  "/proc",
  "/boot",
  "/nix",
]);

const BIN_NAMES = new Set(["bin", "sbin", "shims"]);

const within = (path: string, dir: string) =>
  path === dir || dir === "/" || path.startsWith(dir + "/");

/** Whether `path` is inside the system dirs (already bound) or `/usr/local`. */
export const isSystem = (path: string): boolean =>
  SYSTEM_DIRS.some((d) => within(path, d)) || within(path, "/usr/local");

/** What a toolchain scan yields. */
export interface Toolchains {
  /** Read-only mounts and masks, in order. */
  readonly mounts: readonly RootMount[];
  /** Environment the toolchains need because HOME is private (`RUSTUP_HOME`, `CARGO_HOME`). */
  readonly env: Readonly<Record<string, string>>;
}

/** What must never be mounted for a toolchain (HOME itself, key and state dirs, repositories). */
export interface ToolchainOptions {
  /** The user's HOME: never mounted whole, nor its private dirs. */
  readonly home?: string;
  /** Paths that must stay invisible: never mounted, never inside a mount. */
  readonly forbidden: readonly string[];
  /**
   * Paths no toolchain mount may contain or lie in (the worktree, the checkout, other
   * worktrees, `.git` dirs). Inside one, only a dependency install (a venv, a
   * `node_modules`) may be mounted (as the dependency views show it anyway).
   */
  readonly notContaining?: readonly string[];
  /** Programs run directly by absolute path (e.g. vouch's own runtime): their real dirs count too. */
  readonly programs?: readonly string[];
}

/** One scanned PATH dir. */
export interface PathDirScan {
  /** The entry's real path. */
  readonly dir: string;
  /** The real path of each program in it (symlinks followed; a plain file is `dir/name`). */
  readonly targets: readonly string[];
}

/** The file-system facts the planner asks about (answered by a scan, or a test). */
export interface PlanFacts {
  /** Whether `dir` is closed to others (not readable and searchable by them). */
  isPrivate(dir: string): boolean;
  /** Whether `dir` is a Python venv (holds `pyvenv.cfg`). */
  isVenv(dir: string): boolean;
  /** Whether `root/bin/rustup` exists (rustup's proxies then need `RUSTUP_HOME`). */
  hasRustup(root: string): boolean;
}

/** Input of {@linkcode planToolchainRoots}. */
export interface ToolchainPlanInput {
  /** The user's HOME. */
  readonly home?: string;
  /** Never mounted, never inside a mount: vouch's keys and state. */
  readonly forbidden: readonly string[];
  /** Never contained by (nor, but for dependency installs, inside) a mount. */
  readonly notContaining: readonly string[];
  /** The PATH dirs, scanned. */
  readonly pathDirs: readonly PathDirScan[];
  /** Real paths of programs run by absolute path. */
  readonly programs: readonly string[];
  /** The real `RUSTUP_HOME` to use when a root holds rustup (null: none). */
  readonly rustupHome?: (cargoRoot: string) => string | null;
}

/** What {@linkcode planToolchainRoots} decides. */
export interface ToolchainPlan {
  /** Dirs to bind read-only, none inside another, sorted. */
  readonly roots: readonly string[];
  /**
   * Program files bound read-only alone, none inside a root, sorted: a program whose real
   * directory is HOME itself or a HOME-level dir of the user's own (`~/notes/tool.sh`, linked
   * from `~/bin`), which is never bound.
   */
  readonly files: readonly string[];
  /** Environment to set (`RUSTUP_HOME`, `CARGO_HOME`). */
  readonly env: Readonly<Record<string, string>>;
}

/** The HOME-like base `dir` lies in (yours, `/root`, `/home/<x>`), or null. */
function homeBaseOf(dir: string, home: string | undefined): string | null {
  if (home !== undefined && home !== "/" && within(dir, home)) return home;
  if (within(dir, "/root")) return "/root";
  const m = /^\/home\/[^/]+/.exec(dir);
  return m !== null ? m[0] : null;
}

/**
 * Decides which dirs the toolchains on PATH are bound as (see the module
 * doc). Pure: the file system is asked only through `facts`.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { planToolchainRoots } from "./_toolchains.ts";
 * const facts = { isPrivate: () => false, isVenv: () => false, hasRustup: () => false };
 * const plan = planToolchainRoots({
 *   home: "/home/a",
 *   forbidden: ["/home/a/.local/state/vouch"],
 *   notContaining: ["/X/proj"],
 *   pathDirs: [
 *     { dir: "/home/a/.local/bin", targets: ["/home/a/.local/share/pipx/venvs/black/bin/black"] },
 *     { dir: "/X/bin", targets: ["/X/bin/tool"] },
 *     { dir: "/opt2/node/bin", targets: ["/opt2/node/bin/node"] },
 *   ],
 *   programs: [],
 * }, facts);
 * deepEqual(plan.roots, [
 *   "/X/bin",
 *   "/home/a/.local/bin",
 *   "/home/a/.local/share/pipx/venvs/black",
 *   "/opt2/node",
 * ]);
 * ```
 */
export function planToolchainRoots(input: ToolchainPlanInput, facts: PlanFacts): ToolchainPlan {
  const { home, forbidden, notContaining } = input;
  const dependencyInstall = (dir: string) => basename(dir) === "node_modules" || facts.isVenv(dir);
  const homeBad = (dir: string) => {
    const base = homeBaseOf(dir, home);
    if (base === null) return false;
    if (dir === base) return true;
    if (HOME_PRIVATE_DIRS.some((p) => within(dir, join(base, p)) || within(join(base, p), dir))) {
      return true;
    }
    return HOME_DATA_DIRS.some((p) => dir === join(base, p));
  };
  // Safe to bind as itself (a PATH dir, a program's own dir).
  const safe = (dir: string) =>
    dir.startsWith("/") && !NEVER_ROOTS.has(dir) && !isSystem(dir) &&
    !(home !== undefined && within(home, dir)) &&
    !forbidden.some((f) => within(dir, f) || within(f, dir)) &&
    !notContaining.some((p) => within(p, dir)) &&
    !notContaining.some((p) => within(dir, p) && !dependencyInstall(dir)) &&
    !homeBad(dir);
  // A HOME-level dir of the user's own (`~/projects`, `~/notes`): not an app's dot-dir, nor a venv.
  const usersOwn = (dir: string) => {
    const base = homeBaseOf(dir, home);
    return base !== null && dirname(dir) === base && !basename(dir).startsWith(".") &&
      !dependencyInstall(dir);
  };
  // Safe as an install root guessed from a program's dir (it brings more than was asked for).
  const safeRoot = (dir: string) => {
    if (!safe(dir) || dir.split("/").length < 3) return false;
    const base = homeBaseOf(dir, home);
    if (base === null) return !facts.isPrivate(dir);
    // HOME-level: an app's own dot-dir (`~/.cargo`, `~/.pyenv`, `~/.deno`, ...) or a venv; never
    // a dir of the user's (`~/projects`), nor the data dirs (`~/.local`).
    return !usersOwn(dir);
  };
  const installRoot = (binDir: string): string | null => {
    // npm: `node_modules/.bin/x -> ../pkg/bin/x.js`, native parts in sibling packages: the
    // whole node_modules is the install.
    const parts = binDir.split("/");
    const nm = parts.lastIndexOf("node_modules");
    if (nm > 0) {
      const modules = parts.slice(0, nm + 1).join("/");
      if (safeRoot(modules)) return modules;
    }
    const parent = dirname(binDir);
    if (BIN_NAMES.has(basename(binDir)) && safeRoot(parent)) return parent;
    // The program's own dir: under the same HOME rules as an install root (never a dir of the
    // user's own, `~/notes` for `~/bin/tool -> ~/notes/tool.sh`).
    return safe(binDir) && !usersOwn(binDir) ? binDir : null;
  };
  // A program whose dir is HOME or a dir of the user's own: the file alone (never its siblings).
  const fileAlone = (program: string) => {
    const dir = dirname(program);
    const base = homeBaseOf(dir, home);
    if (base === null || !(dir === base || usersOwn(dir))) return false;
    return !forbidden.some((f) => within(program, f) || within(f, program)) &&
      !notContaining.some((p) => within(program, p) || within(p, program)) &&
      !HOME_PRIVATE_DIRS.some((p) => within(program, join(base, p)));
  };
  const roots = new Set<string>();
  const files = new Set<string>();
  const addProgram = (program: string) => {
    const dir = dirname(program);
    if (isSystem(dir)) return;
    const root = installRoot(dir);
    if (root !== null) roots.add(root);
    else if (fileAlone(program)) files.add(program);
  };
  for (const { dir, targets } of input.pathDirs) {
    if (!isSystem(dir) && safe(dir)) roots.add(dir);
    for (const target of targets) addProgram(target);
  }
  for (const program of input.programs) addProgram(program);
  // rustup's proxies (`~/.cargo/bin/cargo` is rustup) read RUSTUP_HOME, by default under HOME.
  const env: Record<string, string> = {};
  for (const root of [...roots]) {
    if (!facts.hasRustup(root)) continue;
    const rustup = input.rustupHome?.(root) ?? null;
    if (rustup === null || !safeRoot(rustup)) continue;
    roots.add(rustup);
    env.RUSTUP_HOME = rustup;
    env.CARGO_HOME = root;
  }
  // A root inside another root is covered by it.
  const sorted = [...roots].sort();
  const kept = sorted.filter((r) => !sorted.some((o) => o !== r && within(r, o)));
  return {
    roots: kept,
    files: [...files].sort().filter((f) => !kept.some((r) => within(f, r))),
    env,
  };
}

const scans = new Map<string, readonly PathDirScan[]>();

/**
 * The PATH dirs with the real paths of their programs (cached per PATH). In a system dir only
 * the links that lead out of the system dirs count.
 */
function scanPath(path: string): readonly PathDirScan[] {
  const hit = scans.get(path);
  if (hit !== undefined) return hit;
  const out: PathDirScan[] = [];
  const seen = new Set<string>();
  for (const entry of path.split(":")) {
    if (!entry.startsWith("/")) continue;
    const dir = realPathOrNull(entry);
    if (dir === null || seen.has(dir)) continue;
    seen.add(dir);
    const system = isSystem(dir);
    const targets: string[] = [];
    for (const e of direntsOrNone(dir)) {
      if (e.isSymbolicLink()) {
        const target = realPathOrNull(join(dir, e.name));
        if (target !== null && !isSystem(dirname(target))) targets.push(target);
      } else if (!system && !e.isDirectory()) targets.push(join(dir, e.name));
    }
    out.push({ dir, targets });
  }
  scans.set(path, out);
  return out;
}

const HOST_FACTS: PlanFacts = {
  isPrivate: (dir) => {
    const info = lstatOrNull(dir);
    return info === null || (info.mode & 0o005) !== 0o005;
  },
  isVenv: (dir) => lstatOrNull(join(dir, "pyvenv.cfg"))?.isFile() === true,
  hasRustup: (root) => lstatOrNull(join(root, "bin", "rustup")) !== null,
};

function hostEnv(name: string): string | undefined {
  try {
    return process.env[name];
  } catch {
    return undefined;
  }
}

/**
 * Scans `path` (a `PATH` value) for toolchains outside the system dirs and
 * plans their mounts ({@linkcode planToolchainRoots}), each followed by the
 * masks of the secrets at its top.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { toolchainMounts } from "./_toolchains.ts";
 * deepEqual(toolchainMounts("/usr/bin:/bin", { forbidden: [] }).mounts, []);
 * ```
 */
export function toolchainMounts(path: string, opts: ToolchainOptions): Toolchains {
  const programs: string[] = [];
  for (const program of opts.programs ?? []) {
    const real = realPathOrNull(program);
    if (real !== null) programs.push(real);
  }
  const plan = planToolchainRoots({
    ...(opts.home !== undefined ? { home: opts.home } : {}),
    forbidden: opts.forbidden,
    notContaining: opts.notContaining ?? [],
    pathDirs: scanPath(path),
    programs,
    rustupHome: (root) => realPathOrNull(hostEnv("RUSTUP_HOME") ?? join(dirname(root), ".rustup")),
  }, HOST_FACTS);
  const mounts: RootMount[] = [];
  for (const root of plan.roots) {
    mounts.push({ kind: "ro", path: root }, ...toolchainSecretMasks(root));
  }
  for (const file of plan.files) {
    if (lstatOrNull(file)?.isFile() === true) mounts.push({ kind: "ro", path: file });
  }
  return { mounts, env: plan.env };
}

/**
 * What no toolchain mount may contain, for a tree whose git dirs are `gitPaths` (its `.git`,
 * gitdir and common dir, as `worktreeGitPaths` gives them): the tree, those dirs, the
 * checkout the common dir belongs to, and every other worktree registered in it.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { repositoryPaths } from "./_toolchains.ts";
 * deepEqual(repositoryPaths("/w", ["/w/.git"]), ["/w", "/w/.git"]);
 * ```
 */
export function repositoryPaths(tree: string, gitPaths: readonly string[]): string[] {
  const out = new Set<string>([tree, ...gitPaths]);
  const common = gitPaths.at(-1);
  if (common !== undefined) {
    if (basename(common) === ".git") out.add(dirname(common));
    for (const e of direntsOrNone(join(common, "worktrees"))) {
      const gitdirFile = join(common, "worktrees", e.name, "gitdir");
      try {
        const text = readFileSync(gitdirFile, "utf8").trim();
        if (text.startsWith("/")) out.add(realPathOrNull(dirname(text)) ?? dirname(text));
      } catch {
        // gone or unreadable: nothing to keep out
      }
    }
  }
  return [...out];
}
