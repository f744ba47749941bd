/**
 * Progress that moves, through `deno task vouch run` off a terminal: while a
 * check runs, "still running" lines come with a moving clock (today the last
 * line stayed unchanged for 40 s), and giving the checkout's dependencies to the
 * clean tree is named ("binding node_modules read-only, 1 entry": no copy
 * under bwrap; a copy says its size). Timing-independent: the
 * check waits for a file the test creates only after it saw the clock move.
 */
import assert from "node:assert/strict";
import { NODE, spawnVouch } from "./cli_harness.ts";
import { createRepo, git, writeFiles } from "./fixture_repos.ts";

const ACP_AGENT = new URL("../fixtures/acp_agent.mjs", import.meta.url).pathname;

/**
 * The test's go-ahead for a waiting check: a directory the check can read (as root, a check runs
 * as host uid 65534, and a 0700 temp dir would hide the go-ahead, so the wait would run out and a
 * blind check would pass 120 s late; it fails instead).
 */
async function openGate(): Promise<string> {
  const gate = await Deno.makeTempDir({ prefix: "vouch-progress-gate-" });
  await Deno.chmod(gate, 0o755);
  return gate;
}

Deno.test("vouch run off a terminal: sub-steps with sizes, and the clock moves while a check runs", async () => {
  const repo = await createRepo(
    {
      "add.sh": "add() { echo $(($1 - $2)); }\n",
      "test.sh": '. ./add.sh\n[ "$(add 1 2)" = 3 ]\n',
    },
    "sh test.sh",
    { ignored: ["node_modules/"] },
  );
  const state = await Deno.makeTempDir({ prefix: "vouch-progress-" });
  const gate = await openGate();
  try {
    await writeFiles(repo.dir, { "node_modules/pkg/index.js": "x".repeat(2 * 1024 * 1024) });
    const agent = `${repo.dir}/../agent.sh`;
    await Deno.writeTextFile(
      agent,
      `#!/bin/sh\nprintf '%s\\n' 'add() { echo $(($1 + $2)); }' > add.sh\n`,
    );
    await Deno.chmod(agent, 0o755);
    // The fixed tree's check waits (at most 120 s) for the test's go-ahead.
    const check = `if grep -q "+" add.sh; then i=0; while [ ! -e ${gate}/go ] && [ $i -lt 600 ]; ` +
      `do sleep 0.2; i=$((i+1)); done; [ -e ${gate}/go ] || exit 9; fi; sh test.sh`;
    const child = spawnVouch(
      repo,
      [
        "run",
        "--backend",
        `command:${agent}`,
        "--goal",
        "fix",
        "--verify",
        check,
        "--sandbox-ro",
        gate,
        "--progress",
        "plain",
      ],
      state,
      "deno",
      { VOUCH_PROGRESS_EVERY: "1" },
    );
    const decoder = new TextDecoder();
    let err = "";
    const reader = child.stderr.getReader();
    const stillRunning = /round 1 · verify · check "verify" · still running/g;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      err += decoder.decode(value, { stream: true });
      if ((err.match(stillRunning)?.length ?? 0) >= 2) break;
    }
    await Deno.writeTextFile(`${gate}/go`, "");
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      err += decoder.decode(value, { stream: true });
    }
    const out = await new Response(child.stdout).text();
    const status = await child.status;
    assert.equal(status.code, 0, err + out);
    assert.match(out, /^VERIFIED /);
    assert.match(err, /· binding node_modules read-only, 1 entry/, err);
    const clocks = [
      ...err.matchAll(/^\[ *([0-9.]+)s\] · round 1 · verify · check "verify" · still running$/gm),
    ]
      .map((m) => Number(m[1]));
    assert.ok(clocks.length >= 2, err);
    assert.ok(clocks[1]! > clocks[0]!, `the clock moves: ${clocks.join(", ")}`);
  } finally {
    await repo.cleanup();
    await Deno.remove(state, { recursive: true }).catch(() => {});
    await Deno.remove(gate, { recursive: true }).catch(() => {});
  }
});

