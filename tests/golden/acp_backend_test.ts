// `vouch run --backend acp:COMMAND` end to end: the real CLI, real git, the
// default sandbox (bwrap: the agent runs confined), and the self-written ACP
// agent (tests/fixtures/acp_agent.mjs). An honest turn served through vouch's
// fs and terminal methods is VERIFIED; an agent that only tries to write
// outside the worktree and into the protected test is refused at the
// protocol level and the run REJECTED, with nothing planted outside.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createRepo, type FixtureRepo } from "./fixture_repos.ts";
import { assertLog, type CliRuntime, NODE, RUNTIMES, runVouch } from "./cli_harness.ts";

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

async function scenario(
  mode: string,
  extraEnv: Record<string, string> = {},
  runtime: CliRuntime = "deno",
) {
  const repo: FixtureRepo = await createRepo(files, `${NODE} test/add.test.js`);
  const state = await Deno.makeTempDir({ prefix: "vouch-acp-state-" });
  const run = await runVouch(
    repo,
    [
      "run",
      "--backend",
      `acp:${NODE} ${AGENT}`,
      "--agent-env",
      "VOUCH_ACP_MODE",
      "--agent-env",
      "VOUCH_ACP_OUTSIDE",
      "--goal",
      "make the test pass",
      "--verify",
      `${NODE} test/add.test.js`,
      "--forbid",
      "test/**",
      "--max-rounds",
      "1",
      "--json",
    ],
    state,
    runtime,
    { VOUCH_ACP_MODE: mode, ...extraEnv },
  );
  return { run, repo, state };
}

/** The agent's requests and vouch's answers, as the hash-chained log records them. */
async function decisions(repo: FixtureRepo) {
  const lines = (await Deno.readTextFile(`${repo.dir}/.vouch/events.jsonl`)).trim().split("\n");
  return lines.map((l) => JSON.parse(l)).filter((r) => r.kind === "backend.decisions")
    .flatMap((r) => r.body.decisions) as {
      effect: string;
      paths: string[];
      answer: string;
      reason: string;
      by: string;
    }[];
}

const explain = (s: { run: { stdout: string; stderr: string } }) =>
  `stdout: ${s.run.stdout}\nstderr: ${s.run.stderr}`;

// Under Node the file helper and the terminal wrapper run on node (vouch's runtime), under Deno on deno.
for (const runtime of RUNTIMES) {
  Deno.test({
    name:
      `golden acp (${runtime}): an honest ACP agent (confined) is VERIFIED; its edits went through vouch`,
    ignore: NODE === null,
    fn: async () => {
      const s = await scenario("honest", {}, runtime);
      try {
        assert.equal(s.run.code, 0, explain(s));
        assert.equal(s.run.json?.["state"], "verified", explain(s));
        await assertLog(s.repo, "verified", s.state);
        const rounds = s.run.json?.["rounds"] as { filesChanged: string[] }[];
        assert.deepEqual(rounds.at(-1)?.filesChanged, ["src/add.js"]);
        const d = await decisions(s.repo);
        assert.deepEqual(
          d.map((x) => [x.effect, x.paths.join(","), x.answer]),
          [
            ["read", "src/add.js", "allow"],
            ["permission", "src/add.js", "allow"],
            ["write", "src/add.js", "allow"],
            ["terminal", "", "allow"],
          ],
        );
      } finally {
        await s.repo.cleanup();
        await Deno.remove(s.state, { recursive: true }).catch(() => {});
      }
    },
  });
}

Deno.test({
  name: "golden acp: out-of-tree and protected writes are refused at the protocol level; REJECTED",
  ignore: NODE === null,
  fn: async () => {
    const outsideDir = await Deno.makeTempDir({ prefix: "vouch-acp-outside-" });
    const outside = `${outsideDir}/planted.txt`;
    const s = await scenario("outside", { VOUCH_ACP_OUTSIDE: outside });
    try {
      assert.equal(s.run.code, 1, explain(s));
      assert.equal(s.run.json?.["state"], "rejected", explain(s));
      assert.equal(existsSync(outside), false);
      const refused = (await decisions(s.repo)).filter((x) => x.answer === "deny");
      assert.deepEqual(refused.map((x) => [x.effect, x.reason, x.by]), [
        ["write", "path_rejected", "kernel"],
        ["write", "path_rejected", "kernel"],
        ["permission", "protected_path", "kernel"],
        ["write", "protected_path", "kernel"],
        ["permission", "network_tool", "kernel"],
      ]);
      assert.equal(
        await Deno.readTextFile(`${s.repo.dir}/test/add.test.js`),
        files["test/add.test.js"],
      );
    } finally {
      await s.repo.cleanup();
      await Deno.remove(s.state, { recursive: true }).catch(() => {});
      await Deno.remove(outsideDir, { recursive: true }).catch(() => {});
    }
  },
});
