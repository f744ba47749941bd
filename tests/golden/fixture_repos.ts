/**
 * Builders for the small, real git repositories the golden and red-team
 * end-to-end tests run against. Each builder creates a fresh temporary
 * directory, writes the project, commits it, and returns a handle whose
 * `snapshot()` captures every byte of the user's checkout (including `.git`
 * refs and the index) so a test can assert that vouch left it untouched.
 *
 * @module
 */

const encoder = new TextEncoder();

/** A temporary repository created for one test. */
export interface FixtureRepo {
  /** Absolute path of the checkout. */
  readonly dir: string;
  /** The command a contract should run to test the project. */
  readonly verify: string;
  /** Removes the repository and everything vouch created next to it. */
  cleanup(): Promise<void>;
}

/** Runs git in `dir` with a neutral identity and no user/system config; throws on failure. */
export async function git(dir: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args: ["-c", "core.hooksPath=/dev/null", ...args],
    cwd: dir,
    env: {
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_AUTHOR_NAME: "fixture",
      GIT_AUTHOR_EMAIL: "fixture@example.invalid",
      GIT_COMMITTER_NAME: "fixture",
      GIT_COMMITTER_EMAIL: "fixture@example.invalid",
      GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z",
      GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z",
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout);
}

/** Writes `files` (relative path -> content) under `dir`, creating parent directories. */
export async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const path = `${dir}/${rel}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeFile(path, encoder.encode(content));
  }
}

/** Creates a committed repository from `files` in a fresh temporary directory. */
export async function createRepo(
  files: Record<string, string>,
  verify: string,
  options: { prefix?: string; ignored?: string[] } = {},
): Promise<FixtureRepo> {
  const root = await Deno.makeTempDir({ prefix: options.prefix ?? "vouch-golden-" });
  // Tests keep their `command:` agents beside the repo (`<root>/agent.sh`): readable by others,
  // as an install dir is (as root the agent is host uid 65534: a 0700 dir stays closed to it).
  await Deno.chmod(root, 0o755);
  const dir = `${root}/repo`;
  await Deno.mkdir(dir);
  await git(dir, "init", "-q", "-b", "main");
  const ignore = options.ignored ?? [];
  await writeFiles(
    dir,
    ignore.length > 0 ? { ...files, ".gitignore": ignore.join("\n") + "\n" } : files,
  );
  await git(dir, "add", "-A");
  await git(dir, "commit", "-q", "-m", "initial");
  return {
    dir,
    verify,
    cleanup: async () => {
      await Deno.remove(root, { recursive: true }).catch(() => {});
    },
  };
}

/** A Deno project whose single test fails: `add` subtracts. Verify: `deno test`. */
export function denoProjectFiles(): Record<string, string> {
  return {
    "deno.json": JSON.stringify({ lock: false }, null, 2) + "\n",
    "math.ts": "export function add(a: number, b: number): number {\n  return a - b;\n}\n",
    "math_test.ts": [
      'import { add } from "./math.ts";',
      "",
      'Deno.test("add adds", () => {',
      "  if (add(2, 3) !== 5) throw new Error(`add(2, 3) = ${add(2, 3)}, expected 5`);",
      "});",
      "",
    ].join("\n"),
    "README.md": "# calc\n\nA tiny calculator.\n",
  };
}

/** The shell command that runs a Deno fixture's tests with this very Deno binary. */
export function denoTestCommand(): string {
  return `'${Deno.execPath()}' test --no-check --no-prompt --quiet`;
}

/** Creates the failing Deno project. */
export function createDenoRepo(): Promise<FixtureRepo> {
  return createRepo(denoProjectFiles(), denoTestCommand(), { prefix: "vouch-golden-deno-" });
}

/**
 * A Node project with a real npm dependency (`is-number`, installed from the
 * registry by {@link createNodeRepo}) whose test imports it, and a bug in
 * `index.js`. Verify: `node --test`.
 */
export function nodeProjectFiles(): Record<string, string> {
  return {
    "package.json": JSON.stringify(
      {
        name: "vouch-golden-node",
        version: "1.0.0",
        private: true,
        scripts: { test: "node --test" },
        dependencies: { "is-number": "7.0.0" },
      },
      null,
      2,
    ) + "\n",
    "index.js": [
      'const isNumber = require("is-number");',
      "",
      "function double(x) {",
      '  if (!isNumber(x)) throw new TypeError("not a number");',
      "  return Number(x) + 2;",
      "}",
      "",
      "module.exports = { double };",
      "",
    ].join("\n"),
    "test/double.test.js": [
      'const test = require("node:test");',
      'const assert = require("node:assert/strict");',
      'const isNumber = require("is-number");',
      'const { double } = require("../index.js");',
      "",
      'test("double doubles", () => {',
      "  assert.ok(isNumber(5));",
      "  assert.equal(double(5), 10);",
      '  assert.equal(double("7"), 14);',
      "});",
      "",
    ].join("\n"),
  };
}

/**
 * Creates the failing Node project, then runs `npm install` so `node_modules/`
 * (ignored by git) holds the real dependency, as in a user's checkout.
 */
export async function createNodeRepo(): Promise<FixtureRepo> {
  const repo = await createRepo(nodeProjectFiles(), "node --test", {
    prefix: "vouch-golden-node-",
    ignored: ["node_modules/"],
  });
  const out = await new Deno.Command("npm", {
    args: ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--no-package-lock"],
    cwd: repo.dir,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    await repo.cleanup();
    throw new Error(`npm install failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return repo;
}

