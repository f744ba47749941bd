/**
 * Golden `vouch verify` under both runtimes (Deno, and Node with the CLI
 * bundled for it): a fixing patch is verified in a clean tree (bwrap when
 * available), a breaking one is rejected, the user's checkout stays
 * byte-identical, and `vouch inspect` (same runtime) verifies the log.
 */
import assert from "node:assert/strict";
import {
  createDenoRepo,
  denoTestCommand,
  git,
  snapshot,
  snapshotDifferences,
} from "./fixture_repos.ts";
import { RUNTIMES, runVouch } from "./cli_harness.ts";

for (const runtime of RUNTIMES) {
  Deno.test(`golden [${runtime}]: vouch verify verifies a fix and rejects a break`, async () => {
    const repo = await createDenoRepo();
    const state = await Deno.makeTempDir({ prefix: "vouch-verify-state-" });
    try {
      const original = await Deno.readTextFile(`${repo.dir}/math.ts`);
      const patchFor = async (text: string, name: string) => {
        await Deno.writeTextFile(`${repo.dir}/math.ts`, text);
        const patch = await git(repo.dir, "diff", "--binary", "--full-index");
        await Deno.writeTextFile(`${repo.dir}/math.ts`, original);
        await Deno.writeTextFile(`${state}/${name}`, patch);
        return `${state}/${name}`;
      };
      const fix = await patchFor(original.replace("a - b", "a + b"), "fix.patch");
      const bad = await patchFor(original.replace("a - b", "a * b"), "bad.patch");
      const before = await snapshot(repo.dir);
      const verify = (patch: string) =>
        runVouch(
          repo,
          ["verify", "--patch", patch, "--verify", denoTestCommand(), "--json"],
          state,
          runtime,
        );
      const ok = await verify(fix);
      assert.equal(ok.code, 0, ok.stderr + ok.stdout);
      assert.equal(ok.json?.["verdict"], "verified");
      assert.equal(ok.json?.["schemaVersion"], 1);
      assert.match(String(ok.json?.["verifiedPatch"]), /verified_patch\.json$/);
      const rejected = await verify(bad);
      assert.equal(rejected.code, 1, rejected.stderr + rejected.stdout);
      assert.equal(rejected.json?.["verdict"], "rejected");
      assert.equal(rejected.json?.["verifiedPatch"], null);
      const inspected = await runVouch(
        repo,
        ["inspect", ".vouch/events.jsonl", "--json"],
        state,
        runtime,
      );
      assert.equal(inspected.code, 0, inspected.stderr + inspected.stdout);
      const report = JSON.parse(inspected.stdout);
      assert.equal(report.audit, "verified", inspected.stdout);
      assert.equal(report.patches.verified, 1);
      assert.deepEqual(
        snapshotDifferences(before, await snapshot(repo.dir)),
        [],
        "the user's checkout is byte-identical",
      );
    } finally {
      await repo.cleanup();
      await Deno.remove(state, { recursive: true }).catch(() => {});
    }
  });
}
