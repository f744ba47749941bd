/**
 * Golden tests of the oracle rule (the patch under judgement never defines the
 * test that judges it) with real git, real bwrap and real `node --test`, run
 * as users run it: `vouch verify --dir R --patch P --verify "node --test"`
 * with NO other flag. Cheats (an edited expectation, `test.skip`, a deleted
 * test file) are REJECTED, each naming the test and the file; honest patches
 * (a fix, a fix that adds a test, a fix that corrects a wrong test with the
 * code) are VERIFIED; the log of every run verifies end to end (receipts of
 * both gradings bound to the kernel's result events).
 */
import assert from "node:assert/strict";
import { probeSandbox } from "../../adapters/host/sandbox_probe.ts";
import { assertLog, assertNoWorktrees, NODE, runVouch } from "./cli_harness.ts";
import { createRepo, type FixtureRepo, git, writeFiles } from "./fixture_repos.ts";

const probe = await probeSandbox();
const skip = NODE === null
  ? "node is not on PATH"
  : !probe.bwrap.available
  ? "bwrap is not available"
  : null;
if (skip !== null) console.log(`oracle_node_test: skipped: ${skip}`);

const CALC = "exports.add = (a, b) => a - b;\n";
const FIXED = "exports.add = (a, b) => a + b;\n";
const HEAD = 'const test = require("node:test");\nconst assert = require("node:assert");\n' +
  'const { add } = require("../calc.js");\n';
const TESTS = HEAD + 'test("adds", () => assert.equal(add(2, 3), 5));\n' +
  'test("adds zero", () => assert.equal(add(4, 0), 4));\n';

/** A repo whose `adds` test fails (add subtracts); `adds zero` passes. */
function calcRepo(tests = TESTS): Promise<FixtureRepo> {
  return createRepo({ "calc.js": CALC, "test/calc.test.js": tests }, "node --test", {
    prefix: "vouch-oracle-",
  });
}

/** The patch that turns the repo's files into `files` (null: delete). */
async function patchOf(repo: FixtureRepo, files: Record<string, string | null>): Promise<string> {
  for (const [path, content] of Object.entries(files)) {
    if (content === null) await Deno.remove(`${repo.dir}/${path}`);
    else await writeFiles(repo.dir, { [path]: content });
  }
  await git(repo.dir, "add", "-A");
  const patch = await git(repo.dir, "diff", "--cached", "--binary");
  await git(repo.dir, "reset", "-q", "--hard");
  const file = `${repo.dir}/../p.diff`;
  await Deno.writeTextFile(file, patch);
  return file;
}

interface Case {
  readonly name: string;
  readonly tests?: string;
  readonly files: Record<string, string | null>;
  readonly verdict: "VERIFIED" | "REJECTED";
  /** What the screen must say. */
  readonly says: readonly RegExp[];
}

const CASES: readonly Case[] = [
  {
    name: "a patch that only edits the failing test's expectation",
    files: { "test/calc.test.js": TESTS.replace("add(2, 3), 5", "add(2, 3), -1") },
    verdict: "REJECTED",
    says: [
      /test\/calc\.test\.js changed \(.*\); graded also against the base's tests: `adds` still fails there/,
    ],
  },
  {
    name: "a patch that turns the failing test into test.skip",
    files: { "test/calc.test.js": TESTS.replace('test("adds"', 'test.skip("adds"') },
    verdict: "REJECTED",
    says: [
      /test\/calc\.test\.js changed \(.*\); graded also against the base's tests: `adds` still fails there/,
    ],
  },
  {
    name: "a patch that deletes the test file",
    files: { "test/calc.test.js": null },
    verdict: "REJECTED",
    says: [
      /test\/calc\.test\.js deleted \(.*\); graded also against the base's tests: `adds` still fails there/,
    ],
  },
  {
    name: "an honest fix",
    files: { "calc.js": FIXED },
    verdict: "VERIFIED",
    says: [/tests: the patch touches no test/, /judged per test/],
  },
  {
    name: "an honest fix that also adds a test",
    files: {
      "calc.js": FIXED,
      "test/more.test.js": HEAD + 'test("adds many", () => assert.equal(add(add(1, 2), 3), 6));\n',
    },
    verdict: "VERIFIED",
    says: [
      /test\/more\.test\.js added \(.*\); graded also against the base's tests: the base's failing test \(`adds`\) passes there/,
    ],
  },
  {
    name: "a fix that corrects a wrong test together with the code",
    // `adds negatives` is wrong: it expects the bug (-1 - -1 = 0) and so passes at the base.
    tests: TESTS + 'test("adds negatives", () => assert.equal(add(-1, -1), 0));\n',
    files: {
      "calc.js": FIXED,
      "test/calc.test.js": TESTS + 'test("adds negatives", () => assert.equal(add(-1, -1), -2));\n',
    },
    verdict: "VERIFIED",
    says: [
      /`adds negatives` fails against the base's version but the patch rewrites its file and passes it there/,
    ],
  },
];

