/**
 * One verdict vocabulary, row by row, through the CLI as users run it
 * (`deno task vouch`'s own flags): each way a judgement ends prints the
 * verdict table's word first, exits with its code, says the same state in
 * `--json`, and `vouch inspect` labels the task with the same row.
 */
import assert from "node:assert/strict";
import { type CliRun, runVouch, spawnVouch } from "./cli_harness.ts";
import { createRepo, type FixtureRepo, git, writeFiles } from "./fixture_repos.ts";
import { type Verdict, VERDICTS } from "../../adapters/driver/verdicts.ts";

const FIXED = "add() { echo $(($1 + $2)); }\n";

async function fixture(): Promise<{ repo: FixtureRepo; state: string; patch: string }> {
  const repo = await createRepo({
    "add.sh": "add() { echo $(($1 - $2)); }\n",
    "test.sh": '. ./add.sh\n[ "$(add 1 2)" = 3 ]\n',
  }, "sh test.sh");
  await writeFiles(repo.dir, { "add.sh": FIXED });
  const patch = `${repo.dir}/../fix.patch`;
  await Deno.writeTextFile(patch, await git(repo.dir, "diff", "--binary"));
  await git(repo.dir, "checkout", "-q", "add.sh");
  const agent = `${repo.dir}/../agent.sh`;
  await Deno.writeTextFile(agent, `#!/bin/sh\nprintf '%s' '${FIXED.trimEnd()}' > add.sh\n`);
  await Deno.chmod(agent, 0o755);
  const state = await Deno.makeTempDir({ prefix: "vouch-verdicts-" });
  return { repo, state, patch };
}

/** The run's word, code and `--json` state are the row's; `inspect` labels the last task with it. */
async function assertRow(
  repo: FixtureRepo,
  state: string,
  run: CliRun,
  verdict: Verdict,
  json: CliRun | null,
): Promise<void> {
  const row = VERDICTS[verdict];
  assert.equal(run.code, row.exitCode, `${verdict}: ${run.stdout}${run.stderr}`);
  assert.ok(
    run.stdout.startsWith(`${row.word} `),
    `${verdict} starts with ${row.word}: ${run.stdout}`,
  );
  for (const other of Object.values(VERDICTS)) {
    if (other.word !== row.word && !row.word.includes(other.word)) {
      assert.ok(!run.stdout.split("\n")[0]!.includes(other.word), `${verdict}: ${run.stdout}`);
    }
  }
  if (json !== null) {
    assert.equal(json.json?.["state"], verdict, json.stdout);
    assert.equal(json.json?.["exitCode"], row.exitCode);
    assert.equal(json.code, row.exitCode);
  }
  const inspect = await runVouch(repo, ["inspect"], state);
  assert.equal(inspect.code, 0, inspect.stdout + inspect.stderr);
  const last = inspect.stdout.match(/^task t-\S+ {2}(.+?), [0-9.]+s, /gm)?.at(-1);
  assert.ok(last !== undefined, inspect.stdout);
  assert.ok(last.includes(`  ${row.label}, `), `inspect labels ${verdict} "${row.label}": ${last}`);
  const inspectJson = await runVouch(repo, ["inspect", "--json"], state);
  const doc = JSON.parse(inspectJson.stdout) as { tasks: { verdict: string }[] };
  assert.equal(doc.tasks.at(-1)?.verdict, verdict);
}

async function withFixture(
  body: (f: { repo: FixtureRepo; state: string; patch: string }) => Promise<void>,
): Promise<void> {
  const f = await fixture();
  try {
    await body(f);
  } finally {
    await f.repo.cleanup();
    await Deno.remove(f.state, { recursive: true }).catch(() => {});
  }
}

Deno.test("verdict verified: VERIFIED, exit 0, inspect 'verified'", async () => {
  await withFixture(async ({ repo, state, patch }) => {
    const args = ["verify", "--patch", patch, "--verify", "sh test.sh"];
    const run = await runVouch(repo, args, state);
    await assertRow(repo, state, run, "verified", await runVouch(repo, [...args, "--json"], state));
  });
});

