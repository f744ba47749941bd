/**
 * Paths outside the clean tree that a sandboxed check could not see: a tool
 * or dependency named by absolute path under `/tmp` (the sandbox's `/tmp` is
 * private), in the user's home or checkout (not mounted). When a check fails
 * in the sandbox and its output says such a path is missing while it exists
 * on this machine, the failure says so and names the flag that makes it
 * visible read-only (`--sandbox-ro PATH`).
 *
 * The check's output is untrusted (the patch wrote the code that prints it), so this is no
 * oracle of the host's files: a path is named only when it is readable by others (a directory
 * searchable too) and every directory above it is searchable by others or this process's own
 * (a `mktemp -d` dir is; another user's home is not), never under vouch's key store or state
 * dir; and at most {@linkcode MAX_PROBED_PATHS} paths of one output are looked up at all.
 *
 * @module
 */
import { statSync } from "node:fs";
import { dirname } from "node:path";
import { keyDirectory, processKeyEnv } from "../keys/paths.ts";
import { processUid } from "../sandbox/process_uid.ts";

/** Output lines that report a missing file (shells, node, python, exec, ld). */
const MISSING =
  /ENOENT|No such file|not found|Cannot find module|can't open|cannot open|can't cd|does not exist|MODULE_NOT_FOUND/i;
const ABSOLUTE = /(?:^|[\s'"`(=:])(\/(?:[A-Za-z0-9._@+-]+\/)*[A-Za-z0-9._@+-]+)/g;

/** How many of an output's paths are looked up on this machine, at most. */
export const MAX_PROBED_PATHS = 5;

/** vouch's own key store and state dirs: never looked up for a check. */
function vouchPrivateDirs(): string[] {
  try {
    const env = processKeyEnv();
    const keys = keyDirectory(env);
    return [dirname(keys), ...(env.VOUCH_KEY_FILE ? [dirname(env.VOUCH_KEY_FILE)] : [])];
  } catch {
    return [];
  }
}

/**
 * Whether `path` exists and may be named (readable by others, a directory searchable too;
 * every directory above it searchable by others or this process's own), and what it is.
 */
function existsOnHost(path: string): "dir" | "file" | null {
  if (vouchPrivateDirs().some((d) => path === d || path.startsWith(`${d}/`))) return null;
  try {
    const uid = processUid();
    const parts = path.split("/").filter((p) => p.length > 0);
    for (let i = 0; i < parts.length; i++) {
      const st = statSync(`/${parts.slice(0, i).join("/")}`);
      if ((st.mode & 0o001) === 0 && st.uid !== uid) return null;
    }
    const st = statSync(path);
    if (st.isDirectory()) return (st.mode & 0o005) === 0o005 ? "dir" : null;
    return (st.mode & 0o004) !== 0 ? "file" : null;
  } catch {
    return null;
  }
}

/**
 * What to make visible for a hidden path: for anything under a `node_modules`
 * the whole `node_modules` (`.bin/mocha` links to `../mocha/bin/mocha.js`,
 * which needs its package and its dependencies), else the file's directory.
 */
function mountFor(path: string, kind: "dir" | "file"): string {
  const parts = path.split("/");
  const nm = parts.lastIndexOf("node_modules");
  if (nm > 0 && nm < parts.length - 1) return parts.slice(0, nm + 1).join("/");
  return kind === "dir" ? path : dirname(path);
}

/** Options of {@linkcode hiddenPathHint}. */
export interface HiddenPathOptions {
  /** The clean tree (paths inside it are the check's own). */
  readonly tree: string;
  /** Whether a path exists on this machine (default: `stat` it). */
  readonly exists?: (path: string) => "dir" | "file" | null;
}

/**
 * The absolute paths a failing sandboxed check's output reports missing
 * although they exist on this machine (outside the clean tree), each with the
 * directory to pass to `--sandbox-ro`. Empty when nothing fits.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { hiddenPaths } from "./outside_paths.ts";
 * const exists = (p: string) => p === "/tmp/tools/bin/lint" ? "file" as const : null;
 * deepEqual(
 *   hiddenPaths("sh: 1: /tmp/tools/bin/lint: not found", { tree: "/wt/tree", exists }),
 *   [{ path: "/tmp/tools/bin/lint", mount: "/tmp/tools/bin" }],
 * );
 * const mocha = (p: string) => p === "/tmp/x/node_modules/.bin/mocha" ? "file" as const : null;
 * deepEqual(
 *   hiddenPaths("sh: 1: /tmp/x/node_modules/.bin/mocha: not found", { tree: "/t", exists: mocha }),
 *   [{ path: "/tmp/x/node_modules/.bin/mocha", mount: "/tmp/x/node_modules" }],
 * );
 * ```
 */
export function hiddenPaths(
  output: string,
  opts: HiddenPathOptions,
): { path: string; mount: string }[] {
  const exists = opts.exists ?? existsOnHost;
  const found = new Map<string, string>();
  const probed = new Set<string>();
  for (const line of output.split("\n")) {
    if (!MISSING.test(line)) continue;
    for (const m of line.matchAll(ABSOLUTE)) {
      const path = m[1]!.replace(/[.:]+$/, "");
      if (path === opts.tree || path.startsWith(opts.tree + "/") || probed.has(path)) continue;
      // A real cap: the output names as many paths as it likes; few are looked up.
      if (probed.size >= MAX_PROBED_PATHS) return result(found);
      probed.add(path);
      const kind = exists(path);
      if (kind !== null) found.set(path, mountFor(path, kind));
    }
  }
  return result(found);
}

function result(found: Map<string, string>): { path: string; mount: string }[] {
  return [...found].map(([path, mount]) => ({ path, mount }));
}

/**
 * One sentence for a failure caused by paths hidden from the sandbox, or
 * `null` (see {@linkcode hiddenPaths}).
 *
 * @example
 * ```ts
 * import { match } from "node:assert/strict";
 * import { hiddenPathHint } from "./outside_paths.ts";
 * const exists = (p: string) => p === "/tmp/x/lib.js" ? "file" as const : null;
 * const hint = hiddenPathHint("Error: Cannot find module '/tmp/x/lib.js'", { tree: "/t", exists });
 * match(hint ?? "", /--sandbox-ro \/tmp\/x/);
 * ```
 */
export function hiddenPathHint(output: string, opts: HiddenPathOptions): string | null {
  const hidden = hiddenPaths(output, opts);
  if (hidden.length === 0) return null;
  const mounts = [...new Set(hidden.map((h) => h.mount))];
  return `${hidden.map((h) => h.path).join(", ")} ${
    hidden.length === 1 ? "exists" : "exist"
  } on this machine but not inside the sandbox (only the clean tree and system/toolchain ` +
    `directories are visible; /tmp is private): pass ${
      mounts.map((m) => `--sandbox-ro ${m}`).join(" ")
    } to make ${mounts.length === 1 ? "it" : "them"} visible read-only`;
}
