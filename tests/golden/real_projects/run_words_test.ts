/**
 * `vouch run` in words that match what happened: an ordinary end of rounds is
 * "REJECTED after N rounds" with WHY (the failing check's detail and output),
 * never `paused · budget_repair_rounds` / `killed · killed`; the detected
 * verify command is printed.
 */
import assert from "node:assert/strict";
import { createRepo } from "../fixture_repos.ts";
import { runVouch } from "../cli_harness.ts";

Deno.test("run words: max rounds reads 'REJECTED after 2 rounds' with why; the detected command is printed", async () => {
  const repo = await createRepo(
    {
      "package.json": JSON.stringify({ name: "words", scripts: { test: "node test.js" } }),
      "lib.js": "exports.add = (a, b) => a - b;\n",
      "test.js": [
        'const assert = require("assert");',
        'assert.equal(require("./lib.js").add(2, 3), 5, "add adds");',
        "",
      ].join("\n"),
      // The fake agent edits something, but never fixes the bug.
      ".vouch-fake-agent.json": JSON.stringify({
        mode: "fix",
        edits: [{ path: "lib.js", replace: ["a - b", "a - b + 0"] }],
      }) + "\n",
    },
    "npm test",
  );
  const state = await Deno.makeTempDir({ prefix: "vouch-rp-words-" });
  try {
    const run = await runVouch(
      repo,
      ["run", "--backend", "codex", "--goal", "make the tests pass", "--max-rounds", "2"],
      state,
    );
    const all = run.stdout + run.stderr;
    assert.equal(run.code, 1, all);
    assert.match(all, /verify: `npm test --silent` \(detected from package\.json\)/);
    assert.match(run.stdout, /^REJECTED after 2 rounds \(/m, all);
    assert.match(run.stdout, /why \(round 2\):\n {2}check "tests": exited 1, expected 0/, all);
    assert.match(run.stdout, /\| {3}expected: 5,/, all);
    assert.doesNotMatch(all, /budget_repair_rounds|killed · killed|paused/, all);
  } finally {
    await repo.cleanup();
    await Deno.remove(state, { recursive: true }).catch(() => {});
  }
});

Deno.test("run from a subdirectory: the repository's test command is detected at its top", async () => {
  const repo = await createRepo(
    {
      "package.json": JSON.stringify({ name: "sub", scripts: { test: "node test.js" } }),
      "lib.js": "exports.add = (a, b) => a - b;\n",
      "test.js": 'if (require("./lib.js").add(2, 3) !== 5) process.exit(1);\n',
      "src/deep/notes.txt": "deep\n",
      ".vouch-fake-agent.json": JSON.stringify({
        mode: "fix",
        edits: [{ path: "lib.js", replace: ["a - b", "a + b"] }],
      }) + "\n",
    },
    "npm test",
  );
  const state = await Deno.makeTempDir({ prefix: "vouch-rp-subdir-" });
  try {
    const run = await runVouch(
      { ...repo, dir: `${repo.dir}/src/deep` },
      ["run", "--json", "--backend", "codex", "--goal", "make the tests pass"],
      state,
    );
    assert.equal(run.json?.["state"], "verified", run.stdout + run.stderr);
    assert.equal(run.code, 0);
  } finally {
    await repo.cleanup();
    await Deno.remove(state, { recursive: true }).catch(() => {});
  }
});
