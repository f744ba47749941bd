/**
 * A bwrap profile as bwrap's argv: the mount order, namespaces and the
 * cleared environment of one confined command.
 *
 * @module
 */
import type { BwrapSandbox, RootMount } from "./profile.ts";
import { DEFAULT_CHECK_LIMITS } from "./limits.ts";
import { dropArgv, MAPPED_BWRAP_OPTIONS, MAPPED_CAPS } from "./_user_map.ts";
import { closeFdsArgv } from "./_close_fds.ts";

/** The private home directory children see inside bwrap (on the private `/tmp`). */
export const BWRAP_HOME = "/tmp/vouch-home";

function underTmp(path: string): boolean {
  return path === "/tmp" || path.startsWith("/tmp/");
}

/**
 * Parents of `path` a mapped sandbox must make 0755 first (bwrap would make them 0700, owned by
 * its uid 1); `empty` says what `path` becomes: an empty dir or tmpfs (nothing beneath it
 * exists yet) rather than a bind of the host's path (everything beneath it does).
 */
type Parents = (path: string, empty?: boolean) => string[];

function rootArgs(root: readonly RootMount[], parents: Parents): string[] {
  const out: string[] = [];
  for (const m of root) {
    out.push(...parents(m.path, m.kind === "mask-dir"));
    if (m.kind === "ro") out.push("--ro-bind", m.path, m.path);
    else if (m.kind === "symlink") out.push("--symlink", m.target, m.path);
    else if (m.kind === "mask-dir") out.push("--tmpfs", m.path, "--remount-ro", m.path);
    else out.push("--ro-bind", "/dev/null", m.path);
  }
  return out;
}

/**
 * For a mapped sandbox: the `--perms 0755 --dir` ops for every ancestor of a
 * mount that neither exists beneath a bind nor was made yet. Nothing otherwise.
 */
function parentsFor(mapped: boolean): Parents {
  const binds = new Set<string>();
  const dirs = new Set<string>(["/"]);
  // A path exists when it was made, or when the nearest mount above it is a bind (a tmpfs or a
  // made dir nearer, such as a git view's tmpfs inside a bound dir, holds nothing yet).
  const exists = (p: string) => {
    if (dirs.has(p)) return true;
    for (let q = p; q !== ""; q = q.slice(0, q.lastIndexOf("/"))) {
      if (binds.has(q)) return true;
      if (q !== p && dirs.has(q)) return false;
    }
    return false;
  };
  return (path, empty = false) => {
    const out: string[] = [];
    if (mapped) {
      const parts = path.split("/").filter((x) => x !== "");
      for (let i = 1; i < parts.length; i++) {
        const a = "/" + parts.slice(0, i).join("/");
        if (exists(a)) continue;
        out.push("--perms", "0755", "--dir", a);
        dirs.add(a);
      }
    }
    (empty ? dirs : binds).add(path);
    return out;
  };
}

/**
 * The root mounts in order, and `/sys` apart to go last when nothing else is mounted inside it:
 * bwrap 0.8 reads the whole mountinfo again for every bind, and `/sys` brings its cgroup
 * submounts (13 on the development machine) into every later read (about 0.6 ms of bwrap's CPU
 * per check).
 */
function deferSys(
  profile: BwrapSandbox,
  root: readonly RootMount[],
): [RootMount[], RootMount[]] {
  const sys = root.filter((m) => m.path === "/sys" && m.kind === "ro");
  const others = [
    ...root.map((m) => m.path),
    ...profile.writable,
    ...profile.readOnly,
    ...(profile.views ?? []).map((v) => v.path),
    ...(profile.layers ?? []).map((l) => l.path),
    ...profile.hiddenDirs,
    ...profile.hiddenFiles,
    ...(profile.tmpfs ?? []),
    profile.home ?? BWRAP_HOME,
  ];
  if (sys.length === 0 || others.some((p) => p.startsWith("/sys/"))) return [[...root], []];
  return [root.filter((m) => !sys.includes(m)), sys];
}

