/**
 * An agent program kept in the user's checkout (`vouch run --backend
 * command:./agent.sh`, docs/run.md's own example; rt2 finding 6), through the
 * real CLI under its own flags and real bwrap: the agent sees its own script
 * alone, never the checkout around it (an untracked file, `.vouch/` with the
 * event log), and an honest agent there still VERIFIES. Before: the
 * program's directory (the whole checkout) was bound read-only for it. Also
 * as an `acp:` program the same way (its dir dropped, the file kept) — unit
 * level in `tests/adapters/sandbox/bwrap_test.ts`.
 *
 * Skipped without bwrap.
 */
import assert from "node:assert/strict";
import { createRepo, git } from "../../golden/fixture_repos.ts";
import { runVouch } from "../../golden/cli_harness.ts";
import { skipReason } from "./_harness.ts";

Deno.test({
  name: "command:./agent.sh in the checkout: the agent sees its file alone (no untracked file, " +
    "no .vouch/), and its fix VERIFIES",
  ignore: skipReason !== null,
  async fn() {
    const repo = await createRepo({ "f.txt": "a\n" }, "grep -q fixed f.txt");
    const state = await Deno.makeTempDir({ prefix: "vouch-rt-aic-state-" });
    try {
      await Deno.chmod(repo.dir, 0o755);
      await Deno.writeTextFile(`${repo.dir}/notes.txt`, "UNTRACKED-NOTES-789\n");
      await Deno.mkdir(`${repo.dir}/.vouch`, { recursive: true });
      await Deno.writeTextFile(`${repo.dir}/.vouch/earlier.txt`, "EARLIER-RUN\n");
      // The agent refuses to fix when it sees anything of the checkout but itself (and the
      // allowlisted, read-only git view every agent has at the checkout's .git).
      await Deno.writeTextFile(
        `${repo.dir}/agent.sh`,
        `#!/bin/sh
d=$(dirname "$(readlink -f "$0")")
seen=$(ls -A "$d" | grep -vx .git)
if [ "$seen" != agent.sh ] || cat "$d/notes.txt" 2>/dev/null || test -e "$d/.vouch"; then
  echo "LEAKED: $seen" >&2; exit 3
fi
echo fixed > f.txt
echo '{"summary":"fixed","done":true}'
`,
      );
      await Deno.chmod(`${repo.dir}/agent.sh`, 0o755);
      const exclude = `${repo.dir}/.git/info/exclude`;
      await Deno.writeTextFile(exclude, "agent.sh\nnotes.txt\n.vouch/\n", { append: true });
      assert.equal((await git(repo.dir, "status", "--porcelain")).trim(), "");
      const r = await runVouch(repo, [
        "run",
        "--backend",
        "command:./agent.sh",
        "--goal",
        "fix f.txt",
        "--verify",
        repo.verify,
      ], state);
      const text = r.stdout + r.stderr;
      assert.doesNotMatch(text, /LEAKED|UNTRACKED-NOTES|EARLIER-RUN/);
      assert.equal(r.code, 0, text);
      assert.match(r.stdout, /^VERIFIED/m);
    } finally {
      await repo.cleanup();
      await Deno.remove(state, { recursive: true }).catch(() => {});
    }
  },
});