Deno.test("vouch verify: 'still running' lines with a moving clock while a check runs", async () => {
  const repo = await createRepo({ "a.txt": "a\n" }, "true");
  const state = await Deno.makeTempDir({ prefix: "vouch-progress-" });
  const gate = await openGate();
  try {
    await writeFiles(repo.dir, { "a.txt": "b\n" });
    const patch = `${repo.dir}/../a.patch`;
    await Deno.writeTextFile(patch, await git(repo.dir, "diff", "--binary"));
    await git(repo.dir, "checkout", "-q", "a.txt");
    const check =
      `i=0; while [ ! -e ${gate}/go ] && [ $i -lt 600 ]; do sleep 0.2; i=$((i+1)); done; ` +
      `[ -e ${gate}/go ]`;
    const child = spawnVouch(
      repo,
      ["verify", "--patch", patch, "--verify", check, "--sandbox-ro", gate],
      state,
      "deno",
      { VOUCH_PROGRESS_EVERY: "1" },
    );
    const decoder = new TextDecoder();
    let err = "";
    const reader = child.stderr.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      err += decoder.decode(value, { stream: true });
      if ((err.match(/still running/g)?.length ?? 0) >= 2) break;
    }
    await Deno.writeTextFile(`${gate}/go`, "");
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      err += decoder.decode(value, { stream: true });
    }
    const out = await new Response(child.stdout).text();
    assert.equal((await child.status).code, 0, err + out);
    const clocks = [
      // `verify` runs the baseline first by default: the gated check is then the baseline's.
      ...err.matchAll(/^(?:baseline|verify): check "verify" · still running \(([0-9.]+)s\)$/gm),
    ].map((m) => Number(m[1]));
    assert.ok(clocks.length >= 2 && clocks[1]! > clocks[0]!, err);
  } finally {
    await repo.cleanup();
    await Deno.remove(state, { recursive: true }).catch(() => {});
    await Deno.remove(gate, { recursive: true }).catch(() => {});
  }
});

Deno.test({
  name:
    "vouch run off a terminal: while the agent starts, the live line names the sub-step and its clock moves",
  ignore: NODE === null,
  fn: async () => {
    const repo = await createRepo(
      {
        "package.json": '{ "type": "module" }\n',
        "src/add.js": "export function add(a, b) {\n  return a - b;\n}\n",
        "test/add.test.js": 'import { add } from "../src/add.js";\n' +
          "if (add(2, 3) !== 5) process.exit(1);\n",
      },
      `${NODE} test/add.test.js`,
    );
    const state = await Deno.makeTempDir({ prefix: "vouch-progress-" });
    const gate = await openGate();
    try {
      // The agent answers `initialize` only once the test opens its gate (at most 120 s).
      const child = spawnVouch(
        repo,
        [
          "run",
          "--backend",
          `acp:${NODE} ${ACP_AGENT} ${gate}/go`,
          "--goal",
          "make the test pass",
          "--verify",
          `${NODE} test/add.test.js`,
          "--max-rounds",
          "1",
          "--progress",
          "plain",
        ],
        state,
        "deno",
        { VOUCH_PROGRESS_EVERY: "1" },
      );
      const decoder = new TextDecoder();
      let err = "";
      const reader = child.stderr.getReader();
      const starting =
        /^\[ *([0-9.]+)s\] · setup · start · starting acp_agent \(initialize\) · still running$/gm;
      const clocks = () => [...err.matchAll(starting)].map((m) => Number(m[1]));
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        err += decoder.decode(value, { stream: true });
        if (new Set(clocks()).size >= 2) break;
      }
      await Deno.writeTextFile(`${gate}/go`, "");
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        err += decoder.decode(value, { stream: true });
      }
      const out = await new Response(child.stdout).text();
      assert.equal((await child.status).code, 0, err + out);
      assert.match(out, /^VERIFIED /);
      const seen = clocks();
      assert.ok(
        seen.length >= 2 && seen[1]! > seen[0]!,
        `the clock moves: ${seen.join(", ")}\n${err}`,
      );
      // The start came before the baseline, and its sub-step was named while it lasted.
      assert.ok(err.indexOf("· setup · start ·") < err.indexOf("· setup · baseline"), err);
    } finally {
      await repo.cleanup();
      await Deno.remove(state, { recursive: true }).catch(() => {});
      await Deno.remove(gate, { recursive: true }).catch(() => {});
    }
  },
});
