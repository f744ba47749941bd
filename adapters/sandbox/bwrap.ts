import { readFileSync, realpathSync, statSync } from "node:fs";
import process from "node:process";
import { isAbsolute, join, resolve } from "node:path";
import type { BwrapSandbox } from "./profile.ts";
import { SandboxError } from "./profile.ts";

/** Secret-bearing directories under `$HOME` hidden from sandboxed children. */
export const HIDDEN_HOME_DIRS: readonly string[] = [
  ".ssh",
  ".aws",
  ".config",
  ".gnupg",
  ".azure",
  ".kube",
  ".docker",
  ".vouch",
  ".local/share/vouch",
];
/**
 * System directories hidden behind an empty tmpfs: `/run` holds unix sockets
 * (dbus, docker, postgres, the user's agents under `/run/user`) that a
 * network namespace does not cut off.
 */
export const HIDDEN_SYSTEM_DIRS: readonly string[] = ["/run"];

/** Secret-bearing files under `$HOME` masked with `/dev/null`. */
export const HIDDEN_HOME_FILES: readonly string[] = [
  ".netrc",
  ".git-credentials",
  ".npmrc",
  ".pypirc",
];

/** Options for {@linkcode bwrapProfile}. */
export interface BwrapProfileOptions {
  /** The worktree: bound read-write; its `.git` (dir or gitdir file target) read-only. */
  readonly worktree: string;
  /** The invoking user's home (default `$HOME` when readable). */
  readonly home?: string;
  /** The vouch key store directory, hidden as well. */
  readonly keyStoreDir?: string;
  /** Further directories to hide. */
  readonly hideDirs?: readonly string[];
  /** Further directories to bind read-write. */
  readonly extraWritable?: readonly string[];
  /** The bwrap executable (default `bwrap` looked up on `PATH`). */
  readonly bwrapPath?: string;
}

function exists(path: string): "dir" | "file" | null {
  try {
    return statSync(path).isDirectory() ? "dir" : "file";
  } catch {
    return null;
  }
}

/**
 * The git directories of a worktree that must stay read-only while checks run:
 * `<wt>/.git` itself, and for a linked worktree (where `.git` is a file
 * `gitdir: <path>`) the gitdir it points at and that gitdir's `commondir`.
 *
 * @example
 * ```ts ignore
 * import { worktreeGitPaths } from "./bwrap.ts";
 * worktreeGitPaths("/repo"); // ["/repo/.git"]
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

function findOnPath(name: string): string | null {
  for (const dir of (process.env["PATH"] ?? "/usr/bin:/bin").split(":")) {
    if (!dir.startsWith("/")) continue;
    const candidate = join(dir, name);
    if (exists(candidate) === "file") return candidate;
  }
  return null;
}

/**
 * Builds a bwrap profile for running checks in `worktree`: every path
 * resolved now, hidden paths limited to those that exist.
 *
 * @example
 * ```ts ignore
 * import { bwrapProfile } from "./bwrap.ts";
 * const profile = bwrapProfile({ worktree: "/tmp/wt" });
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
  let home = options.home;
  if (home === undefined) {
    try {
      home = process.env["HOME"];
    } catch {
      home = undefined;
    }
  }
  const hiddenDirs: string[] = [];
  const hiddenFiles: string[] = [];
  const dirCandidates = [
    ...HIDDEN_SYSTEM_DIRS,
    ...(home ? HIDDEN_HOME_DIRS.map((d) => join(home!, d)) : []),
    ...(options.keyStoreDir ? [resolve(options.keyStoreDir)] : []),
    ...(options.hideDirs ?? []).map((d) => resolve(d)),
  ];
  for (const d of dirCandidates) {
    // Never hide the worktree itself or a parent of it.
    if (worktree === d || worktree.startsWith(d + "/")) continue;
    if (exists(d) === "dir" && !hiddenDirs.includes(d)) hiddenDirs.push(d);
  }
  if (home) {
    for (const f of HIDDEN_HOME_FILES) {
      const p = join(home, f);
      if (exists(p) === "file") hiddenFiles.push(p);
    }
  }
  return {
    kind: "bwrap",
    bwrapPath,
    writable: [worktree, ...(options.extraWritable ?? []).map((p) => realpathSync(p))],
    readOnly: worktreeGitPaths(worktree),
    hiddenDirs,
    hiddenFiles,
  };
}

/** The private home directory children see inside bwrap. */
export const BWRAP_HOME = "/tmp/vouch-home";

/**
 * The full argv that runs `argv` inside the profile with `cwd` as working
 * directory and exactly `env` as environment.
 *
 * @example
 * ```ts
 * import { bwrapArgv } from "./bwrap.ts";
 * const argv = bwrapArgv(
 *   { kind: "bwrap", bwrapPath: "/usr/bin/bwrap", writable: ["/wt"], readOnly: ["/wt/.git"], hiddenDirs: [], hiddenFiles: [] },
 *   ["true"], "/wt", { PATH: "/usr/bin" },
 * );
 * if (!argv.includes("--unshare-net") || argv.at(-1) !== "true") throw new Error();
 * ```
 *
 * With `shareNetwork: true` (a setup command the policy lets use the network)
 * `--unshare-net` is omitted; everything else is the same.
 */
export function bwrapArgv(
  profile: BwrapSandbox,
  argv: readonly string[],
  cwd: string,
  env: Readonly<Record<string, string>>,
): string[] {
  const out = [
    profile.bwrapPath,
    "--new-session",
    "--die-with-parent",
    "--unshare-pid",
    // The network is cut off unless the profile explicitly shares it (setup with policy consent).
    ...(profile.shareNetwork === true ? [] : ["--unshare-net"]),
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    // Without this a sandbox started as root keeps CAP_SYS_ADMIN and can simply
    // `mount -o remount,rw /` and write to the host.
    "--cap-drop",
    "ALL",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
  ];
  for (const d of profile.hiddenDirs) out.push("--tmpfs", d);
  for (const f of profile.hiddenFiles) out.push("--ro-bind", "/dev/null", f);
  for (const w of profile.writable) out.push("--bind", w, w);
  for (const r of profile.readOnly) out.push("--ro-bind", r, r);
  out.push("--dir", BWRAP_HOME, "--clearenv");
  for (const [k, v] of Object.entries(env)) out.push("--setenv", k, v);
  out.push("--chdir", cwd, "--", ...argv);
  return out;
}
