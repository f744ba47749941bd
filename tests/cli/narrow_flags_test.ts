/**
 * The read-only commands run under the narrow Deno flags README's permission
 * table gives them: no write, no run, no net, reads limited to the files they
 * judge. `scope` reads the patch; `inspect` reads the log and the key (and
 * env, to find the key); `attest verify` reads the envelope and the public
 * key. The log and the attestation are made first by `verify` and `attest
 * export` with `deno task vouch`'s flags, on a real repository.
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const MAIN = fileURLToPath(new URL("../../cli/main.ts", import.meta.url));
const TASK_FLAGS = [
  "--deny-net",
  "--deny-ffi",
  "--allow-sys=hostname",
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-run",
];

Deno.test("scope, inspect and attest verify run with read-only flags (no write, run or net)", () => {
  const root = mkdtempSync(join(tmpdir(), "vouch-narrow-"));
  try {
    const repo = join(root, "repo");
    execFileSync("git", ["init", "-q", "-b", "main", repo]);
    writeFileSync(join(repo, "a.txt"), "1\n");
    execFileSync("git", ["add", "."], { cwd: repo });
    execFileSync(
      "git",
      ["-c", "user.email=a@b.invalid", "-c", "user.name=a", "commit", "-qm", "x"],
      {
        cwd: repo,
      },
    );
    const patch = join(root, "fix.patch");
    writeFileSync(
      patch,
      "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-1\n+2\n",
    );
    const env = { ...Deno.env.toObject(), XDG_STATE_HOME: join(root, "state"), NO_COLOR: "1" };
    const vouch = (flags: string[], args: string[]) => {
      const r = spawnSync(Deno.execPath(), ["run", "--no-prompt", ...flags, MAIN, ...args], {
        cwd: repo,
        env,
        encoding: "utf8",
      });
      assert.equal(r.status, 0, `${args.join(" ")}: ${r.stderr}${r.stdout}`);
      return r.stdout;
    };
    const sandbox = spawnSync("sh", ["-c", "command -v bwrap"]).status === 0 ? "auto" : "none";
    vouch(TASK_FLAGS, [
      "verify",
      "--patch",
      patch,
      "--verify",
      "grep -q 2 a.txt",
      "--sandbox",
      sandbox,
    ]);
    const att = join(root, "att.json");
    vouch(TASK_FLAGS, ["attest", "export", "--out", att]);
    const pub = join(root, "pub.pem");
    writeFileSync(pub, vouch(TASK_FLAGS, ["attest", "pubkey"]));

    const scope = JSON.parse(
      vouch([`--allow-read=${root}`], ["scope", "--patch", patch, "--json"]),
    );
    assert.equal(scope.verdict, "accept");
    const inspect = JSON.parse(
      vouch([`--allow-read=${root}`, "--allow-env"], ["inspect", ".vouch/events.jsonl", "--json"]),
    );
    assert.equal(inspect.audit, "verified");
    const verified = JSON.parse(
      vouch([`--allow-read=${root}`], ["attest", "verify", att, "--key", pub, "--json"]),
    );
    assert.equal(verified.verified, true);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
