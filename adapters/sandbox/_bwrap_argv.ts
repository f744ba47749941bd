/**
 * A bwrap profile as bwrap's argv: the mount order, namespaces and the
 * cleared environment of one confined command.
 *
 * @module
 */
import type { BwrapSandbox, RootMount } from "./profile.ts";
import { DEFAULT_CHECK_LIMITS } from "./limits.ts";

/** The private home directory children see inside bwrap (on the private `/tmp`). */
export const BWRAP_HOME = "/tmp/vouch-home";

function underTmp(path: string): boolean {
  return path === "/tmp" || path.startsWith("/tmp/");
}

function rootArgs(root: readonly RootMount[]): string[] {
  const out: string[] = [];
  for (const m of root) {
    if (m.kind === "ro") out.push("--ro-bind", m.path, m.path);
    else if (m.kind === "symlink") out.push("--symlink", m.target, m.path);
    else if (m.kind === "mask-dir") out.push("--tmpfs", m.path, "--remount-ro", m.path);
    else out.push("--ro-bind", "/dev/null", m.path);
  }
  return out;
}

/**
 * The full argv that runs `argv` inside the profile with `cwd` as working
 * directory and exactly `env` as environment. Mount order: the allowlisted
 * root, `/dev`, `/proc`, a size-capped private `/tmp`, HOME, the writable
 * binds, the read-only binds over them, masks, scratch tmpfs views; then the
 * root itself is remounted read-only.
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
  const root = allRoot.filter((m) => !inHome(m.path));
  const out = [
    profile.bwrapPath,
    "--new-session",
    "--die-with-parent",
    // A user namespace of its own, also when vouch runs as root: capabilities (all dropped
    // below) would only ever count inside it, and the bounding set is emptied.
    "--unshare-user",
    "--unshare-pid",
    // The network is cut off unless the profile explicitly shares it.
    ...(profile.shareNetwork === true ? [] : ["--unshare-net"]),
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    // Without this a sandbox started as root keeps CAP_SYS_ADMIN and can remount.
    "--cap-drop",
    "ALL",
    ...rootArgs(root.filter((m) => !underTmp(m.path))),
    // /dev: bwrap's own, read-only after a size-capped /dev/shm (a writable /dev tmpfs held
    // anything a check wrote there, uncapped).
    "--dev",
    "/dev",
    "--size",
    tmpBytes,
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
    "--tmpfs",
    "/tmp",
    // Root mounts inside /tmp (a toolchain or checkout living there) go over the private /tmp.
    ...rootArgs(root.filter((m) => underTmp(m.path))),
  ];
  if (profile.homeSource !== undefined) {
    out.push(
      "--bind",
      profile.homeSource,
      home,
      ...rootArgs(allRoot.filter((m) => inHome(m.path))),
    );
  } else out.push("--dir", home);
  // Parents before children, so a path inside another keeps its own mode (`.git` ro inside the
  // rw worktree, a rw worktree inside a ro declared dir).
  // A layer's tmpfs comes before what is bound into it (one level deeper).
  const binds = [
    ...profile.writable.map((p) => ({ p, src: p, flag: "--bind" })),
    ...profile.readOnly.map((p) => ({ p, src: p, flag: "--ro-bind" })),
    ...(profile.views ?? []).map((v) => ({ p: v.path, src: v.source, flag: "--ro-bind" })),
    ...(profile.layers ?? []).flatMap((l) => [
      { p: l.path, src: "", flag: "--tmpfs" },
      ...l.binds.map((b) => ({ p: b.path, src: b.source, flag: "--ro-bind" })),
      ...l.links.map((b) => ({ p: b.path, src: b.target, flag: "--symlink" })),
      ...l.dirs.map((p) => ({ p, src: "", flag: "--dir" })),
    ]),
  ].map((b, i) => ({ ...b, i, depth: b.p.split("/").length }))
    .sort((x, y) => x.depth - y.depth || x.i - y.i);
  for (const b of binds) {
    if (b.flag === "--tmpfs") out.push("--size", tmpBytes, "--tmpfs", b.p);
    else if (b.flag === "--dir") out.push("--dir", b.p);
    else if (b.flag === "--symlink") out.push("--symlink", b.src, b.p);
    else out.push(b.flag, b.src, b.p);
  }
  for (const d of profile.hiddenDirs) out.push("--tmpfs", d, "--remount-ro", d);
  for (const f of profile.hiddenFiles) out.push("--ro-bind", "/dev/null", f);
  for (const t of profile.tmpfs ?? []) out.push("--size", tmpBytes, "--tmpfs", t);
  out.push("--remount-ro", "/", "--clearenv");
  for (const [k, v] of Object.entries(env)) out.push("--setenv", k, v);
  out.push("--chdir", cwd, "--", ...(profile.launcher ?? []), ...argv);
  return out;
}
