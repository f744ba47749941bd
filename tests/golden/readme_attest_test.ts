/**
 * README's attestation example works as written, also when fix.patch is not
 * the latest verified patch of the log (it used to export the latest one and
 * `attest verify --patch fix.patch` then failed with `subject_mismatch`).
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runVouch } from "./cli_harness.ts";
import { createRepo, git, writeFiles } from "./fixture_repos.ts";

const README = await Deno.readTextFile(
  join(dirname(fileURLToPath(import.meta.url)), "../../README.md"),
);
const EXPORT = "attest export --patch fix.patch --out fix.intoto.json --pub-out vouch.pub";
const VERIFY = "attest verify fix.intoto.json --key vouch.pub --patch fix.patch";

Deno.test("README: attest export --patch / attest verify --patch, with a later verified patch in the log", async () => {
  assert.ok(README.includes(`deno task -q vouch ${EXPORT}\n`), "README shows the export");
  assert.ok(README.includes(`deno task -q vouch ${VERIFY}\n`), "README shows the verify");
  const repo = await createRepo({
    "add.sh": "add() { echo $(($1 - $2)); }\n",
    "test.sh": '. ./add.sh\n[ "$(add 1 2)" = 3 ]\n',
  }, "sh test.sh");
  const state = await Deno.makeTempDir({ prefix: "vouch-readme-attest-" });
  try {
    await writeFiles(repo.dir, { "add.sh": "add() { echo $(($1 + $2)); }\n" });
    await Deno.writeTextFile(`${repo.dir}/../fix.patch`, await git(repo.dir, "diff", "--binary"));
    await writeFiles(repo.dir, { "add.sh": "add() { echo $(( $1 + $2 )); }\n" });
    await Deno.writeTextFile(`${repo.dir}/../other.patch`, await git(repo.dir, "diff", "--binary"));
    await git(repo.dir, "checkout", "-q", "add.sh");
    for (const p of ["fix.patch", "other.patch"]) {
      const r = await runVouch(
        repo,
        ["verify", "--patch", `../${p}`, "--verify", "sh test.sh"],
        state,
      );
      assert.equal(r.code, 0, r.stdout + r.stderr);
    }
    // The README's commands, run from the directory holding fix.patch (paths as written).
    const words = (line: string) =>
      line.split(" ").map((w) =>
        w.endsWith(".patch") || w.endsWith(".json") || w.endsWith(".pub") ? `../${w}` : w
      );
    const exported = await runVouch(repo, words(EXPORT), state);
    assert.equal(exported.code, 0, exported.stdout + exported.stderr);
    const verified = await runVouch(repo, words(VERIFY), state);
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
    assert.match(verified.stdout, /^VERIFIED attestation/);
  } finally {
    await repo.cleanup();
    await Deno.remove(state, { recursive: true }).catch(() => {});
  }
});
