// Sessions across rounds through `vouch run --backend acp:COMMAND` (real CLI, real git, bwrap):
// an agent that advertises `loadSession` keeps its live session, so round 2's prompt (with the
// round's feedback) lands in the session that saw round 1; one that does not gets a fresh agent
// and session. The raw fixture agent (tests/fixtures/acp_agent.mjs, mode `session`) writes the
// right fix only when it remembers round 1, so only a kept session VERIFIES in round 2.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { createRepo } from "./fixture_repos.ts";
import { NODE, runVouch } from "./cli_harness.ts";

const AGENT = fileURLToPath(new URL("../fixtures/acp_agent.mjs", import.meta.url));

const files = {
  "package.json": '{ "type": "module" }\n',
  "src/add.js": "export const add = (a, b) => a - b;\n",
  "test/add.test.js": [
    'import { add } from "../src/add.js";',
    "if (add(2, 3) !== 5) {",
    '  console.error("FAIL add(2, 3) = " + add(2, 3));',
    "  process.exit(1);",
    "}",
    "",
  ].join("\n"),
};

async function twoRounds(extraEnv: Record<string, string>, flags: readonly string[] = []) {
  const repo = await createRepo(files, `${NODE} test/add.test.js`);
  const state = await Deno.makeTempDir({ prefix: "vouch-acp-session-" });
  const run = await runVouch(
    repo,
    [
      "run",
      "--backend",
      `acp:${NODE} ${AGENT}`,
      "--agent-env",
      "VOUCH_ACP_MODE",
      "--agent-env",
      "VOUCH_ACP_NO_LOAD",
      "--goal",
      "make the test pass",
      "--verify",
      `${NODE} test/add.test.js`,
      "--forbid",
      "test/**",
      "--max-rounds",
      "2",
      "--json",
      "--progress",
      "plain",
      ...flags,
    ],
    state,
    "deno",
    { VOUCH_ACP_MODE: "session", ...extraEnv },
  );
  const json = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}");
  return { run, json, explain: `stdout: ${run.stdout}\nstderr: ${run.stderr}` };
}

Deno.test({
  name: "acp sessions: with loadSession, round 2 continues round 1's live session and VERIFIES",
  ignore: NODE === null,
  fn: async () => {
    const { run, json, explain } = await twoRounds({});
    assert.equal(json.state, "verified", explain);
    assert.equal(run.code, 0, explain);
    assert.equal(json.rounds.length, 2, explain);
    assert.deepEqual(json.rounds[0].reasons, ["empty_patch"], explain);
    // The agent's own words: round 2 was the second prompt of the same session.
    assert.match(run.stderr, /prompt 2 of session s1; writing a \+ b/, explain);
  },
});

Deno.test({
  name: "acp sessions: without loadSession, round 2 is a fresh agent and session (REJECTED here)",
  ignore: NODE === null,
  fn: async () => {
    const { run, json, explain } = await twoRounds({ VOUCH_ACP_NO_LOAD: "1" });
    assert.equal(json.state, "rejected", explain);
    assert.equal(run.code, 1, explain);
    assert.match(run.stderr, /prompt 1 of session s1; writing a \* b/, explain);
  },
});

/** How often the agent program started and answered initialize (its report file). */
function starts(file: string): { processes: number; initializes: number } {
  const lines = Deno.readTextFileSync(file).trim().split("\n").filter((l) => l !== "")
    .map((l) => JSON.parse(l) as { what: string });
  return {
    processes: lines.filter((l) => l.what === "process").length,
    initializes: lines.filter((l) => l.what === "initialize").length,
  };
}

