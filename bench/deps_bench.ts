/**
 * Issue #22's "dependencies cost what they are": `vouch verify` of a real fix
 * on an express-shaped project (a mocha suite run by `npm test`, a real-sized
 * `node_modules` of about 66 MB of real packages: mocha, vitest and more from
 * the repository's pinned fixtures) against the bare `npm test` a user runs in
 * the fixed checkout. Under bwrap the checks see the user's `node_modules`
 * read-only (bound entry by entry), so nothing is copied per verification.
 * Deno prints each entry's ratio to the bare entry in one run. Targets:
 *
 * - `vouch verify`, the base's baseline cached (a second verify of one base,
 *   the day-to-day case): <= 1.3x the bare `npm test`;
 * - the first verify of a base (the baseline run, then the patched run: two
 *   suite runs by design): reported, <= 2.6x;
 * - for scale, `cp -a` of that `node_modules` (what each verify did before).
 *
 * Runnable alone: `deno bench -A bench/deps_bench.ts`; `deps.cached` is a
 * budget of `deno task bench:check` (measured interleaved with the bare peer).
 */
import { dirname, join } from "node:path";
import { contractFromCommand } from "../adapters/verification/clean_verifier.ts";
import { createRepo, git } from "../tests/golden/fixture_repos.ts";
import { type BudgetSpec, interleavedMs } from "./_budget.ts";
import { mustVerify } from "./_verify.ts";

const TEST = "npm test";
const TARGET_BYTES = 66 * 1024 * 1024;
const FIXTURES = new URL("../tests/fixtures/", import.meta.url).pathname;

/** `lib/router.js`: express-like path matching with a bug (a trailing slash is not matched). */
const ROUTER = (fixed: boolean) =>
  [
    "exports.match = (route, path) => {",
    fixed ? '  const p = path.length > 1 ? path.replace(/\\/$/, "") : path;' : "  const p = path;",
    "  const a = route.split('/'), b = p.split('/');",
    "  if (a.length !== b.length) return null;",
    "  const params = {};",
    "  for (let i = 0; i < a.length; i++) {",
    "    if (a[i].startsWith(':')) params[a[i].slice(1)] = decodeURIComponent(b[i]);",
    "    else if (a[i] !== b[i]) return null;",
    "  }",
    "  return params;",
    "};",
    "",
  ].join("\n");

/** 20 test files of 50 mocha tests each, every test awaiting a short timer (about 2.5 s). */
function testFiles(): Record<string, string> {
  const out: Record<string, string> = {};
  for (let f = 0; f < 20; f++) {
    const lines = [
      'const assert = require("node:assert");',
      'const { match } = require("../lib/router.js");',
      `describe("router ${f}", () => {`,
    ];
    for (let t = 0; t < 50; t++) {
      lines.push(
        `  it("matches /users/:id ${t}", async () => {`,
        "    await new Promise((r) => setTimeout(r, 2));",
        `    assert.deepStrictEqual(match("/users/:id", "/users/${t}"), { id: "${t}" });`,
        "  });",
      );
    }
    if (f === 0) {
      lines.push(
        '  it("matches a trailing slash", () => {',
        '    assert.deepStrictEqual(match("/users/:id", "/users/7/"), { id: "7" });',
        "  });",
      );
    }
    lines.push("});", "");
    out[`test/router_${String(f).padStart(2, "0")}.test.js`] = lines.join("\n");
  }
  return out;
}

async function sh(cwd: string, command: string): Promise<void> {
  const out = await new Deno.Command("sh", { args: ["-c", command], cwd, stdout: "null" })
    .output();
  if (!out.success) throw new Error(`bench command failed: ${command}`);
}

async function duBytes(dir: string): Promise<number> {
  const out = await new Deno.Command("du", { args: ["-sb", dir], stdout: "piped" }).output();
  return Number(new TextDecoder().decode(out.stdout).split("\t")[0]);
}

/**
 * The project's node_modules: mocha (with its .bin links), vitest's tree, then
 * whole packages of the pinned agent CLIs (by name) until about 66 MB.
 */
async function installNodeModules(dir: string): Promise<string> {
  const nm = join(dir, "node_modules");
  const runners = join(FIXTURES, "runners/node_modules");
  await Deno.stat(join(runners, "mocha")).catch(() => {
    throw new Error("bench needs tests/fixtures/runners installed (npm ci, see .ci/run)");
  });
  // Real paths: a worktree's fixture dirs may be symlinks to another checkout's (never written).
  await Deno.mkdir(nm);
  await sh(dir, `cp -a '${await Deno.realPath(runners)}/.' '${nm}'`);
  const more = [];
  for (const rel of ["runners/vitest/node_modules", "agent_clis/node_modules"]) {
    more.push(await Deno.realPath(join(FIXTURES, rel)).catch(() => join(FIXTURES, rel)));
  }
  let bytes = await duBytes(nm);
  for (const source of more) {
    const names = await Array.fromAsync(Deno.readDir(source)).catch(() => []);
    for (const name of names.map((e) => e.name).filter((n) => !n.startsWith(".")).sort()) {
      if (bytes >= TARGET_BYTES) break;
      const at = join(nm, name);
      if (await Deno.lstat(at).then(() => true, () => false)) continue;
      const size = await duBytes(join(source, name));
      if (bytes + size > TARGET_BYTES * 1.1) continue;
      await sh(dir, `cp -a '${join(source, name)}' '${at}'`);
      bytes += size;
    }
  }
  const files = await new Deno.Command("sh", {
    args: ["-c", `find '${nm}' -type f | wc -l`],
    stdout: "piped",
  }).output();
  return `${Math.round(bytes / 1024 / 1024)} MB, ${
    new TextDecoder().decode(files.stdout).trim()
  } files, ${(await Array.fromAsync(Deno.readDir(nm))).length} entries`;
}