/**
 * What comes after the binds: read-only layers remounted read-only (a git view), the masks,
 * scratch tmpfs views (`tmpfs`: their size and mode options).
 */
function afterBinds(profile: BwrapSandbox, parents: Parents, tmpfs: readonly string[]): string[] {
  const out: string[] = [];
  for (const l of profile.layers ?? []) if (l.readOnly === true) out.push("--remount-ro", l.path);
  for (const d of profile.hiddenDirs) {
    out.push(...parents(d, true), "--tmpfs", d, "--remount-ro", d);
  }
  for (const f of profile.hiddenFiles) out.push(...parents(f), "--ro-bind", "/dev/null", f);
  for (const t of profile.tmpfs ?? []) out.push(...parents(t, true), ...tmpfs, "--tmpfs", t);
  return out;
}

/**
 * The full argv that runs `argv` inside the profile with `cwd` as working
 * directory and exactly `env` as environment. Mount order: the allowlisted
 * root, `/dev`, `/proc`, a size-capped private `/tmp`, HOME, the writable
 * binds, the read-only binds over them, masks, scratch tmpfs views, `/sys`
 * (unless something is mounted inside it); then the root itself is remounted
 * read-only.
 *
 * @example
 * ```ts
 * import { equal, ok } from "node:assert/strict";
 * import { bwrapArgv } from "./bwrap.ts";
 * const argv = bwrapArgv(
 *   { kind: "bwrap", bwrapPath: "/usr/bin/bwrap", writable: ["/wt"], readOnly: ["/wt/.git"], hiddenDirs: [], hiddenFiles: [] },
 *   ["true"], "/wt", { PATH: "/usr/bin" },
 * );
 * ok(argv.includes("--unshare-net"));
 * equal(argv.at(-1), "true");
 * ```
 *
 * With `shareNetwork: true` (an agent, or a setup command the policy lets use
 * the network) `--unshare-net` is omitted; everything else is the same.
 */
