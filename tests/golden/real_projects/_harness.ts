/**
 * Runs the real `vouch verify` CLI against self-written fixture projects that
 * reproduce what real projects do (dot-directory-sensitive suites, lint caches
 * in `node_modules`, symlinked `node_modules`, npm workspaces), with the
 * DEFAULT worktree root: no `VOUCH_WORKTREE_ROOT`, a private `TMPDIR` and a
 * private `HOME` (so the pre-fix default `~/.local/state/...` would apply).
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { VOUCH_TASK_FLAGS } from "../cli_harness.ts";
import { git, snapshot, snapshotDifferences } from "../fixture_repos.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const MAIN = `${ROOT}cli/main.ts`;
/** Deno's module cache of this process, so the child (with a private HOME) finds the npm deps. */
const DENO_DIR = Deno.env.get("DENO_DIR") ??
  `${Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME") ?? "/root"}/.cache`}/deno`;

/** Whether bwrap works here (sandboxed cases run with it; `none` cases always run). */
export const HAVE_BWRAP: boolean = (() => {
  try {
    const r = new Deno.Command("bwrap", {
      args: ["--ro-bind", "/", "/", "--unshare-net", "true"],
      stdout: "null",
      stderr: "null",
    }).outputSync();
    return r.success;
  } catch {
    return false;
  }
})();

/** A fixture project: a committed repository plus scratch space for the run. */
export interface Project {
  /** The checkout (committed; ignored files such as node_modules added after). */
  readonly dir: string;
  /** Scratch directory outside the checkout (TMPDIR, HOME, key file of the run). */
  readonly state: string;
  /** Removes everything. */
  cleanup(): Promise<void>;
}

/** What `vouch` printed and returned. */
export interface VerifyRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly json: Record<string, unknown> | null;
}

/**
 * Creates a project in `<tmp>/<prefix>*` with `files` committed; `.gitignore`
 * lists `ignored`; `untracked` files are written after the commit (dependency
 * directories a user installed).
 */
export async function createProject(
  prefix: string,
  files: Record<string, string>,
  opts: { ignored?: string[]; untracked?: Record<string, string> } = {},
): Promise<Project> {
  const root = await Deno.makeTempDir({ prefix });
  const dir = `${root}/repo`;
  const state = `${root}/state`;
  await Deno.mkdir(dir);
  await Deno.mkdir(`${state}/tmp`, { recursive: true });
  await Deno.mkdir(`${state}/home`, { recursive: true });
  await git(dir, "init", "-q", "-b", "main");
  const all = opts.ignored ? { ...files, ".gitignore": opts.ignored.join("\n") + "\n" } : files;
  await write(dir, all);
  await git(dir, "add", "-A");
  await git(dir, "commit", "-q", "-m", "initial");
  await write(dir, opts.untracked ?? {});
  return { dir, state, cleanup: () => Deno.remove(root, { recursive: true }).catch(() => {}) };
}

/** Writes files (relative path -> text; a `chmod +x` for names under `.bin/` or ending `.sh`). */
export async function write(dir: string, files: Record<string, string>): Promise<void> {
  for (const [rel, text] of Object.entries(files)) {
    const path = `${dir}/${rel}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(path, text);
    if (/\/bin\/|\.sh$/.test(rel)) await Deno.chmod(path, 0o755);
  }
}

/** A patch of the working-tree edits `edit` makes, the checkout restored afterwards. */
export async function patchOf(
  project: Project,
  edit: Record<string, string>,
  name = "fix",
): Promise<string> {
  await write(project.dir, edit);
  await git(project.dir, "add", "-N", "--", ...Object.keys(edit));
  const patch = await git(project.dir, "diff", "--binary");
  await git(project.dir, "reset", "-q");
  await git(project.dir, "checkout", "--", ".");
  await git(project.dir, "clean", "-fdq"); // new files (ignored ones such as node_modules stay)
  const file = `${project.state}/${name}.patch`;
  await Deno.writeTextFile(file, patch);
  return file;
}

/**
 * Runs `vouch ARGS` in `cwd` (default the checkout) the way a user does: the
 * `deno task vouch` flags, a private TMPDIR and HOME, NO worktree root override.
 */
export async function vouch(
  project: Project,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<VerifyRun> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...VOUCH_TASK_FLAGS, `--config=${ROOT}deno.json`, MAIN, ...args],
    cwd: opts.cwd ?? project.dir,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: `${project.state}/home`,
      TMPDIR: `${project.state}/tmp`,
      USER: "fixture",
      VOUCH_KEY_FILE: `${project.state}/key`,
      NO_COLOR: "1",
      DENO_DIR,
      ...opts.env,
    },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  let json: Record<string, unknown> | null = null;
  try {
    json = JSON.parse(stdout.trim().split("\n").at(-1) ?? "");
  } catch {
    json = null;
  }
  return { code: out.code, stdout, stderr: new TextDecoder().decode(out.stderr), json };
}

/**
 * Runs `vouch verify --json` with `args` and asserts the user's checkout
 * (node_modules included) is byte-identical afterwards and no worktree is
 * left under the default root.
 */
export async function verifyUnchanged(
  project: Project,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<VerifyRun> {
  const before = await snapshot(project.dir);
  const run = await vouch(project, ["verify", "--json", ...args], opts);
  assert.deepEqual(
    snapshotDifferences(before, await snapshot(project.dir)),
    [],
    "the user's checkout, node_modules included, is byte-identical",
  );
  const root = `${project.state}/tmp/vouch-fixture/worktrees`;
  const left: string[] = [];
  try {
    for await (const repoDir of Deno.readDir(root)) {
      for await (const e of Deno.readDir(`${root}/${repoDir.name}`)) left.push(e.name);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  assert.deepEqual(left, [], "no worktree is left behind");
  return run;
}

/** The sandbox modes a case runs under: `none` always, `bwrap` where it works. */
export function sandboxes(): string[] {
  if (!HAVE_BWRAP) console.log("bwrap does not work here: only --sandbox none is exercised");
  return HAVE_BWRAP ? ["none", "bwrap"] : ["none"];
}

/** A compact view of a run for assertion messages. */
export function show(run: VerifyRun): string {
  return `exit ${run.code}\n${run.stdout}\n${run.stderr}`;
}