Deno.test("verdict rejected: a failing check is REJECTED, exit 1, inspect 'rejected' (not 'killed')", async () => {
  await withFixture(async ({ repo, state, patch }) => {
    const args = ["verify", "--patch", patch, "--verify", "sh test.sh && false"];
    const run = await runVouch(repo, args, state);
    await assertRow(repo, state, run, "rejected", await runVouch(repo, [...args, "--json"], state));
  });
});

Deno.test("verdict rejected: an empty patch is the patch's, not a backend's", async () => {
  await withFixture(async ({ repo, state }) => {
    const empty = `${repo.dir}/../empty.patch`;
    await Deno.writeTextFile(empty, "");
    const run = await runVouch(repo, ["verify", "--patch", empty, "--verify", "sh test.sh"], state);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /^REJECTED /);
    assert.match(run.stdout, /the patch changes no file \(it is empty\)/);
    assert.doesNotMatch(run.stdout, /backend/);
  });
});

Deno.test("verdict could not run: a check that cannot start is COULD NOT RUN, exit 5, said before anything runs", async () => {
  await withFixture(async ({ repo, state, patch }) => {
    const args = ["verify", "--patch", patch, "--verify", "nosuchcmd-vouch"];
    const run = await runVouch(repo, args, state);
    assert.equal(run.code, 5, run.stdout + run.stderr);
    assert.equal(
      run.stdout,
      "COULD NOT RUN (verify_command_cannot_start): the verify command cannot start: " +
        "nosuchcmd-vouch: not found on PATH; nothing was run\n",
    );
    assert.doesNotMatch(run.stderr, /check "verify"/, "no baseline, no check ran");
    const json = await runVouch(repo, [...args, "--json"], state);
    assert.equal(json.json?.["state"], "could_not_run");
    assert.equal(json.json?.["exitCode"], 5);
    const run2 = await runVouch(repo, [
      "run",
      "--backend",
      "command:/bin/true",
      "--goal",
      "x",
      "--verify",
      "nosuchcmd-vouch",
    ], state);
    assert.equal(run2.code, 5);
    assert.match(run2.stdout, /^COULD NOT RUN \(verify_command_cannot_start\)/);
  });
});

Deno.test("a tool the sandbox hides: the failure names it with the --sandbox-ro fix, which works", async () => {
  await withFixture(async ({ repo, state, patch }) => {
    // A project's mocha outside the tree, under /tmp (private in the sandbox): .bin links into its package.
    const tools = `${repo.dir}/../tools`;
    await writeFiles(tools, {
      "node_modules/mocha/bin/mocha":
        '#!/bin/sh\n. "$(dirname "$(readlink -f "$0")")/../lib/run.sh"\n',
      "node_modules/mocha/lib/run.sh": "sh test.sh\n",
    });
    await Deno.chmod(`${tools}/node_modules/mocha/bin/mocha`, 0o755);
    await Deno.mkdir(`${tools}/node_modules/.bin`);
    await Deno.symlink("../mocha/bin/mocha", `${tools}/node_modules/.bin/mocha`);
    const mocha = `${await Deno.realPath(tools)}/node_modules/.bin/mocha`;
    const args = ["verify", "--patch", patch, "--verify", mocha];
    const run = await runVouch(repo, args, state);
    const modules = mocha.slice(0, -"/.bin/mocha".length);
    assert.ok(
      run.stdout.includes(`pass --sandbox-ro ${modules} to make it visible read-only`),
      run.stdout + run.stderr,
    );
    await assertRow(
      repo,
      state,
      run,
      "could_not_run",
      await runVouch(repo, [...args, "--json"], state),
    );
    const fixed = await runVouch(repo, [...args, "--sandbox-ro", modules], state);
    assert.equal(fixed.code, 0, fixed.stdout + fixed.stderr);
    assert.match(fixed.stdout, /^VERIFIED /);
  });
});