for (const c of CASES) {
  Deno.test({
    name: `oracle (node:test, no flags): ${c.name} is ${c.verdict}`,
    ignore: skip !== null,
    sanitizeResources: false,
    fn: async () => {
      const repo = await calcRepo(c.tests);
      const state = await Deno.makeTempDir({ prefix: "vouch-oracle-state-" });
      try {
        const patch = await patchOf(repo, c.files);
        const args = ["verify", "--dir", repo.dir, "--patch", patch, "--verify", "node --test"];
        const run = await runVouch(repo, args, state);
        const screen = run.stdout + run.stderr;
        assert.match(run.stdout, new RegExp(`^${c.verdict} `), screen);
        assert.equal(run.code, c.verdict === "VERIFIED" ? 0 : 1, screen);
        for (const words of c.says) assert.match(run.stdout, words, screen);
        await assertLog(repo, c.verdict === "VERIFIED" ? "verified" : "rejected", state);
        await assertNoWorktrees(state);
        // The same decision, in --json.
        const json = await runVouch(repo, [...args, "--json"], state);
        const oracle = json.json?.["oracle"] as { sentences: string[]; level: string } | undefined;
        assert.ok(oracle !== undefined, json.stdout + json.stderr);
        assert.equal(oracle.level, "test");
        for (const words of c.says) {
          assert.ok(oracle.sentences.some((s) => words.test(s) || words.test(`tests: ${s}`)));
        }
      } finally {
        await repo.cleanup();
        await Deno.remove(state, { recursive: true }).catch(() => {});
      }
    },
  });
}

Deno.test({
  name:
    "oracle (node:test): the control: with --tests-editable the expectation edit is VERIFIED, and says so",
  ignore: skip !== null,
  sanitizeResources: false,
  fn: async () => {
    const repo = await calcRepo();
    const state = await Deno.makeTempDir({ prefix: "vouch-oracle-state-" });
    try {
      const patch = await patchOf(repo, {
        "test/calc.test.js": TESTS.replace("add(2, 3), 5", "add(2, 3), -1"),
      });
      const args = ["verify", "--dir", repo.dir, "--patch", patch, "--verify", "node --test"];
      const run = await runVouch(repo, [...args, "--tests-editable"], state);
      assert.match(run.stdout, /^VERIFIED /, run.stdout + run.stderr);
      assert.match(
        run.stdout,
        /tests are editable \(--tests-editable\): graded against the patch's own tests only, NOT against the base's tests/,
      );
      // --no-baseline: no test-level differential, said; the base's tests still judge it.
      const nb = await runVouch(repo, [...args, "--no-baseline"], state);
      assert.match(nb.stdout, /^REJECTED /, nb.stdout + nb.stderr);
      assert.match(
        nb.stdout,
        /no baseline was run \(--no-baseline\), so there are no per-test lists and it is graded by exit code: the base's tests fail there/,
      );
    } finally {
      await repo.cleanup();
      await Deno.remove(state, { recursive: true }).catch(() => {});
    }
  },
});
