/**
 * Red team (issue #20 §5): a VerifiedPatch must bind the path rules its patch
 * was judged against. Before, `--allow` / `--forbid` and the contract's
 * `protect` were nowhere in it: a patch verified under `--allow '**'` and one
 * verified under a narrow scope looked the same, and nothing could tell a
 * loosened policy from the one that ran. Now `pathPolicy` is sealed with the
 * rest (HMAC): editing it, or stripping it, fails the MAC.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { VOUCH_TASK_FLAGS } from "../../golden/cli_harness.ts";
import { loadOrCreateMacKey } from "../../../adapters/keys/mac_key.ts";
import { verifyVerifiedPatchJson } from "../../../adapters/verified_patch/verified_patch.ts";
import { git, writeFiles } from "../../golden/fixture_repos.ts";

const MAIN = new URL("../../../cli/main.ts", import.meta.url).pathname;
const CONFIG = new URL("../../../deno.json", import.meta.url).pathname;

Deno.test("red team: `vouch verify` seals the path rules into the VerifiedPatch; a loosened or stripped policy fails its MAC", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vouch-redteam-pathpolicy-" });
  try {
    const repo = join(dir, "repo");
    await Deno.mkdir(repo);
    await git(repo, "init", "-q");
    await git(repo, "config", "user.email", "e@example.invalid");
    await git(repo, "config", "user.name", "e");
    await writeFiles(repo, { "src/answer.txt": "41\n" });
    await git(repo, "add", "-A");
    await git(repo, "commit", "-qm", "init");
    const patch = join(dir, "fix.diff");
    await Deno.writeTextFile(
      patch,
      "diff --git a/src/answer.txt b/src/answer.txt\n--- a/src/answer.txt\n+++ b/src/answer.txt\n" +
        "@@ -1 +1 @@\n-41\n+42\n",
    );
    const env = { ...Deno.env.toObject(), XDG_STATE_HOME: join(dir, "state"), NO_COLOR: "1" };
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        ...VOUCH_TASK_FLAGS,
        "--config",
        CONFIG,
        MAIN,
        "verify",
        "--patch",
        patch,
        "--verify",
        "grep -qx 42 src/answer.txt",
        "--allow",
        "src/**",
        "--forbid",
        "src/secret/**",
        "--sandbox",
        "none",
        "--json",
      ],
      cwd: repo,
      env,
      stdin: "null",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    assert.equal(out.code, 0, text + new TextDecoder().decode(out.stderr));
    const result = JSON.parse(text) as { verifiedPatch: string | null };
    assert.ok(result.verifiedPatch !== null, text);
    const sealed = JSON.parse(await Deno.readTextFile(result.verifiedPatch));
    assert.deepEqual(sealed.pathPolicy?.allow, ["src/**"]);
    assert.ok(
      sealed.pathPolicy.forbid.includes("src/secret/**"),
      JSON.stringify(sealed.pathPolicy),
    );
    const key = await loadOrCreateMacKey({ repoRoot: repo, env, create: false });
    await verifyVerifiedPatchJson(sealed, key);
    // Loosened after the fact: anything allowed, nothing forbidden.
    const loosened = { ...sealed, pathPolicy: { ...sealed.pathPolicy, allow: [], forbid: [] } };
    await assert.rejects(verifyVerifiedPatchJson(loosened, key), { code: "bad_mac" });
    const { pathPolicy: _stripped, ...stripped } = sealed;
    await assert.rejects(verifyVerifiedPatchJson(stripped, key), { code: "bad_mac" });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
