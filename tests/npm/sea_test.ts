/**
 * `deno task sea`'s `dist/vouch` (Node single executable application) runs on
 * a real repository with no Deno and no Node on PATH: PATH holds only links to
 * git, sh, grep, setsid and (when present) bwrap. It verifies a fix (in the
 * bwrap sandbox when available), rejects a break, and its `inspect` verifies
 * the log it wrote.
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { buildSea } from "../../tools/build_sea.ts";
import { fixtureRepo } from "./_fixture.ts";

const hasNpm = spawnSync("npm", ["--version"]).status === 0;
if (!hasNpm) console.log("sea_test: npm not on PATH (postject comes from npm); the SEA test skips");

function which(name: string): string | null {
  const r = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : null;
}

Deno.test({
  name: "sea: dist/vouch verifies on a repo with no deno and no node on PATH",
  ignore: !hasNpm,
  fn: () => {
    const exe = buildSea();
    const fx = fixtureRepo();
    try {
      const bin = join(fx.root, "bin");
      mkdirSync(bin);
      const tools = ["git", "sh", "grep", "setsid", "bwrap"];
      for (const tool of tools) {
        const path = which(tool);
        if (path !== null) symlinkSync(path, join(bin, tool));
      }
      const env = { PATH: bin, HOME: fx.root, XDG_STATE_HOME: join(fx.root, "state") };
      const noRuntime = spawnSync("sh", ["-c", "command -v deno || command -v node"], { env });
      assert.notEqual(noRuntime.status, 0, "neither deno nor node is reachable on PATH");
      const sandbox = which("bwrap") !== null ? "auto" : "none";
      const vouch = (...args: string[]) =>
        spawnSync(exe, args, { cwd: fx.repo, env, encoding: "utf8" });
      const ok = vouch(
        "verify",
        "--patch",
        fx.fix,
        "--verify",
        "sh check.sh",
        "--sandbox",
        sandbox,
        "--json",
      );
      assert.equal(ok.status, 0, ok.stderr + ok.stdout);
      assert.equal(JSON.parse(ok.stdout).verdict, "verified");
      const bad = vouch(
        "verify",
        "--patch",
        fx.bad,
        "--verify",
        "sh check.sh",
        "--sandbox",
        sandbox,
        "--json",
      );
      assert.equal(bad.status, 1, bad.stderr + bad.stdout);
      assert.equal(JSON.parse(bad.stdout).verdict, "rejected");
      const inspected = vouch("inspect", ".vouch/events.jsonl", "--json");
      assert.equal(inspected.status, 0, inspected.stderr + inspected.stdout);
      assert.equal(JSON.parse(inspected.stdout).audit, "verified");
      assert.match(execFileSync(exe, ["--version"], { env, encoding: "utf8" }), /^vouch \d/);
    } finally {
      rmSync(fx.root, { recursive: true, force: true });
    }
  },
});
