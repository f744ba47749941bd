// `vouch run --backend acp:COMMAND --progress plain` in words for people, end to end: the real
// CLI (its own permission flags), real git, the default sandbox, and the self-written ACP agent
// in `tools` mode (tests/fixtures/acp_agent.mjs), which announces each tool call twice as
// claude-code-acp does, with absolute paths, gets a permission and a write refused (the ACP
// SDK then logs "Error handling request" dumps) and prints 13 lines on its stderr.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { createRepo } from "./fixture_repos.ts";
import { NODE, runVouch } from "./cli_harness.ts";

const AGENT = fileURLToPath(new URL("../fixtures/acp_agent.mjs", import.meta.url));

const files = {
  "package.json": '{ "type": "module" }\n',
  "src/add.js": "export const add = (a, b) => a - b;\n",
  "test/add.test.js":
    'import { add } from "../src/add.js";\nif (add(2, 3) !== 5) process.exit(1);\n',
};

Deno.test({
  name:
    "vouch run acp: each tool once with tree-relative paths; SDK and agent stderr noise only in the transcript",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const repo = await createRepo(files, `${NODE} test/add.test.js`);
    const state = await Deno.makeTempDir({ prefix: "vouch-acp-words-" });
    const run = await runVouch(
      repo,
      [
        "run",
        "--backend",
        `acp:${NODE} ${AGENT}`,
        "--agent-env",
        "VOUCH_ACP_MODE",
        "--goal",
        "make the test pass",
        "--verify",
        `${NODE} test/add.test.js`,
        "--forbid",
        "test/**",
        "--max-rounds",
        "1",
        "--progress",
        "plain",
      ],
      state,
      "deno",
      { VOUCH_ACP_MODE: "tools" },
    );
    const why = `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`;
    const lines = run.stderr.split("\n");
    const toolLines = lines.filter((l) => / · tool /.test(l));
    // Each tool once, under its full title, relative to the worktree.
    assert.deepEqual(
      toolLines.map((l) => l.replace(/^.* · tool /, "")),
      [
        "Read src/add.js",
        "Edit test/add.test.js",
        // Each refusal with the policy's reason.
        "permission:edit (vouch refused: test/add.test.js is protected by the contract (the tests that define done))",
        "fs/write_text_file (vouch refused: test/add.test.js is protected by the contract (the tests that define done))",
      ],
      why,
    );
    assert.doesNotMatch(run.stderr, /\/tmp\/|\/wt\//, why);
    // Noise stays out of the progress.
    assert.doesNotMatch(run.stderr, /Error handling request/, why);
    assert.doesNotMatch(run.stderr, /SDK-DUMP/, why);
    // ... and is kept in the transcript.
    const found: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      for await (const e of Deno.readDir(dir)) {
        const path = `${dir}/${e.name}`;
        if (e.isDirectory) await walk(path);
        else if (e.name.endsWith(".transcript.txt")) found.push(await Deno.readTextFile(path));
      }
    };
    await walk(`${repo.dir}/.vouch/runs`);
    assert.equal(found.length, 1, why);
    const transcript = found.join("\n");
    assert.match(transcript, /Error handling request/, why);
    assert.match(transcript, /SDK-DUMP line 13/, why);
  },
});

Deno.test({
  name: "vouch run acp: the live line names each start-up sub-step of the agent",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const repo = await createRepo(files, `${NODE} test/add.test.js`);
    const state = await Deno.makeTempDir({ prefix: "vouch-acp-words-" });
    const run = await runVouch(
      repo,
      [
        "run",
        "--backend",
        `acp:${NODE} ${AGENT}`,
        "--agent-env",
        "VOUCH_ACP_MODE",
        "--goal",
        "make the test pass",
        "--verify",
        `${NODE} test/add.test.js`,
        "--max-rounds",
        "1",
        "--progress",
        "json",
      ],
      state,
      "deno",
      { VOUCH_ACP_MODE: "honest" },
    );
    const why = `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`;
    assert.equal(run.code, 0, why);
    const progress = run.stderr.trim().split("\n").map((l) => JSON.parse(l))
      .filter((o) => o.type === "progress");
    // The agent is started (and answers initialize) before the baseline, once.
    const phases = progress.map((o) => o.phase);
    assert.ok(phases.indexOf("start") >= 0, why);
    assert.ok(phases.indexOf("start") < phases.indexOf("baseline"), why);
    const details = progress.filter((o) => o.phase === "backend").map((o) => o.detail);
    assert.deepEqual(details, [
      "acp",
      "acp_agent: started",
      "starting acp_agent (session/new)",
      "acp_agent working",
      "$ cat src/add.js",
    ], why);
  },
});