export function bwrapArgv(
  profile: BwrapSandbox,
  argv: readonly string[],
  cwd: string,
  env: Readonly<Record<string, string>>,
): string[] {
  const tmpBytes = String((profile.limits ?? DEFAULT_CHECK_LIMITS).tmpMb * 1024 * 1024);
  const home = profile.home ?? BWRAP_HOME;
  // A HOME bound from a per-run copy (an agent) goes over the user's HOME path: root mounts
  // inside it (a toolchain under HOME: deno under ~/.npm, ~/.cargo, nvm) are made after it.
  const inHome = (p: string) =>
    profile.homeSource !== undefined && (p === home || p.startsWith(home + "/"));
  const allRoot = profile.root ?? [];
  const [root, late] = deferSys(profile, allRoot.filter((m) => !inHome(m.path)));
  const mapped = profile.userMap !== undefined;
  const parents = parentsFor(mapped);
  // A mapped sandbox's tmpfs and HOME are made by bwrap's uid 1: open to its uid 0.
  const perms = (mode: string) => (mapped ? ["--perms", mode] : []);
  const out = [
    profile.bwrapPath,
    "--new-session",
    "--die-with-parent",
    // A user namespace of its own, also when vouch runs as root: capabilities (all dropped
    // below) would only ever count inside it, and the bounding set is emptied.
    "--unshare-user",
    // As root: bwrap waits while the launcher maps uid 0 to an unprivileged host uid.
    ...(mapped ? MAPPED_BWRAP_OPTIONS : []),
    "--unshare-pid",
    // The network is cut off unless the profile explicitly shares it.
    ...(profile.shareNetwork === true ? [] : ["--unshare-net"]),
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    // Without this a sandbox started as root keeps CAP_SYS_ADMIN and can remount.
    "--cap-drop",
    "ALL",
    // Mapped: kept for `setpriv` alone, which drops to uid 0 inside with none (the command's
    // prefix below).
    ...(mapped ? MAPPED_CAPS : []),
    ...rootArgs(root.filter((m) => !underTmp(m.path)), parents),
    // /dev: bwrap's own, read-only after a size-capped /dev/shm (a writable /dev tmpfs held
    // anything a check wrote there, uncapped).
    "--dev",
    "/dev",
    "--size",
    tmpBytes,
    ...perms("1777"),
    "--tmpfs",
    "/dev/shm",
    "--remount-ro",
    "/dev",
    // /proc: the sandbox's own, with the kernel's knobs read-only (bwrap 0.8 leaves /proc/sys
    // writable: its writability test on the directory says EACCES, so it skips the cover, while
    // the files inside stay writable by uid 0, which root-started sandboxes are).
    "--proc",
    "/proc",
    "--ro-bind",
    "/proc/sys",
    "/proc/sys",
    "--ro-bind-try",
    "/proc/sysrq-trigger",
    "/proc/sysrq-trigger",
    "--size",
    tmpBytes,
    ...perms("1777"),
    "--tmpfs",
    "/tmp",
  ];
  for (const p of ["/dev", "/proc"]) parents(p);
  parents("/tmp", true);
  // Root mounts inside /tmp (a toolchain or checkout living there) go over the private /tmp.
  out.push(...rootArgs(root.filter((m) => underTmp(m.path)), parents));
  if (profile.homeSource !== undefined) {
    out.push(
      ...parents(home, true),
      "--bind",
      profile.homeSource,
      home,
      ...rootArgs(allRoot.filter((m) => inHome(m.path)), parents),
    );
  } else out.push(...parents(home, true), ...perms("0777"), "--dir", home);
  // Parents before children, so a path inside another keeps its own mode (`.git` ro inside the
  // rw worktree, a rw worktree inside a ro declared dir).
  // A layer's tmpfs comes before what is bound into it (one level deeper).
  const binds = [
    ...profile.writable.map((p) => ({ p, src: p, flag: "--bind" })),
    ...profile.readOnly.map((p) => ({ p, src: p, flag: "--ro-bind" })),
    ...(profile.views ?? []).map((v) => ({
      p: v.path,
      src: v.source,
      flag: v.writable === true ? "--bind" : "--ro-bind",
    })),
    ...(profile.layers ?? []).flatMap((l) => [
      { p: l.path, src: "", flag: "--tmpfs" },
      ...l.binds.map((b) => ({ p: b.path, src: b.source, flag: "--ro-bind" })),
      ...l.links.map((b) => ({ p: b.path, src: b.target, flag: "--symlink" })),
      ...l.dirs.map((p) => ({ p, src: "", flag: "--dir" })),
    ]),
  ].map((b, i) => ({ ...b, i, depth: b.p.split("/").length }))
    .sort((x, y) => x.depth - y.depth || x.i - y.i);
  for (const b of binds) {
    out.push(...parents(b.p, b.flag === "--tmpfs" || b.flag === "--dir"));
    if (b.flag === "--tmpfs") out.push("--size", tmpBytes, ...perms("1777"), "--tmpfs", b.p);
    else if (b.flag === "--dir") out.push(...perms("0777"), "--dir", b.p);
    else if (b.flag === "--symlink") out.push("--symlink", b.src, b.p);
    else out.push(b.flag, b.src, b.p);
  }
  out.push(...afterBinds(profile, parents, ["--size", tmpBytes, ...perms("1777")]));
  out.push(...rootArgs(late, parents), "--remount-ro", "/", "--clearenv");
  for (const [k, v] of Object.entries(env)) out.push("--setenv", k, v);
  const drop = profile.userMap === undefined ? [] : dropArgv(profile.userMap);
  // First inside: every fd but 0, 1 and 2 closed (inherited ones, and bwrap's own 8 and 9),
  // before setpriv, an agent's egress forwarder and the command (see _close_fds.ts).
  out.push("--chdir", cwd, "--", ...closeFdsArgv(), ...drop, ...(profile.launcher ?? []), ...argv);
  return out;
}
