/**
 * A permission Deno refuses is reported as one: `permission_denied`, naming
 * the flag, exit 5, never as what it would otherwise look like (a git that
 * cannot start used to read "not inside a git work tree"). Real CLI processes
 * with deliberately narrow flags on a real repository.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { oneCommitRepo } from "./_one_commit_repo.ts";

const MAIN = fileURLToPath(new URL("../../cli/main.ts", import.meta.url));

function fixture(): { root: string; repo: string; patch: string } {
  const root = mkdtempSync(join(tmpdir(), "vouch-perm-"));
  return { root, ...oneCommitRepo(root) };
}

function vouch(flags: string[], args: string[], root: string) {
  return spawnSync(Deno.execPath(), ["run", "--no-prompt", ...flags, MAIN, ...args], {
    env: { ...Deno.env.toObject(), XDG_STATE_HOME: join(root, "state"), NO_COLOR: "1" },
    encoding: "utf8",
  });
}

Deno.test("verify without --allow-run: permission_denied naming --allow-run, not not_a_repo", () => {
  const fx = fixture();
  try {
    const r = vouch(
      ["--deny-net", "--allow-read", "--allow-write", "--allow-env", "--allow-sys=hostname"],
      ["verify", "--patch", fx.patch, "--verify", "true", "--sandbox", "none", "--dir", fx.repo],
      fx.root,
    );
    assert.equal(r.status, 5, r.stderr);
    const last = r.stderr.trim().split("\n").at(-1)!;
    assert.match(last, /^vouch verify: Cannot run: Deno denied run access .*--allow-run/);
    assert.match(last, /\(permission_denied\)$/);
    assert.doesNotMatch(r.stderr, /not inside a git work tree|not_a_repo/);
  } finally {
    rmSync(fx.root, { recursive: true, force: true });
  }
});

Deno.test("scope without read access to the patch: permission_denied naming --allow-read", () => {
  const fx = fixture();
  try {
    const r = vouch(
      ["--deny-net", `--allow-read=${fx.repo}`, "--allow-env", "--allow-run=git"],
      ["scope", "--patch", fx.patch],
      fx.root,
    );
    assert.equal(r.status, 5, r.stderr);
    assert.match(r.stderr.trim(), /Deno denied read access .*--allow-read.*\(permission_denied\)$/);
  } finally {
    rmSync(fx.root, { recursive: true, force: true });
  }
});
