/**
 * What a sandboxed child sees of its tree's git repository: an allowlist, not
 * the user's whole `.git`.
 *
 * Before, the tree's `.git` file, its gitdir and the main repository's common
 * dir were bound read-only whole: `.git/config` (where actions/checkout
 * persists the job's token as `http.<url>.extraheader`, and remotes often
 * embed one), the user's index (staged, uncommitted files), `refs/stash`, the
 * reflogs, hooks, other worktrees' gitdirs and vouch's own refs were all in
 * reach of every check and agent.
 *
 * Now the common dir is a read-only tmpfs holding only:
 *
 * - `config`: a generated copy with the repository format alone
 *   (`core.repositoryformatversion`, `core.bare` and the few `core.*` keys that
 *   change what `git status` and `git diff` report, every `extensions.*`),
 *   values of plain words only; no remote, URL, `http.*`, credential,
 *   `include` or anything else.
 * - `objects` (read-only), `shallow` (a shallow CI clone's boundary),
 *   `info/exclude` and `info/attributes`.
 * - `refs/heads`, `refs/tags`, `refs/remotes` (names and commit ids; never
 *   `refs/stash` or other refs) and a `packed-refs` filtered to them;
 *   `reftable/` when the repository uses reftable (which holds every ref).
 * - the tree's own gitdir (a linked worktree's `worktrees/<name>`: its HEAD,
 *   its own index); for a tree whose `.git` is the repository itself, its
 *   `HEAD` and `index`.
 *
 * So `git status`, `git diff`, `git log`, `git rev-parse`, `git describe` and
 * `git ls-files` work in the tree; hooks, logs, the stash, the main index
 * (of a linked tree), other worktrees and the config's secrets are absent. A
 * config or packed-refs that cannot be read gives a minimal one (git then
 * fails rather than sees more). Not hidden: the object database itself, which
 * holds the objects of everything the repository ever stored (a stash's
 * commits, staged blobs) for a child that names them by id or lists them all.
 *
 * Generated files live in a private directory of this process (0755, files
 * 0644: a root-run sandbox's uid 65534 reads them), named by their digest,
 * removed at exit.
 *
 * @module
 */
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import type { SandboxLayer } from "./profile.ts";

/** `core.*` keys kept (they change what status and diff report), lower-case. */
const CORE_KEYS = new Set([
  "repositoryformatversion",
  "bare",
  "filemode",
  "symlinks",
  "ignorecase",
  "precomposeunicode",
  "autocrlf",
  "eol",
  "safecrlf",
  "checkstat",
  "trustctime",
]);

/** Ref namespaces a child may see (names and ids only). */
const REF_DIRS = ["refs/heads", "refs/tags", "refs/remotes"];

const PLAIN_VALUE = /^[A-Za-z0-9._-]{1,64}$/;

function kind(path: string): "dir" | "file" | null {
  try {
    const s = statSync(path);
    return s.isDirectory() ? "dir" : s.isFile() ? "file" : null;
  } catch {
    return null;
  }
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

/**
 * A git config reduced to the repository format: `core.*` keys of
 * {@linkcode CORE_KEYS} and every `extensions.*` key, from `[core]` and
 * `[extensions]` sections without subsection, with plain-word values; the last
 * value of a key wins, as in git. Everything else is dropped.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { sanitizedGitConfig } from "./_git_view.ts";
 * const text = '[core]\n\tbare = false\n[remote "origin"]\n\turl = https://t:ghp_x@h/r\n' +
 *   '[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic eA==\n' +
 *   "[extensions]\n\tobjectFormat = sha256\n";
 * equal(sanitizedGitConfig(text),
 *   "[core]\n\trepositoryformatversion = 0\n\tbare = false\n[extensions]\n\tobjectformat = sha256\n");
 * ```
 */
export function sanitizedGitConfig(text: string): string {
  const kept = { core: new Map<string, string>(), extensions: new Map<string, string>() };
  let section: "core" | "extensions" | null = null;
  let continued = false;
  for (const raw of text.split("\n")) {
    const line = raw.replace(/\r$/, "");
    // A value continued on the next line (trailing backslash) is dropped whole.
    const wasContinued = continued;
    continued = /\\$/.test(line);
    if (wasContinued) continue;
    const header = /^\s*\[([^\]]*)\](.*)$/.exec(line);
    if (header !== null) {
      const name = header[1]!.trim().toLowerCase();
      section = name === "core" || name === "extensions" ? name : null;
      // `[core] key = value` on the header's line: not kept (rare; git's own writes never do it).
      continue;
    }
    if (section === null || continued) continue;
    const entry = /^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*?))?\s*$/.exec(
      line.replace(/[#;].*$/, ""),
    );
    if (entry === null) continue;
    const key = entry[1]!.toLowerCase();
    const value = entry[2] === undefined ? "true" : entry[2];
    if (!PLAIN_VALUE.test(value)) continue;
    if (section === "core" && !CORE_KEYS.has(key)) continue;
    kept[section].set(key, value);
  }
  const core = new Map([["repositoryformatversion", "0"], ...kept.core]);
  let out = "[core]\n";
  for (const [k, v] of core) out += `\t${k} = ${v}\n`;
  if (kept.extensions.size > 0) {
    out += "[extensions]\n";
    for (const [k, v] of kept.extensions) out += `\t${k} = ${v}\n`;
  }
  return out;
}