const repo = await createRepo(
  {
    "package.json": JSON.stringify(
      {
        name: "router-shaped",
        private: true,
        scripts: { test: "mocha --reporter dot --check-leaks test/" },
        devDependencies: { mocha: "10" },
      },
      null,
      2,
    ) + "\n",
    "lib/router.js": ROUTER(false),
    "BUILD_ID": "0\n",
    ...testFiles(),
  },
  TEST,
  { prefix: "vouch-bench-deps-", ignored: ["node_modules/"] },
);
const size = await installNodeModules(repo.dir);
const state = await Deno.makeTempDir({ prefix: "vouch-bench-deps-state-" });
await Deno.writeTextFile(join(repo.dir, "lib/router.js"), ROUTER(true));
const fix = new TextEncoder().encode(await git(repo.dir, "diff", "--binary", "--full-index"));
await git(repo.dir, "checkout", "--", ".");
const head = (await git(repo.dir, "rev-parse", "HEAD")).trim();
// The user's fixed checkout (the bare run): the same files, the fix applied, its own node_modules.
const fixed = join(state, "fixed");
await sh(repo.dir, `git worktree add -q --detach '${fixed}' HEAD`);
await Deno.writeTextFile(join(fixed, "lib/router.js"), ROUTER(true));
await sh(state, `ln -s '${join(repo.dir, "node_modules")}' '${join(fixed, "node_modules")}'`);
// Bases never verified before, for the first-verify entry (more are made on demand).
let fresh = 0;
const contract = contractFromCommand(TEST, 300_000);
console.error(`deps_bench: node_modules ${size}`);

// The bare run's npm skips its update check as vouch's checks do (their HOME is fresh, see
// adapters/process/_child_env.ts): in the user's HOME npm asks the registry about once a day, and
// a bare run that did so took seconds longer (one run measured 0.74x, another 1.52x).
const BARE_ENV = "npm_config_update_notifier=false NO_UPDATE_NOTIFIER=1";

async function bare(): Promise<void> {
  await sh(fixed, `${BARE_ENV} ${TEST}`);
}

function verify(base?: string): Promise<void> {
  return mustVerify(state, {
    dir: repo.dir,
    patch: fix,
    contract,
    ...(base !== undefined ? { base } : {}),
  });
}

async function verifyOnFreshBase(): Promise<void> {
  await Deno.writeTextFile(`${repo.dir}/BUILD_ID`, `${++fresh}\n`);
  await git(repo.dir, "commit", "-q", "-am", `build ${fresh}`);
  const base = (await git(repo.dir, "rev-parse", "HEAD")).trim();
  await git(repo.dir, "reset", "-q", "--hard", head);
  await verify(base);
}

let copies = 0;
async function copyNodeModules(): Promise<void> {
  const to = join(state, `copy-${copies++}`);
  await sh(state, `cp -a --reflink=auto '${join(repo.dir, "node_modules")}/.' '${to}'`);
  await Deno.remove(to, { recursive: true });
}

Deno.bench({
  group: "deps",
  name: `bare: npm test in the fixed checkout (node_modules ${size})`,
  baseline: true,
  n: 5,
  warmup: 1,
  fn: bare,
});

Deno.bench({
  group: "deps",
  name: "vouch verify, baseline cached (target <= 1.3x)",
  n: 5,
  warmup: 1, // the warmup pays for the base's baseline
  async fn() {
    await verify();
  },
});

Deno.bench({
  group: "deps",
  name: "vouch verify, first verify of a base: baseline + check (target <= 2.6x)",
  n: 3,
  warmup: 0,
  fn: verifyOnFreshBase,
});

Deno.bench({
  group: "deps",
  name: "for scale: cp -a of that node_modules (what each verify copied before)",
  n: 3,
  warmup: 0,
  fn: copyNodeModules,
});

/** Budgets checked by `deno task bench:check` (docs/benchmarks.md). */
export const budgets: readonly BudgetSpec[] = [
  {
    id: "deps.cached",
    measures: "vouch verify (library, defaults, bwrap) of a real fix on an express-shaped " +
      `project (mocha via npm test, node_modules ${size}), baseline cached, ms`,
    peer: "bare npm test in the fixed checkout",
    bound: "<= 1.3x",
    measure: () => interleavedMs(() => verify(), bare, { warmup: 1, rounds: 5 }),
  },
];

globalThis.addEventListener("unload", () => {
  Deno.removeSync(state, { recursive: true });
  Deno.removeSync(dirname(repo.dir), { recursive: true });
});
