/**
 * The baseline cache as users run it (`deno task vouch verify`, real git, real
 * node:test, the default sandbox): a second verify of the same base does not
 * run the base's checks again (no new `baseline:` receipt) and `inspect` stays
 * VERIFIED on the log that used the hit; a changed contract, a changed base, a
 * tampered entry and an entry whose receipts are in another log all miss.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

async function sh(cwd: string, ...argv: string[]): Promise<string> {
  const r = await new Deno.Command(argv[0]!, { args: argv.slice(1), cwd }).output();
  if (!r.success) throw new Error(`${argv.join(" ")}: ${new TextDecoder().decode(r.stderr)}`);
  return new TextDecoder().decode(r.stdout);
}

async function vouch(state: string, args: string[], debug = false) {
  const r = await new Deno.Command("deno", {
    args: ["task", "-q", "vouch", ...args],
    cwd: ROOT,
    env: {
      VOUCH_KEY_FILE: `${state}/key`,
      VOUCH_WORKTREE_ROOT: `${state}/wt`,
      ...(debug ? { VOUCH_DEBUG: "1" } : {}),
    },
  }).output();
  const d = new TextDecoder();
  return { code: r.code, stdout: d.decode(r.stdout), stderr: d.decode(r.stderr) };
}

async function makeRepo(dir: string): Promise<string> {
  await Deno.mkdir(`${dir}/test`, { recursive: true });
  await Deno.writeTextFile(`${dir}/calc.js`, "exports.add = (a, b) => a - b;\n");
  await Deno.writeTextFile(
    `${dir}/test/calc.test.js`,
    'const test = require("node:test");\nconst assert = require("node:assert");\n' +
      'const { add } = require("../calc.js");\n' +
      'test("adds", () => assert.equal(add(2, 3), 5));\n' +
      'test("zero", () => assert.equal(add(0, 0), 0));\n',
  );
  await sh(dir, "git", "init", "-q");
  await sh(dir, "git", "add", "-A");
  await sh(dir, "git", "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init");
  const patch = "diff --git a/calc.js b/calc.js\n--- a/calc.js\n+++ b/calc.js\n" +
    "@@ -1 +1 @@\n-exports.add = (a, b) => a - b;\n+exports.add = (a, b) => a + b;\n";
  await Deno.writeTextFile(`${dir}/../fix.diff`, patch);
  return `${dir}/../fix.diff`;
}

/** How many `baseline:` receipts (base checks that ran) the log holds. */
async function baselineRuns(log: string): Promise<number> {
  const lines = (await Deno.readTextFile(log)).split("\n").filter((l) => l !== "");
  return lines.map((l) => JSON.parse(l)).filter((r) =>
    r.kind === "tool.receipt" && String(r.body?.tool).startsWith("baseline:")
  ).length;
}

const hasNode = await new Deno.Command("node", { args: ["--version"] }).output().then(
  (r) => r.success,
  () => false,
);