Deno.test("verdict backend failed: an agent that exits 3 is BACKEND FAILED, exit 4", async () => {
  await withFixture(async ({ repo, state }) => {
    const agent = `${repo.dir}/../broken.sh`;
    await Deno.writeTextFile(agent, "#!/bin/sh\necho broken >&2\nexit 3\n");
    await Deno.chmod(agent, 0o755);
    const args = [
      "run",
      "--backend",
      `command:${agent}`,
      "--goal",
      "fix",
      "--verify",
      "sh test.sh",
    ];
    const run = await runVouch(repo, args, state);
    await assertRow(
      repo,
      state,
      run,
      "backend_failed",
      await runVouch(repo, [...args, "--json"], state),
    );
  });
});

Deno.test("verdict budget exhausted: out of --timeout is BUDGET EXHAUSTED, exit 3", async () => {
  await withFixture(async ({ repo, state }) => {
    const agent = `${repo.dir}/../agent.sh`;
    // The base fails at once; the agent's fix makes the check sleep past the 3 s budget.
    const check = 'if grep -q "+" add.sh; then sleep 30; fi; sh test.sh';
    const args = ["run", "--backend", `command:${agent}`, "--goal", "fix", "--verify", check];
    const run = await runVouch(repo, [...args, "--timeout", "3"], state);
    await assertRow(
      repo,
      state,
      run,
      "budget_exhausted",
      await runVouch(repo, [...args, "--timeout", "3", "--json"], state),
    );
  });
});

Deno.test("verdict cancelled: Ctrl-C during the checks is CANCELLED, exit 130, the round 'cancelled'", async () => {
  await withFixture(async ({ repo, state }) => {
    const agent = `${repo.dir}/../agent.sh`;
    const check = 'if grep -q "+" add.sh; then sleep 60; fi; sh test.sh';
    const child = spawnVouch(repo, [
      "run",
      "--backend",
      `command:${agent}`,
      "--goal",
      "fix",
      "--verify",
      check,
      "--progress",
      "plain",
    ], state);
    const decoder = new TextDecoder();
    let err = "";
    const reader = child.stderr.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      err += decoder.decode(value, { stream: true });
      if (/round 1 · verify · check "verify"/.test(err)) break;
    }
    child.kill("SIGINT");
    const rest = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        err += decoder.decode(value, { stream: true });
      }
    })();
    const out = await new Response(child.stdout).text();
    const status = await child.status;
    await rest;
    const run: CliRun = { code: status.code, stdout: out, stderr: err, json: null };
    assert.match(out, /^1 +\S+ +\S+ +\d+ +cancelled +verify:cancelled/m, out);
    assert.doesNotMatch(out, /^1 .*(rejected|verify:failed)/m, out);
    assert.doesNotMatch(out, /REJECTED|KILLED/, out);
    await assertRow(repo, state, run, "killed", null);
  });
});

Deno.test("verdict tampered and not a log: inspect says TAMPERED of a changed log, NOT A VOUCH LOG of a diff", async () => {
  await withFixture(async ({ repo, state, patch }) => {
    await runVouch(repo, ["verify", "--patch", patch, "--verify", "sh test.sh"], state);
    const log = `${repo.dir}/.vouch/events.jsonl`;
    const lines = (await Deno.readTextFile(log)).split("\n");
    lines[2] = lines[2]!.replace(/"ts":\d+/, '"ts":1');
    const copy = `${repo.dir}/../tampered.jsonl`;
    await Deno.writeTextFile(copy, lines.join("\n"));
    const tampered = await runVouch(repo, ["inspect", copy], state);
    assert.equal(tampered.code, VERDICTS.tampered.exitCode);
    assert.match(tampered.stdout, /^audit +TAMPERED /m, tampered.stdout);
    const diff = await runVouch(repo, ["inspect", patch], state);
    assert.equal(diff.code, VERDICTS.not_a_log.exitCode);
    assert.match(diff.stdout, /^audit +NOT A VOUCH LOG /m, diff.stdout);
    assert.doesNotMatch(diff.stdout, /TAMPERED/);
    const json = await runVouch(repo, ["inspect", patch, "--json"], state);
    assert.equal(JSON.parse(json.stdout).audit, "not_a_log");
  });
});
