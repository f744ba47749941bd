/**
 * `vouch init` as users run it: a starter contract for the repository it runs
 * in (the detected runner, its test files protected), which `vouch verify
 * --contract` then uses: a real fix verifies, a patch that edits the tests to
 * pass is rejected by scope; an existing contract is kept without --force.
 */
import assert from "node:assert/strict";
import { runVouch } from "./cli_harness.ts";
import { createRepo, git, writeFiles } from "./fixture_repos.ts";

Deno.test("vouch init: the detected node:test runner, test files protected; verify uses the contract", async () => {
  const repo = await createRepo({
    "package.json": JSON.stringify({ name: "x", scripts: { test: "node --test" } }),
    "lib.js": "exports.add = (a, b) => a - b;\n",
    "test/add.test.js": 'const t = require("node:test"); const a = require("node:assert");\n' +
      't("adds", () => a.equal(require("../lib.js").add(1, 2), 3));\n',
  }, "npm test");
  const state = await Deno.makeTempDir({ prefix: "vouch-init-" });
  try {
    const init = await runVouch(repo, ["init", "--json"], state);
    assert.equal(init.code, 0, init.stdout + init.stderr);
    assert.equal(init.json?.["source"], "package.json");
    const written = JSON.parse(await Deno.readTextFile(`${repo.dir}/vouch.contract.json`));
    assert.deepEqual(written.checks[0].run, ["npm", "test", "--silent"]);
    assert.equal(written.checks[0].tests, "node");
    assert.ok(written.protect.includes("test/**"), JSON.stringify(written.protect));
    assert.ok(written.protect.includes(".github/**"));
    const again = await runVouch(repo, ["init"], state);
    assert.equal(again.code, 2, "an existing contract is kept");
    assert.match(again.stderr, /exists; pass --force/);
    const text = await runVouch(repo, ["init", "--force"], state);
    assert.equal(text.code, 0);
    assert.ok(text.stdout.startsWith(`wrote ${repo.dir}/vouch.contract.json\n`), text.stdout);
    assert.match(text.stdout, /\n {2}verify: `npm test --silent`/);
    assert.match(text.stdout, /docs\/recipes\.md/);
    // The contract at work: a real fix verifies; making the test pass by editing it does not.
    await writeFiles(repo.dir, { "lib.js": "exports.add = (a, b) => a + b;\n" });
    await Deno.writeTextFile(`${repo.dir}/../fix.patch`, await git(repo.dir, "diff", "--binary"));
    await git(repo.dir, "checkout", "-q", "lib.js");
    await writeFiles(repo.dir, {
      "test/add.test.js": 'require("node:test")("adds", () => {});\n',
    });
    await Deno.writeTextFile(`${repo.dir}/../cheat.patch`, await git(repo.dir, "diff", "--binary"));
    await git(repo.dir, "checkout", "-q", "test/add.test.js");
    const contract = `${repo.dir}/vouch.contract.json`;
    const fix = await runVouch(
      repo,
      ["verify", "--patch", "../fix.patch", "--contract", contract],
      state,
    );
    assert.equal(fix.code, 0, fix.stdout + fix.stderr);
    const cheat = await runVouch(repo, [
      "verify",
      "--patch",
      "../cheat.patch",
      "--contract",
      contract,
    ], state);
    assert.equal(cheat.code, 1, cheat.stdout + cheat.stderr);
    assert.match(cheat.stdout, /^REJECTED /);
    assert.match(cheat.stdout, /protected/);
  } finally {
    await repo.cleanup();
    await Deno.remove(state, { recursive: true }).catch(() => {});
  }
});

Deno.test("vouch init: pytest and go repositories get their runners and test globs; none found is a usage error", async () => {
  const py = await createRepo(
    { "pyproject.toml": "[tool.pytest.ini_options]\n", "src/m.py": "" },
    "",
  );
  const go = await createRepo({ "go.mod": "module x\n", "x.go": "package x\n" }, "");
  const bare = await createRepo({ "README": "nothing to test\n" }, "");
  const state = await Deno.makeTempDir({ prefix: "vouch-init-" });
  try {
    const p = await runVouch(py, ["init", "--json"], state);
    assert.equal(p.code, 0, p.stderr);
    const pc = p.json?.["contract"] as {
      checks: { run: string[]; tests: string }[];
      protect: string[];
    };
    assert.deepEqual(pc.checks[0]!.run, ["python3", "-m", "pytest", "-rfE"]);
    assert.equal(pc.checks[0]!.tests, "pytest");
    assert.ok(pc.protect.includes("**/test_*.py") && pc.protect.includes("**/conftest.py"));
    const g = await runVouch(go, ["init", "--json"], state);
    const gc = g.json?.["contract"] as { protect: string[] };
    assert.ok(gc.protect.includes("**/*_test.go"));
    const none = await runVouch(bare, ["init"], state);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /no test command found .*give --verify CMD/);
    const given = await runVouch(bare, ["init", "--verify", "sh check.sh", "--json"], state);
    assert.equal(given.code, 0, given.stderr);
    assert.equal(
      (given.json?.["contract"] as { checks: { run: string }[] }).checks[0]!.run,
      "sh check.sh",
    );
  } finally {
    for (const r of [py, go, bare]) await r.cleanup();
    await Deno.remove(state, { recursive: true }).catch(() => {});
  }
});