/**
 * Every file of the checkout (excluding `.git/` and `.vouch/`, vouch's own state
 * directory) mapped to its bytes' SHA-256, mode or symlink target, plus HEAD,
 * every ref and the index bytes. Two equal snapshots mean the checkout is
 * byte-identical for the user.
 */
export async function snapshot(dir: string): Promise<Map<string, string>> {
  const result = new Map<string, string>();
  async function walk(rel: string): Promise<void> {
    const abs = rel === "" ? dir : `${dir}/${rel}`;
    for await (const entry of Deno.readDir(abs)) {
      const child = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (child === ".vouch" || child === ".git") continue;
      const info = await Deno.lstat(`${dir}/${child}`);
      if (info.isSymlink) {
        result.set(child, `symlink:${await Deno.readLink(`${dir}/${child}`)}`);
      } else if (info.isDirectory) {
        result.set(child, `dir:${(info.mode ?? 0) & 0o777}`);
        await walk(child);
      } else {
        const bytes = await Deno.readFile(`${dir}/${child}`);
        const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
        const hex = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
        result.set(child, `file:${(info.mode ?? 0) & 0o777}:${hex}`);
      }
    }
  }
  await walk("");
  // The repository state a user cares about: HEAD, every ref, the index bytes.
  result.set(".git/HEAD", await Deno.readTextFile(`${dir}/.git/HEAD`));
  result.set(".git refs", await git(dir, "for-each-ref", "--format=%(refname) %(objectname)"));
  const index = await Deno.readFile(`${dir}/.git/index`).catch(() => new Uint8Array());
  const indexDigest = new Uint8Array(await crypto.subtle.digest("SHA-256", index));
  result.set(
    ".git/index",
    Array.from(indexDigest, (b) => b.toString(16).padStart(2, "0")).join(""),
  );
  return result;
}

/** Lists the paths whose snapshot entries differ (added, removed or changed). */
export function snapshotDifferences(
  before: Map<string, string>,
  after: Map<string, string>,
): string[] {
  const changed: string[] = [];
  for (const [path, value] of before) if (after.get(path) !== value) changed.push(path);
  for (const path of after.keys()) if (!before.has(path)) changed.push(path);
  return changed.sort();
}