Deno.test({
  name: "baseline cache: hit on the same base (no baseline re-run, inspect VERIFIED); misses",
  ignore: !hasNode,
  sanitizeResources: false,
  fn: async () => {
    const state = await Deno.makeTempDir({ prefix: "vouch-bcache-" });
    try {
      const repo = `${state}/repo/r`;
      const patch = await makeRepo(repo);
      const log = `${repo}/.vouch/events.jsonl`;
      const tree = (await sh(repo, "git", "rev-parse", "HEAD^{tree}")).trim();
      const verify = (extra: string[] = [], debug = false, dir = repo) =>
        vouch(state, [
          "verify",
          "--dir",
          dir,
          "--patch",
          patch,
          "--verify",
          "node --test",
          ...extra,
        ], debug);

      const first = await verify();
      assert.equal(first.code, 0, first.stderr + first.stdout);
      assert.match(first.stderr, /^baseline: ran$/m);
      assert.equal(await baselineRuns(log), 1);

      // Same base, contract and environment: the cached baseline, no check run at the base.
      const second = await verify();
      assert.equal(second.code, 0, second.stderr + second.stdout);
      assert.match(second.stdout, /^VERIFIED /m);
      assert.match(
        second.stderr,
        new RegExp(
          `^baseline: cached \\(base ${tree.slice(0, 12)}, from \\d{4}-\\d\\d-\\d\\dT`,
          "m",
        ),
      );
      assert.equal(await baselineRuns(log), 1, "the hit must not run the base's checks");
      // Judged per test from the cached baseline all the same.
      assert.match(second.stdout, /judged per test/);

      // The log that used the hit audits: the hit cites the first task's baseline receipts.
      const inspect = await vouch(state, ["inspect", log]);
      assert.equal(inspect.code, 0, inspect.stdout + inspect.stderr);
      assert.match(inspect.stdout, /audit\s+VERIFIED/);
      assert.match(inspect.stdout, /evidence\s+ok/);
      // In words: the second task's baseline is the first task's run, and its receipts bind.
      assert.match(
        inspect.stdout,
        /^ {2}baseline {2}reused, not run again: task t-[\w-]+'s baseline run at \d{4}-[^ ]+ \(receipts seq \d+\); they bind: MACs verify under the key, they are that task's, outcomes re-derived$/m,
      );

      // A changed contract misses.
      const other = await vouch(state, [
        "verify",
        "--dir",
        repo,
        "--patch",
        patch,
        "--verify",
        "node --test test/",
      ]);
      assert.equal(other.code, 0, other.stderr + other.stdout);
      assert.match(other.stderr, /^baseline: ran$/m);
      assert.equal(await baselineRuns(log), 2);

      // A tampered entry misses (VOUCH_DEBUG says why) and the verdict stays right.
      const dir = `${repo}/.vouch/baseline-cache`;
      for (const e of Deno.readDirSync(dir)) {
        const path = `${dir}/${e.name}`;
        const text = await Deno.readTextFile(path);
        // Claim the base's failing test passed there (it would then be a PASS_TO_PASS no more).
        await Deno.writeTextFile(path, text.replaceAll('"exitCode":1', '"exitCode":0'));
      }
      const tampered = await verify([], true);
      assert.equal(tampered.code, 0, tampered.stderr + tampered.stdout);
      assert.match(tampered.stderr, /baseline cache: miss \(bad MAC or another key\)/);
      assert.match(tampered.stderr, /^baseline: ran$/m);
      assert.equal(await baselineRuns(log), 3);
      // A wrong patch is still rejected after the re-run (and a hit on the rewritten entry).
      const wrong = `${state}/repo/wrong.diff`;
      await Deno.writeTextFile(
        wrong,
        (await Deno.readTextFile(patch)).replace("a + b;", "a * b;"),
      );
      const rejected = await vouch(state, [
        "verify",
        "--dir",
        repo,
        "--patch",
        wrong,
        "--verify",
        "node --test",
      ]);
      assert.equal(rejected.code, 1, rejected.stderr + rejected.stdout);
      assert.match(rejected.stderr, /^baseline: cached/m);

      // The same entry in another clone's state dir: its receipts are not in that log: a miss.
      const clone = `${state}/clone`;
      await sh(state, "git", "clone", "-q", repo, clone);
      await Deno.mkdir(`${clone}/.vouch`, { recursive: true });
      await sh(state, "cp", "-r", dir, `${clone}/.vouch/baseline-cache`);
      const elsewhere = await verify([], true, clone);
      assert.equal(elsewhere.code, 0, elsewhere.stderr + elsewhere.stdout);
      assert.match(elsewhere.stderr, /baseline cache: miss \(its receipts are not in this log/);
      assert.match(elsewhere.stderr, /^baseline: ran$/m);

      // A changed base misses.
      await Deno.writeTextFile(`${repo}/README.md`, "calc\n");
      await sh(repo, "git", "add", "README.md");
      await sh(repo, "git", "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "readme");
      const moved = await verify();
      assert.equal(moved.code, 0, moved.stderr + moved.stdout);
      assert.match(moved.stderr, /^baseline: ran$/m);
      assert.equal(await baselineRuns(log), 4);
    } finally {
      await Deno.remove(state, { recursive: true });
    }
  },
});