Deno.test({
  name:
    "acp sessions: the agent starts once per run (its start before the baseline serves round 1; round 2 continues it)",
  ignore: NODE === null,
  fn: async () => {
    // Unconfined (--sandbox none) so the agent can write its report where the test reads it.
    const dir = await Deno.makeTempDir({ prefix: "vouch-acp-starts-" });
    try {
      const report = `${dir}/report.jsonl`;
      const flags = ["--sandbox", "none", "--agent-env", "VOUCH_ACP_REPORT"];
      const kept = await twoRounds({ VOUCH_ACP_REPORT: report }, flags);
      assert.equal(kept.json.state, "verified", kept.explain);
      assert.deepEqual(starts(report), { processes: 1, initializes: 1 }, kept.explain);
      // The start happened before the baseline: the live line says so in that order.
      const start = kept.run.stderr.indexOf("setup · start · acp");
      assert.ok(start >= 0 && start < kept.run.stderr.indexOf("setup · baseline"), kept.explain);
      // Without loadSession each round needs its own agent: two starts (the counter counts).
      await Deno.remove(report);
      const fresh = await twoRounds({ VOUCH_ACP_REPORT: report, VOUCH_ACP_NO_LOAD: "1" }, flags);
      assert.equal(fresh.json.state, "rejected", fresh.explain);
      assert.deepEqual(starts(report), { processes: 2, initializes: 2 }, fresh.explain);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "acp: an agent that exits before answering initialize fails the run before the baseline (exit 4, its words)",
  ignore: NODE === null,
  fn: async () => {
    const repo = await createRepo(files, `${NODE} test/add.test.js`);
    const state = await Deno.makeTempDir({ prefix: "vouch-acp-true-" });
    const run = await runVouch(
      repo,
      [
        "run",
        "--backend",
        "acp:/bin/true",
        "--goal",
        "make the test pass",
        "--verify",
        `${NODE} test/add.test.js`,
        "--json",
        "--progress",
        "plain",
      ],
      state,
      "deno",
    );
    const explain = `stdout: ${run.stdout}\nstderr: ${run.stderr}`;
    const json = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}");
    assert.equal(run.code, 4, explain);
    assert.equal(json.state, "backend_failed", explain);
    assert.equal(json.reason, "backend_unavailable", explain);
    assert.equal(
      json.message,
      "the backend cannot start: acp: true exited (code 0) before answering initialize",
    );
    assert.deepEqual(json.backendFailure, {
      code: "config",
      message: "acp: true exited (code 0) before answering initialize",
    });
    // Found before any check ran: no baseline, no round.
    assert.deepEqual(json.baseline, [], explain);
    assert.deepEqual(json.rounds, [], explain);
    assert.doesNotMatch(run.stderr, /setup · baseline/, explain);
  },
});

Deno.test({
  name:
    "acp: a write outside the worktree while the agent waits for round 1 (it starts before the baseline) is judged",
  ignore: NODE === null,
  fn: async () => {
    // Unconfined (--sandbox none): the outside-write watch is all that stands; it must start
    // when the agent does, not when round 1 does.
    const repo = await createRepo(files, `${NODE} test/add.test.js`);
    const state = await Deno.makeTempDir({ prefix: "vouch-acp-plant-" });
    const run = await runVouch(
      repo,
      [
        "run",
        "--backend",
        `acp:${NODE} ${AGENT}`,
        "--agent-env",
        "VOUCH_ACP_MODE",
        "--agent-env",
        "VOUCH_ACP_PLANT",
        "--sandbox",
        "none",
        "--goal",
        "make the test pass",
        "--verify",
        `${NODE} test/add.test.js`,
        "--max-rounds",
        "1",
        "--json",
        "--progress",
        "plain",
      ],
      state,
      "deno",
      { VOUCH_ACP_MODE: "honest", VOUCH_ACP_PLANT: `${repo.dir}/planted.txt` },
    );
    const explain = `stdout: ${run.stdout}\nstderr: ${run.stderr}`;
    const json = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}");
    assert.equal(Deno.readTextFileSync(`${repo.dir}/planted.txt`), "planted at start\n");
    assert.equal(json.state, "rejected", explain);
    assert.match(JSON.stringify(json.rounds), /planted\.txt/, explain);
  },
});
