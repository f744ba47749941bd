/**
 * A scope-violating first round does not end `vouch run --max-rounds 2`: the
 * violation is fed back (the kernel's `scope_retry`), and a second round that
 * keeps to the scope verifies. With `--max-rounds 1` the violation is the
 * verdict (REJECTED, scope_violation), as before.
 */
import assert from "node:assert/strict";
import { runVouch } from "./cli_harness.ts";
import { createRepo } from "./fixture_repos.ts";

// Round 1 (no feedback yet) also edits a CI workflow (forbidden by default); round 2 only fixes.
const AGENT = `#!/bin/sh
printf '%s\\n' 'add() { echo $(($1 + $2)); }' > add.sh
if ! grep -q '"feedback"' "$VOUCH_TASK_FILE"; then
  mkdir -p .github/workflows && echo "on: push" > .github/workflows/ci.yml
else
  rm -rf .github
fi
`;

Deno.test("vouch run --max-rounds 2: a scope violation in round 1 is feedback, round 2 verifies", async () => {
  const repo = await createRepo({
    "add.sh": "add() { echo $(($1 - $2)); }\n",
    "test.sh": '. ./add.sh\n[ "$(add 1 2)" = 3 ]\n',
  }, "sh test.sh");
  const state = await Deno.makeTempDir({ prefix: "vouch-scope-feedback-" });
  try {
    const agent = `${repo.dir}/../agent.sh`;
    await Deno.writeTextFile(agent, AGENT);
    await Deno.chmod(agent, 0o755);
    const args = [
      "run",
      "--json",
      "--backend",
      `command:${agent}`,
      "--goal",
      "fix add",
      "--verify",
      "sh test.sh",
    ];
    const two = await runVouch(repo, [...args, "--max-rounds", "2"], state);
    assert.equal(two.code, 0, two.stdout + two.stderr);
    assert.equal(two.json?.["state"], "verified");
    const rounds = two.json?.["rounds"] as { verdict: string; reasons: string[] }[];
    assert.equal(rounds.length, 2);
    assert.equal(rounds[0]!.verdict, "rejected");
    assert.ok(rounds[0]!.reasons.some((r) => r.includes("forbidden")), JSON.stringify(rounds[0]));
    assert.equal(rounds[1]!.verdict, "verified");
    const one = await runVouch(repo, [...args, "--max-rounds", "1"], state);
    assert.equal(one.code, 1, one.stdout);
    assert.equal(one.json?.["state"], "rejected");
    assert.equal(one.json?.["reason"], "scope_violation");
  } finally {
    await repo.cleanup();
    await Deno.remove(state, { recursive: true }).catch(() => {});
  }
});
