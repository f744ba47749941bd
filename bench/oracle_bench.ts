/**
 * Issue #19's cost of "the tests are the oracle by default", on one node:test
 * project whose suite takes about a second (a passing test waits 900 ms) and
 * whose "adds" test fails on the base. Every entry is compared with the bare
 * minimum a careful human does: a fresh worktree, `git apply --index`,
 * `node --test`, remove the worktree. `vouch verify` runs with its defaults
 * (library `verifyPatchInRepo`, the contract `contractFromCommand("node
 * --test")`, the default sandbox). Deno prints each entry's ratio to the
 * bare entry in one run. Targets:
 *
 * - a patch that touches no oracle file, the base's baseline cached: <= 1.10x;
 * - the first verify of a base (baseline + check; every iteration a new base): <= 2.1x;
 * - a patch that also touches the tests (graded on the patched tree and against
 *   the base's tests: two oracles), baseline cached: <= 2.2x.
 *
 * Runnable alone: `deno bench -A bench/oracle_bench.ts`; the same three are
 * budgets of `deno task bench:check` (measured interleaved with the bare peer).
 */
import { dirname } from "node:path";
import { contractFromCommand } from "../adapters/verification/clean_verifier.ts";
import { createRepo, git } from "../tests/golden/fixture_repos.ts";
import { type BudgetSpec, interleavedMs } from "./_budget.ts";
import { mustVerify, sh } from "./_verify.ts";

const TEST = "node --test";
const CALC_TEST = [
  'const test = require("node:test");',
  'const assert = require("node:assert/strict");',
  'const { add, sub } = require("../src/calc.js");',
  'test("adds", () => { assert.equal(add(2, 3), 5); });',
  'test("subtracts", () => { assert.equal(sub(5, 3), 2); });',
  "",
].join("\n");
const repo = await createRepo(
  {
    "package.json": '{ "name": "calc", "private": true, "scripts": { "test": "node --test" } }\n',
    "src/calc.js": "exports.add = (a, b) => a - b;\nexports.sub = (a, b) => a - b;\n",
    "test/calc.test.js": CALC_TEST,
    "test/slow.test.js": [
      'const test = require("node:test");',
      'test("waits (about one second)", async () => {',
      "  await new Promise((r) => setTimeout(r, 900));",
      "});",
      "",
    ].join("\n"),
    "BUILD_ID": "0\n",
  },
  TEST,
  { prefix: "vouch-bench-oracle-" },
);
const state = await Deno.makeTempDir({ prefix: "vouch-bench-oracle-state-" });

/** The binary patch of `files` against HEAD; the checkout is restored. */
async function patchOf(files: Record<string, string>, name: string): Promise<[Uint8Array, string]> {
  for (const [path, text] of Object.entries(files)) {
    await Deno.writeTextFile(`${repo.dir}/${path}`, text);
  }
  const patch = new TextEncoder().encode(await git(repo.dir, "diff", "--binary", "--full-index"));
  await git(repo.dir, "checkout", "--", ".");
  const file = `${state}/${name}.patch`;
  await Deno.writeFile(file, patch);
  return [patch, file];
}

const FIXED = "exports.add = (a, b) => a + b;\nexports.sub = (a, b) => a - b;\n";
const [fix, fixFile] = await patchOf({ "src/calc.js": FIXED }, "fix");
const [withTest] = await patchOf({
  "src/calc.js": FIXED,
  "test/calc.test.js": CALC_TEST + 'test("adds zero", () => { assert.equal(add(0, 4), 4); });\n',
}, "with-test");

// Fresh bases for "first verify": siblings of HEAD that differ only in BUILD_ID.
const head = (await git(repo.dir, "rev-parse", "HEAD")).trim();
const freshBases: string[] = [];
for (let i = 1; i <= 24; i++) {
  await Deno.writeTextFile(`${repo.dir}/BUILD_ID`, `${i}\n`);
  await git(repo.dir, "commit", "-q", "-am", `build ${i}`);
  freshBases.push((await git(repo.dir, "rev-parse", "HEAD")).trim());
  await git(repo.dir, "reset", "-q", "--hard", head);
}

