/**
 * Toolchains outside the system directories (pyenv, nvm, `~/.deno`,
 * `~/.cargo/bin` + rustup, `/usr/local/bin/x -> ~/...` links): found from
 * `PATH`, followed through symlinks to their real install directories, which
 * are mounted read-only with the secrets beside them masked.
 */
import process from "node:process";
import { basename, dirname, join } from "node:path";
import type { RootMount } from "./profile.ts";
import { direntsOrNone, lstatOrNull, maskOf, realPathOrNull } from "./_quiet_fs.ts";
import { SYSTEM_DIRS } from "./_system_root.ts";

/** File names inside a toolchain directory that hold credentials and stay hidden. */
export const TOOLCHAIN_SECRET_NAMES: readonly string[] = [
  "credentials",
  "credentials.toml",
  ".credentials.json",
  "auth.json",
  ".netrc",
  ".npmrc",
  ".pypirc",
  ".git-credentials",
  ".env",
  "config.json",
];

const BIN_NAMES = new Set(["bin", "sbin", "shims"]);

const within = (path: string, dir: string) => path === dir || path.startsWith(dir + "/");
const isSystem = (path: string) =>
  SYSTEM_DIRS.some((d) => within(path, d)) || path === "/usr/local" || within(path, "/usr/local");

/** What a toolchain scan yields. */
export interface Toolchains {
  /** Read-only mounts and masks, in order. */
  readonly mounts: readonly RootMount[];
  /** Environment the toolchains need because HOME is private (`RUSTUP_HOME`, `CARGO_HOME`). */
  readonly env: Readonly<Record<string, string>>;
}

/** What must never be mounted for a toolchain (HOME itself, key and state dirs, repositories). */
export interface ToolchainOptions {
  /** The user's HOME: never mounted whole. */
  readonly home?: string;
  /** Paths that must stay invisible: never mounted; the caller masks them inside a mounted root. */
  readonly forbidden: readonly string[];
  /** Paths a toolchain root must not contain (the worktree, the checkout): it is narrowed or skipped. */
  readonly notContaining?: readonly string[];
  /** Programs run directly by absolute path (e.g. vouch's own runtime): their real dirs count too. */
  readonly programs?: readonly string[];
}

/**
 * The install root of a real executable's directory: `~/.nvm/versions/node/v22/bin`
 * gives `~/.nvm/versions/node/v22`; a dir not named bin/sbin/shims is its own root.
 */
function installRoot(binDir: string, opts: ToolchainOptions): string | null {
  const allowed = (dir: string) =>
    dir !== "/" && !(opts.home !== undefined && within(opts.home, dir)) &&
    !opts.forbidden.some((f) => within(dir, f)) &&
    !(opts.notContaining ?? []).some((p) => within(p, dir));
  // npm: `node_modules/.bin/x -> ../pkg/bin/x.js`, native parts in sibling packages: the whole
  // node_modules is the install.
  const parts = binDir.split("/");
  const nm = parts.lastIndexOf("node_modules");
  if (nm > 0) {
    const modules = parts.slice(0, nm + 1).join("/");
    if (allowed(modules)) return modules;
  }
  const parent = dirname(binDir);
  if (BIN_NAMES.has(basename(binDir)) && allowed(parent)) return parent;
  return allowed(binDir) ? binDir : null;
}

function secretMasks(root: string): RootMount[] {
  const out: RootMount[] = [];
  for (const e of direntsOrNone(root)) {
    const path = join(root, e.name);
    const info = lstatOrNull(path);
    if (info === null || info.isSymbolicLink()) continue;
    const private_ = info.mode !== null && (info.mode & 0o004) === 0;
    if (TOOLCHAIN_SECRET_NAMES.includes(e.name) || private_ || info.isSocket()) {
      out.push(maskOf(path, info));
    }
  }
  return out;
}

const scans = new Map<string, readonly string[]>();

/** The real directories of PATH's programs outside the system dirs (cached per PATH). */
function programDirs(path: string): readonly string[] {
  const hit = scans.get(path);
  if (hit !== undefined) return hit;
  const dirs = new Set<string>();
  for (const dir of path.split(":")) {
    if (!dir.startsWith("/")) continue;
    const real = realPathOrNull(dir);
    if (real === null) continue;
    if (!isSystem(real)) dirs.add(real);
    // Links in a PATH dir to programs installed elsewhere (npm -g, nvm, pyenv, manual links).
    for (const e of direntsOrNone(real)) {
      if (!e.isSymbolicLink()) continue;
      const target = realPathOrNull(join(real, e.name));
      if (target !== null && !within(target, real) && !isSystem(dirname(target))) {
        dirs.add(dirname(target));
      }
    }
  }
  const out = [...dirs];
  scans.set(path, out);
  return out;
}

/**
 * Scans `path` (a `PATH` value) for toolchains outside the system dirs.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { toolchainMounts } from "./_toolchains.ts";
 * deepEqual(toolchainMounts("/usr/bin:/bin", { forbidden: [] }).mounts, []);
 * ```
 */
export function toolchainMounts(path: string, opts: ToolchainOptions): Toolchains {
  const roots = new Set<string>();
  const direct: string[] = [];
  for (const program of opts.programs ?? []) {
    const real = realPathOrNull(program);
    if (real !== null && !isSystem(dirname(real))) direct.push(dirname(real));
  }
  for (const dir of [...programDirs(path), ...direct]) {
    const root = installRoot(dir, opts);
    if (root !== null) roots.add(root);
  }
  // A root inside another root is covered by it.
  const sorted = [...roots].sort();
  const kept = sorted.filter((r) => !sorted.some((o) => o !== r && within(r, o)));
  const mounts: RootMount[] = [];
  const env: Record<string, string> = {};
  for (const root of kept) {
    mounts.push({ kind: "ro", path: root }, ...secretMasks(root));
    // rustup's proxies (`~/.cargo/bin/cargo -> rustup`) read RUSTUP_HOME, by default under HOME.
    if (lstatOrNull(join(root, "bin", "rustup")) !== null) {
      const rustupHome = process.env["RUSTUP_HOME"] ?? join(dirname(root), ".rustup");
      const real = realPathOrNull(rustupHome);
      if (real !== null && !opts.forbidden.some((f) => within(real, f))) {
        if (!kept.some((r) => within(real, r))) mounts.push({ kind: "ro", path: real });
        mounts.push(...secretMasks(real));
        env.RUSTUP_HOME = real;
        env.CARGO_HOME = root;
      }
    }
  }
  return { mounts, env };
}
