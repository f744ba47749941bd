/**
 * The allowlisted system part of a sandbox's root: which system directories
 * are mounted read-only, which are symlinks (merged-/usr), and which secret
 * files inside them are masked. Computed once per process.
 */
import type { Stats } from "node:fs";
import { readlinkSync, realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { RootMount } from "./profile.ts";
import { direntsOrNone, lstatOrNull, maskOf } from "./_quiet_fs.ts";

/** System directories mounted read-only when present. Nothing else of `/` is visible. */
export const SYSTEM_DIRS: readonly string[] = [
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/etc",
  "/opt",
  "/sys",
  "/nix/store",
];

/** Files under `/etc` that are masked whatever their mode says. */
export const ETC_SECRETS: readonly string[] = [
  "/etc/shadow",
  "/etc/shadow-",
  "/etc/gshadow",
  "/etc/gshadow-",
  "/etc/sudoers",
  "/etc/sudoers.d",
  "/etc/ssl/private",
  "/etc/security/opasswd",
  "/etc/krb5.keytab",
  "/etc/machine-id",
];

const MAX_ETC_ENTRIES = 20_000;

/** Files that only exist while a tool edits `/etc` (a lock, the next version of a file). */
const TRANSIENT = /(?:\.lock|\+)$/;

/**
 * Masks for everything under `dir` that is a secret: not readable by others
 * (mode `o-r`: `/etc/shadow`, ssh host keys, `/etc/ssl/private`), a socket, or
 * on the {@linkcode ETC_SECRETS} list; never a lock or a file being edited
 * (`passwd.lock`, `shadow+`), which is gone again by the time a check starts.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { secretMasks } from "./_system_root.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-etc-"));
 * for (const name of ["secret", "group.lock", "shadow+", "open"]) {
 *   writeFileSync(join(dir, name), "x");
 *   chmodSync(join(dir, name), name === "open" ? 0o644 : 0o600);
 * }
 * deepEqual(
 *   secretMasks(dir).map((m) => m.path).filter((p) => p.startsWith(dir)),
 *   [join(dir, "secret")],
 * );
 * rmSync(dir, { recursive: true });
 * ```
 */
export function secretMasks(dir: string): RootMount[] {
  const out: RootMount[] = [];
  const seen = new Set<string>();
  const add = (path: string, info: Stats) => {
    if (seen.has(path)) return;
    seen.add(path);
    out.push(maskOf(path, info));
  };
  for (const path of ETC_SECRETS) {
    const info = lstatOrNull(path);
    if (info !== null && !info.isSymbolicLink()) add(path, info);
  }
  let visited = 0;
  const walk = (d: string, depth: number) => {
    for (const e of direntsOrNone(d)) {
      if (++visited > MAX_ETC_ENTRIES) return;
      const path = join(d, e.name);
      if (e.isSymbolicLink()) continue;
      // A lock or an edit in progress (useradd's passwd.lock, shadow+) is gone again before a
      // check that reuses this profile starts, and bwrap cannot mount over what is gone in a
      // read-only /etc: the sandbox would not start. Its mode still keeps it from the check.
      if (TRANSIENT.test(e.name) && e.isFile()) continue;
      const info = lstatOrNull(path);
      if (info === null) continue;
      const otherReadable = info.mode === null || (info.mode & 0o004) !== 0;
      if (!otherReadable || info.isSocket()) {
        add(path, info);
        continue;
      }
      if (e.isDirectory() && depth < 6) walk(path, depth + 1);
    }
  };
  walk(dir, 0);
  return out;
}

/**
 * `/etc/resolv.conf` and friends are often symlinks into `/run` (which is not
 * mounted): the regular files they resolve to are mounted read-only so DNS
 * keeps working for children that share the network.
 */
function etcLinkTargets(): RootMount[] {
  const out: RootMount[] = [];
  for (const name of ["/etc/resolv.conf", "/etc/hosts", "/etc/localtime"]) {
    const info = lstatOrNull(name);
    if (info === null || !info.isSymbolicLink()) continue;
    let target: string;
    try {
      target = realpathSync(name);
    } catch {
      continue;
    }
    if (SYSTEM_DIRS.some((d) => target === d || target.startsWith(d + "/"))) continue;
    const t = lstatOrNull(target);
    if (t !== null && t.isFile()) out.push({ kind: "ro", path: target });
  }
  return out;
}

let cached: readonly RootMount[] | null = null;

/**
 * The system mounts of every sandbox, in order: each present system
 * directory read-only (or as the symlink it is), link targets of `/etc`
 * files, then the masks over secrets inside them.
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { systemRoot } from "./_system_root.ts";
 * const root = systemRoot();
 * ok(root.some((m) => m.path === "/usr" && m.kind === "ro"));
 * ok(!root.some((m) => m.kind === "ro" && (m.path === "/home" || m.path === "/var")));
 * ```
 */
export function systemRoot(): readonly RootMount[] {
  if (cached !== null) return cached;
  const mounts: RootMount[] = [];
  for (const dir of SYSTEM_DIRS) {
    const info = lstatOrNull(dir);
    if (info === null) continue;
    if (info.isSymbolicLink()) {
      let target: string;
      try {
        target = readlinkSync(dir);
      } catch {
        continue;
      }
      const real = resolve(dirname(dir), target);
      // Only a symlink into another allowlisted directory keeps its meaning inside.
      if (SYSTEM_DIRS.some((d) => real === d || real.startsWith(d + "/"))) {
        mounts.push({ kind: "symlink", path: dir, target });
      }
      continue;
    }
    if (info.isDirectory()) mounts.push({ kind: "ro", path: dir });
  }
  mounts.push(...etcLinkTargets());
  if (mounts.some((m) => m.path === "/etc" && m.kind === "ro")) mounts.push(...secretMasks("/etc"));
  cached = mounts;
  return cached;
}
