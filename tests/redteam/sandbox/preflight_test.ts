/**
 * Red team, issue #20 (smaller findings): the `--version` preflight of agent
 * CLIs ran them unconfined, so a CLI (or a planted one on PATH) wrote to the
 * host before any sandbox existed. Now the preflight runs in the agent's own
 * sandbox. A fake `codex` whose `--version` writes a file outside its tree,
 * run by `vouch run --backend codex` with the CLI's own flags: the file must
 * not appear on the host (the write lands in the sandbox's private /tmp). The
 * same for `vouch doctor`, which asks every agent CLI on PATH its version.
 */
import assert from "node:assert/strict";
import { createRepo } from "../../golden/fixture_repos.ts";
import { runVouch } from "../../golden/cli_harness.ts";
import { skipReason } from "./_cli.ts";

for (const command of ["run", "doctor"] as const) {
  Deno.test({
    name: `preflight (vouch ${command}): an agent CLI's --version cannot write outside its sandbox`,
    ignore: skipReason !== null,
    fn: async () => {
      const repo = await createRepo({ "a.txt": "a\n" }, "true", { prefix: "vouch-rt-pre-" });
      const state = await Deno.makeTempDir({ prefix: "vouch-rt-pre-state-" });
      const bin = await Deno.makeTempDir({ prefix: "vouch-rt-pre-bin-" });
      // Outside every tree; /tmp of the host (the sandbox has a private one).
      const planted = `/tmp/vouch-rt-preflight-${crypto.randomUUID()}`;
      try {
        await Deno.writeTextFile(
          `${bin}/codex`,
          `#!/bin/sh\nif [ "$1" = --version ]; then echo pwned > ${planted}; echo "codex 0.0.1"; exit 0; fi\nexit 1\n`,
        );
        await Deno.chmod(`${bin}/codex`, 0o755);
        // As an install dir is (as root the sandbox's uid is 65534: a 0700 dir stays closed).
        await Deno.chmod(bin, 0o755);
        const r = await runVouch(
          repo,
          command === "run"
            ? [
              "run",
              "--backend",
              "codex",
              "--goal",
              "nothing",
              "--verify",
              "true",
              "--max-rounds",
              "1",
            ]
            : ["doctor"],
          state,
          "deno",
          { PATH: `${bin}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}` },
        );
        const wrote = await Deno.stat(planted).then(() => true, () => false);
        assert.equal(
          wrote,
          false,
          `--version wrote ${planted} on the host\n${r.stdout}\n${r.stderr}`,
        );
        // The probe itself passed (the fake answered --version inside the sandbox).
        if (command === "run") assert.doesNotMatch(r.stderr, /--version/, r.stderr);
        else assert.match(r.stdout, /ok {4}agent codex {4}codex 0\.0\.1/, r.stdout);
      } finally {
        await Deno.remove(planted).catch(() => {});
        await repo.cleanup();
        await Deno.remove(state, { recursive: true }).catch(() => {});
        await Deno.remove(bin, { recursive: true }).catch(() => {});
      }
    },
  });
}
