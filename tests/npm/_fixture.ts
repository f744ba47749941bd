/**
 * A small real git repository with a check that fails until `value.txt` says
 * "right", a fixing and a breaking patch; plus the built npm tarball, made once
 * per test process (`deno task npm --pack` does the same): the files of
 * tests/npm share one build.
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processStartTime } from "../../adapters/process/start_time.ts";
import { buildNpm, packNpm, ROOT } from "../../tools/build_npm.ts";

/** A fixture repository and its patches. */
export interface NpmFixtureRepo {
  readonly root: string;
  readonly repo: string;
  readonly fix: string;
  readonly bad: string;
}

function git(repo: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd: repo, encoding: "utf8" });
}

/** Creates the repository under a fresh temp dir (the caller removes `root`). */
export function fixtureRepo(): NpmFixtureRepo {
  const root = mkdtempSync(join(tmpdir(), "vouch-npm-"));
  const repo = join(root, "repo");
  execFileSync("git", ["init", "-q", "-b", "main", repo]);
  git(repo, "config", "user.email", "t@example.invalid");
  git(repo, "config", "user.name", "t");
  writeFileSync(join(repo, "value.txt"), "wrong\n");
  writeFileSync(join(repo, "check.sh"), "grep -q right value.txt\n");
  git(repo, "add", "-A");
  git(repo, "commit", "-qm", "base");
  const patch = (text: string, name: string) => {
    writeFileSync(join(repo, "value.txt"), text);
    writeFileSync(join(root, name), git(repo, "diff", "--binary", "--full-index"));
    git(repo, "checkout", "--", "value.txt");
    return join(root, name);
  };
  return { root, repo, fix: patch("right\n", "fix.patch"), bad: patch("worse\n", "bad.patch") };
}

let tarball: string | null = null;

/** Names the test process that built the tarball (pid and start time), and the tarball. */
const BUILT_BY = join(ROOT, "dist/npm-tarball.built-by");

/**
 * Builds dist/npm and packs it, once per test process; returns the tarball
 * path. `deno test` runs each test file in a worker of its own (module state
 * is per file), so the process that built it is written beside it: the next
 * file of the same process reuses it, any other process builds afresh.
 */
export function npmTarball(): string {
  if (tarball !== null) return tarball;
  const stamp = `${Deno.pid} ${processStartTime(Deno.pid)}`;
  try {
    const [by, path] = readFileSync(BUILT_BY, "utf8").split("\n");
    if (by === stamp && path !== undefined && existsSync(path)) return tarball = path;
  } catch {
    // not built yet
  }
  rmSync(BUILT_BY, { force: true });
  buildNpm();
  const path = packNpm();
  writeFileSync(BUILT_BY, `${stamp}\n${path}\n`);
  return tarball = path;
}

/**
 * Installs the built tarball into a fresh Node project at `project` (created),
 * from npm's cache or registry, and returns `project`.
 */
export function installTarball(project: string): string {
  mkdirSync(project, { recursive: true });
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }),
  );
  execFileSync("npm", [
    "install",
    "--engine-strict",
    "--no-audit",
    "--no-fund",
    "--loglevel=error",
    npmTarball(),
  ], {
    cwd: project,
    stdio: ["ignore", "pipe", "pipe"],
  });
  return project;
}
