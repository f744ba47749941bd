/**
 * The sandbox's user when vouch runs as root: a user namespace whose uid 0 is
 * an unprivileged host uid ({@linkcode MAPPED_UID}), so a check's root is no
 * host root for the files it can reach (discretionary access as `nobody`,
 * `RLIMIT_NPROC` counted, no capability anywhere).
 *
 * bwrap 0.8 started by root writes the map `0 0 1` itself; vouch instead
 * asks it to wait (`--userns-block-fd`) and report its child (`--info-fd`),
 * and the launcher (in `adapters/process/`) writes `0 65534 1` and `1 0 1`:
 * host root is uid 1 inside, so bwrap makes its mounts as the owner of
 * root's 0700 directories (a toolchain under `/root`), and the command is
 * started through `setpriv --reuid=0` (uid 0 inside: host 65534) with no
 * capability left (bounding, inheritable and ambient sets emptied,
 * `no_new_privs`). Every directory bwrap creates is made 0755 (its parents
 * would be 0700 and owned by uid 1), its tmpfs `/tmp` and `/dev/shm` 1777,
 * HOME 0777; the writable trees are handed to the mapped uid before each
 * child. A normal user's sandbox is unchanged (bwrap maps the user to itself).
 *
 * @module
 */
import { closeSync, openSync, readFileSync, readSync, realpathSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { executable } from "./_executable.ts";
import { processUid } from "./process_uid.ts";
import type { BwrapSandbox } from "./profile.ts";

/** The host uid (and gid) a root-started sandbox's uid 0 is: `nobody`. */
export const MAPPED_UID = 65534;

/** How a root-started sandbox maps its user (see the module doc). */
export type UserMap = NonNullable<BwrapSandbox["userMap"]>;

/**
 * Whether this process runs as host root: the owner of a directory it makes
 * (Deno refuses `getuid` without `--allow-sys`).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { runsAsRoot } from "./_user_map.ts";
 * equal(typeof runsAsRoot(), "boolean");
 * ```
 */
export function runsAsRoot(): boolean {
  return processUid() === 0;
}

/** `setpriv` of util-linux, or null. */
export function setprivPath(): string | null {
  return ["/usr/bin/setpriv", "/bin/setpriv"].find(executable) ?? null;
}

/**
 * The user map of a sandbox started by this process: null for a normal user,
 * {@linkcode MAPPED_UID} through `setpriv` for root (null when `setpriv` is
 * missing: the caller refuses to sandbox, since root would stay root).
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { MAPPED_UID, userMapOfHost } from "./_user_map.ts";
 * const m = userMapOfHost();
 * ok(m === null || m.uid === MAPPED_UID);
 * ```
 */
export function userMapOfHost(): UserMap | null {
  if (!runsAsRoot()) return null;
  const setpriv = setprivPath();
  return setpriv === null ? null : { uid: MAPPED_UID, setpriv };
}

/**
 * The command prefix that leaves bwrap's uid 1 (host root, holding only
 * `CAP_SETUID`, `CAP_SETGID`, `CAP_SETPCAP` and `CAP_DAC_OVERRIDE` for this) for uid 0 inside
 * (host {@linkcode MAPPED_UID}) with no capability and no way back.
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { dropArgv } from "./_user_map.ts";
 * const a = dropArgv({ uid: 65534, setpriv: "/usr/bin/setpriv" });
 * ok(a.includes("--no-new-privs") && a.at(-1) === "--");
 * ```
 */
export function dropArgv(map: UserMap): string[] {
  const id = rootByName() ? "root" : "0";
  return [
    map.setpriv,
    `--reuid=${id}`,
    `--regid=${id}`,
    "--clear-groups",
    "--no-new-privs",
    "--inh-caps=-all",
    "--ambient-caps=-all",
    "--bounding-set=-all",
    "--",
  ];
}

let byName: boolean | undefined;

/**
 * Whether the sandbox's `/etc/passwd` and `/etc/group` (the host's, bound read-only) name uid
 * and gid 0 `root`: then `setpriv` is given the name. It looks a number up as a name first, and
 * a miss in the files goes on to the next NSS module (`libnss_systemd` loaded and its sockets
 * tried: about 0.5 ms of every check's CPU); `root` is found in the files at once.
 */
function rootByName(): boolean {
  if (byName !== undefined) return byName;
  // The first entry named root (the one a lookup finds) must have id 0.
  const rootIsZero = (file: string) => {
    try {
      const line = readFileSync(file, "utf8").split("\n").find((l) => l.startsWith("root:"));
      return line?.split(":")[2] === "0";
    } catch {
      return false;
    }
  };
  byName = rootIsZero("/etc/passwd") && rootIsZero("/etc/group");
  return byName;
}

/** The bwrap options of a mapped sandbox: wait for the map, keep what `setpriv` needs. */
export const MAPPED_BWRAP_OPTIONS: readonly string[] = [
  "--info-fd",
  "8",
  "--userns-block-fd",
  "9",
];

/** Capabilities bwrap keeps for `setpriv` (dropped by it before the command). */
export const MAPPED_CAPS: readonly string[] = [
  "--cap-add",
  "CAP_SETUID",
  "--cap-add",
  "CAP_SETGID",
  "--cap-add",
  "CAP_SETPCAP",
  // bwrap's own chdir into a tree the mapped uid owns with mode 0700 (bwrap is uid 1 then).
  "--cap-add",
  "CAP_DAC_OVERRIDE",
];

/** A directory of the sandbox's view that its mapped uid cannot enter. */
export interface ClosedDir {
  /** The program that lies beneath it. */
  readonly program: string;
  readonly dir: string;
  /** Its permission bits and owner on the host (as bound into the sandbox). */
  readonly mode: number;
  readonly uid: number;
}

const within = (path: string, dir: string) =>
  dir === "/" || path === dir || path.startsWith(dir + "/");

/** Whether host uid (and gid) `id` may search a directory of these stats. */
function searchable(s: { mode: number; uid: number; gid: number }, id: number): boolean {
  const bit = s.uid === id ? 0o100 : s.gid === id ? 0o010 : 0o001;
  return (s.mode & bit) !== 0;
}

function startsWithShebang(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const head = new Uint8Array(2);
    return readSync(fd, head, 0, 2, 0) === 2 && head[0] === 0x23 && head[1] === 0x21;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * For a mapped sandbox (vouch as root): the first directory on the way to
 * `program` that its uid 0, host {@linkcode MAPPED_UID} without capabilities,
 * cannot enter, or null. Only directories bound from the host count (the
 * ones bwrap makes for a mount are 0755), from the mount that holds the
 * program down to the program's own. A binary that `setpriv` execs directly
 * is found (it still holds its capabilities for that exec); a script's
 * interpreter, or a shell that runs it (`viaShell`), looks it up without any:
 * before, such a run only said "exit 126" or "Permission denied".
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { closedToMapped } from "./_user_map.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-"));
 * writeFileSync(join(dir, "agent.sh"), "#!/bin/sh\n", { mode: 0o755 });
 * const profile = { kind: "bwrap", bwrapPath: "bwrap", writable: [], readOnly: [dir], hiddenDirs: [], hiddenFiles: [] } as const;
 * chmodSync(dir, 0o700);
 * equal(closedToMapped(profile, join(dir, "agent.sh"), false)?.dir, dir);
 * chmodSync(dir, 0o755);
 * equal(closedToMapped(profile, join(dir, "agent.sh"), false), null);
 * rmSync(dir, { recursive: true });
 * ```
 */
export function closedToMapped(
  profile: BwrapSandbox,
  program: string,
  viaShell: boolean,
): ClosedDir | null {
  const id = profile.userMap?.uid ?? MAPPED_UID;
  let real: string;
  try {
    real = realpathSync(program);
  } catch {
    return null;
  }
  const mounts = [
    ...(profile.root ?? []).filter((m) => m.kind === "ro").map((m) => m.path),
    ...profile.readOnly,
    ...profile.writable,
  ].filter((m) => within(real, m));
  // The innermost mount holds it; a file bound alone has only bwrap's dirs above it.
  const mount = mounts.sort((a, b) => b.length - a.length)[0];
  if (mount === undefined || mount === real) return null;
  const dirs: string[] = [];
  for (let d = dirname(real); within(d, mount); d = dirname(d)) {
    dirs.unshift(d);
    if (d === mount || d === "/") break;
  }
  for (const dir of dirs) {
    try {
      const s = statSync(dir);
      if (searchable(s, id)) continue;
      // A binary setpriv execs directly is still found (read the file only in this rare case).
      return viaShell || startsWithShebang(real)
        ? { program, dir, mode: s.mode & 0o7777, uid: s.uid }
        : null;
    } catch {
      return null;
    }
  }
  return null;
}
