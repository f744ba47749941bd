/**
 * `vouch batch --tests-editable` as users run it (`deno task vouch`, real git,
 * real node:test, the default sandbox): a candidate that only rewrites the
 * failing test's expectation is not resolved by default (the base's tests still
 * judge it) and is resolved with the flag (its own tests only); the flag is
 * part of every candidate's resume key, so a verdict judged without it is not
 * reused with it (same --out, no --fresh), and so is `--sandbox none`.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const d = new TextDecoder();

async function sh(cwd: string, ...argv: string[]): Promise<string> {
  const r = await new Deno.Command(argv[0]!, { args: argv.slice(1), cwd }).output();
  if (!r.success) throw new Error(`${argv.join(" ")}: ${d.decode(r.stderr)}`);
  return d.decode(r.stdout);
}

async function vouch(state: string, args: string[]) {
  const r = await new Deno.Command("deno", {
    args: ["task", "-q", "vouch", ...args],
    cwd: ROOT,
    env: { VOUCH_KEY_FILE: `${state}/key`, VOUCH_WORKTREE_ROOT: `${state}/wt` },
  }).output();
  return { code: r.code, out: d.decode(r.stdout) + d.decode(r.stderr) };
}

const TEST = 'const test = require("node:test");\nconst assert = require("node:assert");\n' +
  'const { add } = require("../calc.js");\n' +
  'test("adds", () => assert.equal(add(2, 3), 5));\n' +
  'test("zero", () => assert.equal(add(0, 0), 0));\n';

const hasNode = await new Deno.Command("node", { args: ["--version"] }).output().then(
  (r) => r.success,
  () => false,
);

Deno.test({
  name: "vouch batch --tests-editable: an expectation rewrite is resolved only with the flag",
  ignore: !hasNode,
  fn: async () => {
    const state = await Deno.makeTempDir({ prefix: "vouch-batch-editable-" });
    try {
      const repo = `${state}/repo`;
      await Deno.mkdir(`${repo}/test`, { recursive: true });
      await Deno.writeTextFile(`${repo}/calc.js`, "exports.add = (a, b) => a - b;\n");
      await Deno.writeTextFile(`${repo}/test/calc.test.js`, TEST);
      await sh(repo, "git", "init", "-q");
      await sh(repo, "git", "add", "-A");
      await sh(repo, "git", "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init");
      const base = (await sh(repo, "git", "rev-parse", "HEAD")).trim();
      await Deno.writeTextFile(`${repo}/test/calc.test.js`, TEST.replace("5));", "-1));"));
      const cheat = await sh(repo, "git", "diff");
      await sh(repo, "git", "checkout", "-q", "--", ".");
      assert.match(cheat, /-1\)\);/);
      const tasks = `${state}/tasks.jsonl`;
      await Deno.writeTextFile(
        tasks,
        JSON.stringify({ id: "calc-1", repo: "repo", base, verify: { command: "node --test" } }) +
          "\n",
      );
      const preds = `${state}/preds.json`;
      await Deno.writeTextFile(
        preds,
        JSON.stringify([{
          instance_id: "calc-1",
          model_name_or_path: "cheat",
          model_patch: cheat,
        }]),
      );
      const out = `${state}/out`;
      const batch = (extra: string[]) =>
        vouch(state, [
          "batch",
          "--tasks",
          tasks,
          "--predictions",
          preds,
          "--out",
          out,
          "--concurrency",
          "1",
          ...extra,
        ]);
      const report = async () => JSON.parse(await Deno.readTextFile(`${out}/report.json`));

      const strict = await batch([]);
      assert.deepEqual((await report()).resolved_ids, [], strict.out);

      const editable = await batch(["--tests-editable"]);
      assert.equal(editable.code, 0, editable.out);
      assert.match(editable.out, /0 already judged/);
      assert.deepEqual((await report()).resolved_ids, ["calc-1"], editable.out);

      // No sandbox judges differently too: its own key (a verdict judged without the sandbox is
      // never reused by a sandboxed run, nor the other way); the defaults' keys stay the task's.
      const bare = await batch(["--sandbox", "none"]);
      assert.equal(bare.code, 0, bare.out);
      assert.match(bare.out, /0 already judged/);
      const again = await batch([]);
      assert.match(again.out, /1 already judged/, again.out);
      assert.deepEqual((await report()).resolved_ids, [], again.out);

      const queued = await vouch(state, [
        "batch",
        "--tasks",
        tasks,
        "--predictions",
        preds,
        "--tests-editable",
        "--queue",
        "redis://:x@127.0.0.1:1",
      ]);
      assert.equal(queued.code, 2, queued.out);
      assert.match(queued.out, /Cannot use --tests-editable with --queue/);
    } finally {
      await Deno.remove(state, { recursive: true });
    }
  },
});