const contract = contractFromCommand(TEST, 60_000);
let n = 0;

function verify(patch: Uint8Array, base?: string): Promise<void> {
  return mustVerify(state, {
    dir: repo.dir,
    patch,
    contract,
    ...(base !== undefined ? { base } : {}),
  });
}

async function bare(): Promise<void> {
  const wt = `${state}/bare-${n++}`;
  await sh(repo.dir, `git worktree add -q --detach '${wt}' HEAD`);
  await sh(wt, `git apply --index '${fixFile}' && ${TEST}`);
  await sh(repo.dir, `git worktree remove --force '${wt}'`);
}

let fresh = 0;
/** A verify of the fix on a base never verified before (its baseline not cached). */
async function verifyOnFreshBase(): Promise<void> {
  // Deno's runner may call a slow bench more often than `n + warmup`: then one more base.
  let base = freshBases[fresh++];
  if (base === undefined) {
    await Deno.writeTextFile(`${repo.dir}/BUILD_ID`, `${fresh}\n`);
    await git(repo.dir, "commit", "-q", "-am", `build ${fresh}`);
    base = (await git(repo.dir, "rev-parse", "HEAD")).trim();
    await git(repo.dir, "reset", "-q", "--hard", head);
  }
  return verify(fix, base);
}

Deno.bench({
  group: "oracle",
  name: "bare: worktree + git apply --index + node --test",
  baseline: true,
  n: 5,
  warmup: 1,
  fn: bare,
});

Deno.bench({
  group: "oracle",
  name: "vouch verify, no oracle file touched, baseline cached (target <= 1.10x)",
  n: 5,
  warmup: 1, // the warmup pays for the base's baseline
  async fn() {
    await verify(fix);
  },
});

Deno.bench({
  group: "oracle",
  name: "vouch verify, first verify of a base (target <= 2.1x)",
  n: 5,
  warmup: 1,
  fn: verifyOnFreshBase,
});

Deno.bench({
  group: "oracle",
  name: "vouch verify, patch touches the tests: two oracles, baseline cached (target <= 2.2x)",
  n: 5,
  warmup: 1,
  async fn() {
    await verify(withTest);
  },
});

const PEER = "bare git worktree add + git apply --index + node --test + git worktree remove";

/** Budgets checked by `deno task bench:check` (docs/benchmarks.md). */
export const budgets: readonly BudgetSpec[] = [
  {
    id: "oracle.cached",
    measures: "vouch verify (library, defaults) of a patch that touches no oracle file, " +
      "the base's baseline cached, one-second node --test suite, ms",
    peer: PEER,
    bound: "<= 1.10x",
    measure: () => interleavedMs(() => verify(fix), bare, { warmup: 1, rounds: 5 }),
  },
  {
    id: "oracle.first_verify",
    measures: "the same verify on a base never verified before (baseline + check), ms",
    peer: PEER,
    bound: "<= 2.1x",
    measure: () => interleavedMs(verifyOnFreshBase, bare, { warmup: 1, rounds: 5 }),
  },
  {
    id: "oracle.two_oracles",
    measures: "vouch verify of a fix that also adds a test (graded on the patched tree and " +
      "against the base's tests), baseline cached, ms",
    peer: PEER,
    bound: "<= 2.2x",
    measure: () => interleavedMs(() => verify(withTest), bare, { warmup: 1, rounds: 5 }),
  },
];

globalThis.addEventListener("unload", () => {
  Deno.removeSync(state, { recursive: true });
  // Not `${repo.dir}/..`: removing a path that ends in ".." empties the directory but leaves it.
  Deno.removeSync(dirname(repo.dir), { recursive: true });
});
