/**
 * The wall budget stops a run: a baseline that outlasts `--timeout` leaves no
 * time, so no backend round starts and the run ends `budget_exhausted`
 * (exit 3) saying so; before, the rounds started after the timeout had passed.
 */
import assert from "node:assert/strict";
import { createRepo } from "../fixture_repos.ts";
import { runVouch } from "../cli_harness.ts";

Deno.test("budget: --timeout covers the baseline; no round starts after it passed (exit 3)", async () => {
  const repo = await createRepo(
    {
      "slow.sh": "sleep 4\nexit 1\n",
      ".vouch-fake-agent.json": JSON.stringify({
        mode: "fix",
        edits: [{ path: "slow.sh", replace: ["exit 1", "exit 0"] }],
      }) + "\n",
    },
    "sh slow.sh",
  );
  const state = await Deno.makeTempDir({ prefix: "vouch-rp-budget-" });
  try {
    const started = Date.now();
    const run = await runVouch(repo, [
      "run",
      "--json",
      "--backend",
      "codex",
      "--goal",
      "make it pass",
      "--verify",
      "sh slow.sh",
      "--timeout",
      "2",
    ], state);
    const all = run.stdout + run.stderr;
    assert.equal(run.json?.["state"], "budget_exhausted", all);
    assert.equal(run.code, 3, all);
    assert.equal(run.json?.["reason"], "budget_wall_time");
    assert.deepEqual(run.json?.["rounds"], [], "no backend round started after the timeout");
    assert.match(String(run.json?.["message"]), /--timeout of 2 s passed before any backend round/);
    // The JSON above proves where it stopped; this bound only turns a hang into a failure.
    assert.ok(Date.now() - started < 300_000, "the run stopped at the budget");
  } finally {
    await repo.cleanup();
    await Deno.remove(state, { recursive: true }).catch(() => {});
  }
});