/**
 * A `packed-refs` reduced to the namespaces of {@linkcode REF_DIRS} (with the
 * peeled `^` line of each kept tag).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { filteredPackedRefs } from "./_git_view.ts";
 * const a = "a".repeat(40), b = "b".repeat(40);
 * equal(filteredPackedRefs(`# pack-refs with: peeled\n${a} refs/stash\n${b} refs/tags/v1\n^${a}\n`),
 *   `# pack-refs with: peeled\n${b} refs/tags/v1\n^${a}\n`);
 * ```
 */
export function filteredPackedRefs(text: string): string {
  const out: string[] = [];
  let keep = false;
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) out.push(line);
    else if (line.startsWith("^")) {
      if (keep) out.push(line);
    } else {
      const ref = line.split(" ")[1] ?? "";
      keep = REF_DIRS.some((d) => ref.startsWith(d + "/"));
      if (keep) out.push(line);
    }
  }
  return out.join("\n") + "\n";
}

let dir: string | null = null;

/** A file with `text` in this process's private directory (made on first use). */
function generated(name: string, text: string): string {
  if (dir === null) {
    const made = mkdtempSync(join(tmpdir(), "vouch-git-view-"));
    chmodSync(made, 0o755);
    dir = made;
    const remove = () => {
      try {
        rmSync(made, { recursive: true, force: true });
      } catch {
        // the OS's temp dir reaps it
      }
    };
    // Node's exit (process.exit too), and Deno's unload (Deno.exit too).
    process.on("exit", remove);
    (globalThis as { addEventListener?: (t: string, f: () => void) => void }).addEventListener?.(
      "unload",
      remove,
    );
  }
  const digest = createHash("sha256").update(text).digest("hex").slice(0, 32);
  const path = join(dir, `${name}-${digest}`);
  if (!existsSync(path)) {
    writeFileSync(path, text, { mode: 0o644 });
    chmodSync(path, 0o644);
  }
  return path;
}

/** A tree's git dirs: its `.git`, its gitdir, the repository's common dir. */
interface GitDirs {
  readonly dotGit: string;
  /** The tree's own gitdir (`.git` itself, or a linked worktree's `worktrees/<name>`). */
  readonly gitdir: string;
  readonly common: string;
}

function gitDirs(worktree: string): GitDirs | null {
  const dotGit = join(worktree, ".git");
  const k = kind(dotGit);
  if (k === "dir") return { dotGit, gitdir: dotGit, common: dotGit };
  if (k !== "file") return null;
  const m = /^gitdir:\s*(.+?)\s*$/m.exec(readText(dotGit) ?? "");
  if (m === null) return { dotGit, gitdir: "", common: "" };
  const gitdir = resolve(worktree, m[1]!);
  if (kind(gitdir) !== "dir") return { dotGit, gitdir: "", common: "" };
  const commonText = readText(join(gitdir, "commondir"));
  if (commonText === null) return { dotGit, gitdir, common: gitdir };
  const common = resolve(gitdir, commonText.trim());
  return { dotGit, gitdir, common: kind(common) === "dir" ? common : "" };
}

/** What {@linkcode gitView} mounts. */
export interface GitView {
  /** Bound read-only at their own path (the tree's `.git` file, a gitdir outside the common dir). */
  readonly readOnly: readonly string[];
  /** The common dir as a read-only layer of the allowed entries, or null (no repository). */
  readonly layer: SandboxLayer | null;
}

/**
 * The read-only view of `worktree`'s git repository a sandboxed child gets
 * (see the module doc). A tree without `.git` gets nothing; a `.git` file
 * whose gitdir or common dir is missing gets the file alone.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { gitView } from "./_git_view.ts";
 * deepEqual(gitView("/nonexistent-vouch-dir"), { readOnly: [], layer: null });
 * ```
 */
export function gitView(worktree: string): GitView {
  const dirs = gitDirs(worktree);
  if (dirs === null) return { readOnly: [], layer: null };
  const { dotGit, gitdir, common } = dirs;
  const readOnly = dotGit === common ? [] : [dotGit];
  if (common === "") return { readOnly, layer: null };
  const binds: { source: string; path: string }[] = [];
  const bindIf = (rel: string, want: "dir" | "file") => {
    const p = join(common, rel);
    if (kind(p) === want) binds.push({ source: p, path: p });
  };
  const config = sanitizedGitConfig(readText(join(common, "config")) ?? "");
  binds.push({ source: generated("config", config), path: join(common, "config") });
  bindIf("objects", "dir");
  bindIf("shallow", "file");
  bindIf("info/exclude", "file");
  bindIf("info/attributes", "file");
  for (const d of REF_DIRS) bindIf(d, "dir");
  bindIf("reftable", "dir");
  const packed = readText(join(common, "packed-refs"));
  if (packed !== null) {
    const path = join(common, "packed-refs");
    binds.push({ source: generated("packed-refs", filteredPackedRefs(packed)), path });
  }
  if (gitdir === common) {
    bindIf("HEAD", "file");
    bindIf("index", "file");
  } else if (gitdir.startsWith(common + "/")) {
    binds.push({ source: gitdir, path: gitdir });
  } else readOnly.push(gitdir);
  const refs = join(common, "refs");
  return { readOnly, layer: { path: common, binds, links: [], dirs: [refs], readOnly: true } };
}
