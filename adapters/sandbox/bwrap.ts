import { readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import process from "node:process";
import type { BwrapSandbox, RootMount } from "./profile.ts";
import { SandboxError } from "./profile.ts";
import { systemRoot } from "./_system_root.ts";
import { HOME_PRIVATE_DIRS, repositoryPaths, toolchainMounts } from "./_toolchains.ts";
import { realPathOrNull } from "./_quiet_fs.ts";
import { DEFAULT_CHECK_LIMITS, type SandboxLimits } from "./limits.ts";
import { forbiddenPaths } from "./_forbidden.ts";
import { runsAsRoot, userMapOfHost } from "./_user_map.ts";
import { gitView } from "./_git_view.ts";

import { BWRAP_HOME } from "./_bwrap_argv.ts";

export { BWRAP_HOME, bwrapArgv } from "./_bwrap_argv.ts";

/** `safe.directory=*` for git run inside a mapped sandbox (its tree's .git belongs to root). */
const GIT_SAFE_ENV: Readonly<Record<string, string>> = {
  GIT_CONFIG_PARAMETERS: "'safe.directory'='*'",
};

/** Options for {@linkcode bwrapProfile}. */
export interface BwrapProfileOptions {
  /**
   * The worktree: bound read-write; of its git repository an allowlisted read-only view
   * (`_git_view.ts`: objects, a sanitized config, its own gitdir; no stash, logs, hooks, secrets).
   */
  readonly worktree: string;
  /** The invoking user's home (default `$HOME`): never mounted; toolchains under it are. */
  readonly home?: string;
  /** The vouch key store directory: never visible (default: the key directory of this environment). */
  readonly keyStoreDir?: string;
  /** Further paths that must stay invisible (masked if a mounted dir contains them). */
  readonly hideDirs?: readonly string[];
  /** Further directories to bind read-write. */
  readonly extraWritable?: readonly string[];
  /** Paths the user declared the checks need (`--sandbox-ro`, contract `sandbox.readOnly`). */
  readonly declaredReadOnly?: readonly string[];
  /**
   * Further read-only paths vouch itself needs (an agent program's dir and file): HOME or an
   * ancestor of it is never mounted this way, nor a DIRECTORY that is, lies in or contains the
   * repository (the checkout, the worktree, another worktree, a `.git`; a `node_modules` inside
   * it may be): a program kept there is seen as its FILE alone (pass the file too). vouch's keys
   * and state inside them are masked. Not recorded as declared.
   */
  readonly extraReadOnly?: readonly string[];
  /** The bwrap executable (default `bwrap` looked up on `PATH`). */
  readonly bwrapPath?: string;
  /** `PATH` toolchains are resolved from (default the host's). */
  readonly path?: string;
  /** Programs run by absolute path whose install dirs must be visible (vouch's runtime always is). */
  readonly programs?: readonly string[];
  /** Resource limits (default {@linkcode DEFAULT_CHECK_LIMITS}). */
  readonly limits?: SandboxLimits;
}

function exists(path: string): "dir" | "file" | null {
  try {
    const s = statSync(path);
    return s.isDirectory() ? "dir" : "file";
  } catch {
    return null;
  }
}

const within = (path: string, dir: string) => path === dir || path.startsWith(dir + "/");

/**
 * The git directories of a worktree that must stay read-only while checks run:
 * `<wt>/.git` itself, and for a linked worktree (where `.git` is a file
 * `gitdir: <path>`) the gitdir it points at and that gitdir's `commondir`.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { worktreeGitPaths } from "./bwrap.ts";
 * deepEqual(worktreeGitPaths("/nonexistent-vouch-dir"), []);
 * ```
 */
export function worktreeGitPaths(worktree: string): string[] {
  const dotGit = join(worktree, ".git");
  const kind = exists(dotGit);
  if (kind === null) return [];
  const out = [dotGit];
  if (kind === "file") {
    const text = readFileSync(dotGit, "utf8");
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(text);
    if (m) {
      const gitdir = resolve(worktree, m[1]!);
      if (exists(gitdir) === "dir") {
        out.push(gitdir);
        const commonFile = join(gitdir, "commondir");
        if (exists(commonFile) === "file") {
          const common = resolve(gitdir, readFileSync(commonFile, "utf8").trim());
          if (exists(common) === "dir") out.push(common);
        }
      }
    }
  }
  return out;
}

/**
 * Finds an executable `name` on `PATH` (absolute entries only).
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { findOnPath } from "./bwrap.ts";
 * ok(findOnPath("sh")?.endsWith("/sh"));
 * ```
 */
export function findOnPath(name: string, pathVar?: string): string | null {
  let value = pathVar;
  if (value === undefined) {
    try {
      value = process.env["PATH"];
    } catch {
      value = undefined;
    }
  }
  for (const dir of (value ?? "/usr/bin:/bin").split(":")) {
    if (!dir.startsWith("/")) continue;
    const candidate = join(dir, name);
    if (exists(candidate) === "file") return candidate;
  }
  return null;
}

function hostEnv(name: string): string | undefined {
  try {
    return process.env[name];
  } catch {
    return undefined;
  }
}

/**
 * Builds the bwrap profile for running checks in `worktree`: the allowlisted
 * root (system dirs, toolchains from PATH), the worktree read-write, the
 * allowlisted view of its git repository (`_git_view.ts`) and the declared
 * paths read-only, everything vouch keeps secret out of
 * reach. Throws `sandbox_unavailable` when bwrap is missing and
 * `sandbox_invalid` for a relative worktree or a declared path that would
 * expose the keys.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdtempSync, realpathSync, rmSync } from "node:fs";
 * import { ok } from "node:assert/strict";
 * import { bwrapProfile } from "./bwrap.ts";
 * const wt = mkdtempSync(join(tmpdir(), "vouch-"));
 * const profile = bwrapProfile({ worktree: wt, bwrapPath: "/usr/bin/bwrap" });
 * ok(profile.writable.includes(realpathSync(wt)));
 * ok(!(profile.root ?? []).some((m) => m.kind === "ro" && m.path === "/"));
 * rmSync(wt, { recursive: true, force: true });
 * ```
 */
export function bwrapProfile(options: BwrapProfileOptions): BwrapSandbox {
  if (!isAbsolute(options.worktree)) {
    throw new SandboxError(
      "sandbox_invalid",
      `Cannot sandbox: worktree must be absolute: ${options.worktree}`,
    );
  }
  const worktree = realpathSync(options.worktree);
  const bwrapPath = options.bwrapPath ?? findOnPath("bwrap");
  if (bwrapPath === null) {
    throw new SandboxError("sandbox_unavailable", "Cannot sandbox: bwrap not found on PATH");
  }
  const home = options.home ?? hostEnv("HOME");
  const forbidden = forbiddenPaths({
    ...(home !== undefined ? { home } : {}),
    ...(options.keyStoreDir !== undefined ? { keyStoreDir: options.keyStoreDir } : {}),
    extra: options.hideDirs ?? [],
  });
  const declared: string[] = [];
  for (const p of options.declaredReadOnly ?? []) {
    if (!isAbsolute(p)) {
      throw new SandboxError("sandbox_invalid", `Cannot use --sandbox-ro ${p}: must be absolute`);
    }
    const real = exists(p) !== null ? realpathSync(p) : resolve(p);
    const clash = forbidden.find((f) => within(f, real) || within(real, f)) ??
      (home !== undefined && within(home, real) ? home : undefined);
    if (clash !== undefined) {
      throw new SandboxError(
        "sandbox_invalid",
        `Cannot use --sandbox-ro ${p}: it would expose ${clash} (vouch's keys, state or your HOME)`,
      );
    }
    if (exists(real) !== null) declared.push(real);
  }
  // The tree, its git dirs, the user's checkout and its other worktrees.
  const repository = repositoryPaths(worktree, worktreeGitPaths(worktree));
  const tools = {
    ...toolchainMounts(options.path ?? hostEnv("PATH") ?? "/usr/bin:/bin", {
      ...(home !== undefined ? { home } : {}),
      forbidden,
      notContaining: repository,
      programs: options.programs ?? [],
    }),
    repository,
  };
  const root: RootMount[] = [...systemRoot(), ...tools.mounts];
  // vouch's own runtime (checks often run `deno`/`node` by its absolute path): the executable
  // FILE, never its directory. In a single executable or a `deno compile` binary it is vouch
  // itself, and its directory may be a download folder with secrets beside it or the checkout.
  const self = runtimeFileMount(root, forbidden, home);
  if (self !== null) root.push(self);
  const writable = [worktree, ...(options.extraWritable ?? []).map((p) => realpathSync(p))];
  const extra = extraReadOnlyPaths(options.extraReadOnly ?? [], {
    ...(home !== undefined ? { home } : {}),
    forbidden,
    repository: tools.repository,
  });
  // Of the tree's git repository, an allowlist: no config secrets, stash, logs or main index.
  const git = gitView(worktree);
  const readOnly = [...git.readOnly, ...declared, ...extra];
  // A forbidden path that a mounted directory contains is masked on top.
  const mounted = [
    ...root.filter((m) => m.kind === "ro").map((m) => m.path),
    ...writable,
    ...readOnly,
    ...(git.layer?.binds ?? []).map((b) => b.path),
  ];
  const hiddenDirs: string[] = [];
  const hiddenFiles: string[] = [];
  for (const f of forbidden) {
    if (!mounted.some((m) => within(f, m)) || writable.some((w) => within(w, f))) continue;
    const kind = exists(f);
    if (kind === "dir") hiddenDirs.push(f);
    else if (kind === "file") hiddenFiles.push(f);
  }
  // As root, the sandbox's uid 0 is an unprivileged host uid; without setpriv it would stay
  // host root: refused.
  const userMap = userMapOfHost();
  if (userMap === null && runsAsRoot()) {
    throw new SandboxError(
      "sandbox_unavailable",
      "Cannot sandbox as root: setpriv (util-linux) not found to run children as an unprivileged uid",
    );
  }
  return {
    kind: "bwrap",
    bwrapPath,
    root,
    writable,
    readOnly,
    hiddenDirs,
    hiddenFiles,
    ...(git.layer !== null ? { layers: [git.layer] } : {}),
    home: BWRAP_HOME,
    ...(home !== undefined ? { userHome: home } : {}),
    // git inside a mapped sandbox meets a tree and a .git of another owner than its uid.
    env: userMap === null ? tools.env : { ...tools.env, ...GIT_SAFE_ENV },
    declaredReadOnly: declared,
    limits: options.limits ?? DEFAULT_CHECK_LIMITS,
    ...(userMap !== null ? { userMap } : {}),
  };
}

/**
 * Of `paths` (an agent program's dirs and files), the real paths that may be bound read-only:
 * never `/`, HOME or an ancestor of it, a path in HOME's secret dirs or vouch's keys and state;
 * a directory never when it is, lies in or contains one of `repository` (but a `node_modules`
 * inside it); a file (the program itself) may lie in the checkout. Files a kept dir shows are
 * dropped.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { extraReadOnlyPaths } from "./bwrap.ts";
 * deepEqual(extraReadOnlyPaths(["/nonexistent/x"], { forbidden: [], repository: [] }), []);
 * ```
 */
export function extraReadOnlyPaths(
  paths: readonly string[],
  keep: {
    readonly home?: string;
    readonly forbidden: readonly string[];
    readonly repository: readonly string[];
  },
): string[] {
  const { home, forbidden, repository } = keep;
  const dirs: string[] = [];
  const files: string[] = [];
  for (const p of paths) {
    const real = realPathOrNull(p);
    if (real === null) continue;
    const kind = exists(real);
    if (kind === null || real === "/" || (home !== undefined && within(home, real))) continue;
    if (forbidden.some((f) => within(real, f) || (kind === "file" && real === f))) continue;
    if (home !== undefined && HOME_PRIVATE_DIRS.some((d) => within(real, join(home, d)))) continue;
    if (kind === "file") {
      if (!files.includes(real)) files.push(real);
      continue;
    }
    const repo = repository.some((r) =>
      within(r, real) || (within(real, r) && basename(real) !== "node_modules")
    );
    if (!repo && !dirs.includes(real)) dirs.push(real);
  }
  return [...dirs, ...files.filter((f) => !dirs.some((d) => within(f, d)))];
}

/**
 * The read-only mount of the running executable's own file (`process.execPath`, real path), or
 * `null` when a mount already shows it, it is a system file, or it lies in a path that must stay
 * hidden (vouch's keys, state, HOME itself).
 */
function runtimeFileMount(
  root: readonly RootMount[],
  forbidden: readonly string[],
  home: string | undefined,
): RootMount | null {
  let real: string;
  try {
    real = realpathSync(process.execPath);
  } catch {
    return null;
  }
  const shown = root.some((m) => m.kind === "ro" && within(real, m.path));
  const hidden = forbidden.some((f) => within(real, f)) || real === home;
  return shown || hidden || exists(real) !== "file" ? null : { kind: "ro", path: real };
}

/**
 * The profile with the real directories of `programs` (absolute paths a child
 * is started by, e.g. `'/opt/x/deno' test`) bound read-only when no mount
 * shows them yet. A directory that is HOME, contains it or contains a masked
 * path is left out (the program then fails to start, visibly).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { withPrograms } from "./bwrap.ts";
 * const p = { kind: "bwrap" as const, bwrapPath: "/usr/bin/bwrap", root: [{ kind: "ro" as const, path: "/usr" }], writable: [], readOnly: [], hiddenDirs: [], hiddenFiles: [] };
 * equal(withPrograms(p, ["/usr/bin/env"]), p);
 * ```
 */
export function withPrograms(profile: BwrapSandbox, programs: readonly string[]): BwrapSandbox {
  const visible = [
    ...(profile.root ?? []).filter((m) => m.kind === "ro").map((m) => m.path),
    ...profile.readOnly,
    ...profile.writable,
  ];
  const masked = [...profile.hiddenDirs, ...profile.hiddenFiles];
  let home: string | undefined = profile.userHome;
  try {
    home ??= process.env["HOME"];
  } catch {
    home = undefined;
  }
  // The user's checkout, its other worktrees and git dirs: a program kept there is seen alone.
  const tree = profile.writable[0];
  const repository = tree === undefined ? [] : repositoryPaths(tree, worktreeGitPaths(tree));
  const extra: string[] = [];
  for (const program of programs) {
    if (!isAbsolute(program)) continue;
    const real = realPathOrNull(program);
    if (real === null) continue;
    const dir = dirname(real);
    if (visible.some((v) => within(real, v)) || extra.includes(dir) || extra.includes(real)) {
      continue;
    }
    // A program directly in HOME (or beside vouch's keys), or in the checkout: the file alone,
    // never its directory.
    const exposes = dir === "/" || (home !== undefined && within(home, dir)) ||
      masked.some((m) => within(m, dir)) ||
      repository.some((r) => within(r, dir) || within(dir, r));
    extra.push(exposes ? real : dir);
  }
  return extra.length === 0 ? profile : { ...profile, readOnly: [...profile.readOnly, ...extra] };
}

/** The leading absolute program of a shell string (`'/x/deno' test`, `/x/y --flag`), if any. */
export function leadingProgram(shell: string): string | null {
  const m = /^\s*(?:'(\/[^']+)'|"(\/[^"]+)"|(\/[^\s;&|'"]+))/.exec(shell);
  return m === null ? null : (m[1] ?? m[2] ?? m[3] ?? null);
}
