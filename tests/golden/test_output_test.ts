/**
 * Each check's whole output is kept (SWE-bench's `test_output.txt`), not only
 * the 4 KiB tail the summary shows: through `deno task vouch`, a rejected
 * `verify` and a rejected `run` name `round-1/test_output.txt` in the run's
 * artefacts (a run: its last round's), the file holds the output's first line (which a tail cannot) and
 * its last, both streams, secrets masked; `--json` carries the path; `vouch
 * inspect` shows it for the task (a verify's and a run's).
 */
import assert from "node:assert/strict";
import { runVouch } from "./cli_harness.ts";
import { createRepo, git, writeFiles } from "./fixture_repos.ts";

// 2,000 numbered lines (about 60 KB) on stdout, one line on stderr, a secret, then failure.
const TEST = [
  "echo FIRST-LINE-OF-OUTPUT",
  'i=0; while [ $i -lt 2000 ]; do echo "line $i of the suite\'s output"; i=$((i+1)); done',
  "echo 'token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB'",
  "echo STDERR-LINE >&2",
  ". ./add.sh",
  '[ "$(add 1 2)" = 3 ] || { echo LAST-LINE-OF-OUTPUT; exit 1; }',
].join("\n");

Deno.test("verify and run keep the whole check output as round-1/test_output.txt and say where", async () => {
  const repo = await createRepo({
    "add.sh": "add() { echo $(($1 - $2)); }\n",
    "test.sh": TEST + "\n",
  }, "sh test.sh");
  const state = await Deno.makeTempDir({ prefix: "vouch-test-output-" });
  try {
    // A patch that does not fix it (adds a comment).
    await writeFiles(repo.dir, { "add.sh": "# still wrong\nadd() { echo $(($1 - $2)); }\n" });
    const patch = `${repo.dir}/../nofix.patch`;
    await Deno.writeTextFile(patch, await git(repo.dir, "diff", "--binary"));
    await git(repo.dir, "checkout", "-q", "add.sh");

    const check = async (stdout: string, path: string) => {
      const text = await Deno.readTextFile(path);
      assert.match(text, /^=== check "verify": exit 1, \d+ ms ===$/m);
      assert.match(text, /FIRST-LINE-OF-OUTPUT/);
      assert.match(text, /line 1000 of the suite's output/);
      assert.match(text, /LAST-LINE-OF-OUTPUT/);
      assert.match(text, /--- stderr \(12 bytes\) ---\nSTDERR-LINE/);
      assert.doesNotMatch(text, /ghp_0123456789abcdef/, "secrets masked");
      // The summary on screen is only a tail: the first line is not in it.
      assert.doesNotMatch(stdout, /FIRST-LINE-OF-OUTPUT/);
    };

    const verify = await runVouch(
      repo,
      ["verify", "--patch", patch, "--verify", "sh test.sh"],
      state,
    );
    assert.equal(verify.code, 1, verify.stdout + verify.stderr);
    const named = /^whole output: (\S+\/round-1\/test_output\.txt)$/m.exec(verify.stdout)?.[1];
    assert.ok(named !== undefined, verify.stdout);
    await check(verify.stdout, named);

    const json = await runVouch(
      repo,
      ["verify", "--patch", patch, "--verify", "sh test.sh", "--json"],
      state,
    );
    assert.equal(json.code, 1, json.stdout + json.stderr);
    const jsonPath = String(json.json?.["testOutput"]);
    assert.match(jsonPath, /\/round-1\/test_output\.txt$/);
    await check("", jsonPath);

    const inspect = await runVouch(repo, ["inspect"], state);
    assert.equal(inspect.code, 0, inspect.stdout + inspect.stderr);
    assert.ok(inspect.stdout.includes(`  output    ${jsonPath}`), inspect.stdout);

    // vouch run: an agent whose change does not fix it; the round's output is named too.
    const agent = `${repo.dir}/../agent.sh`;
    await Deno.writeTextFile(agent, "#!/bin/sh\necho '# tried' >> add.sh\n");
    await Deno.chmod(agent, 0o755);
    const run = await runVouch(
      repo,
      ["run", "--backend", `command:${agent}`, "--goal", "fix add", "--verify", "sh test.sh"],
      state,
    );
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const runPath = /^ {2}whole output: (\S+\/round-\d+\/test_output\.txt)$/m.exec(run.stdout)?.[1];
    assert.ok(runPath !== undefined, run.stdout);
    await check(run.stdout, runPath);
    // inspect names the run's too (its outcome carries the artefacts dir and rounds, no path).
    const inspectRun = await runVouch(repo, ["inspect"], state);
    assert.ok(inspectRun.stdout.includes(`  output    ${runPath}`), inspectRun.stdout);
  } finally {
    await repo.cleanup();
    await Deno.remove(state, { recursive: true }).catch(() => {});
  }
});
