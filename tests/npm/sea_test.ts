/**
 * `deno task sea`'s `dist/vouch` (Node single executable application) runs on
 * a real repository with no Deno and no Node on PATH: PATH is one directory of
 * links to everything in the system's bin directories except deno, node, npm,
 * npx and corepack. It verifies a fix (in the
 * bwrap sandbox when available), rejects a break, and its `inspect` verifies
 * the log it wrote. `vouch evaluate` cannot start a permission-restricted child
 * of a single executable: it refuses in one line (isolation_unavailable) and
 * never evaluates unisolated.
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../../tools/build_npm.ts";
import { buildSea } from "../../tools/build_sea.ts";
import { BUNDLE_FIXTURES, materializeFixture } from "../redteam/bundles/fixtures.ts";
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
  fn: async () => {
    const exe = buildSea();
    const fx = fixtureRepo();
    const cleanup: string[] = [fx.root];
    try {
      // Outside /tmp: the bwrap sandbox gives checks a private /tmp, and PATH must resolve in it.
      const bin = join(ROOT, "dist", `sea-path-${Date.now()}`);
      mkdirSync(bin, { recursive: true });
      cleanup.push(bin);
      const runtimes = new Set(["deno", "node", "nodejs", "npm", "npx", "corepack"]);
      for (
        const dir of ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]
      ) {
        let names: string[];
        try {
          names = readdirSync(dir);
        } catch {
          continue;
        }
        for (const name of names) {
          if (runtimes.has(name) || existsSync(join(bin, name))) continue;
          symlinkSync(join(dir, name), join(bin, name));
        }
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
      const good = BUNDLE_FIXTURES.find((f) => f.name === "good")!;
      const b = await materializeFixture(good, join(fx.root, "bundle-fx"));
      const evaluated = vouch(
        "evaluate",
        "--bundle",
        b.bundleDir,
        "--work-unit",
        b.workUnitPath,
        "--plan",
        b.planPath,
        "--json",
      );
      assert.equal(evaluated.status, 5, evaluated.stderr + evaluated.stdout);
      assert.equal(evaluated.stdout, "");
      assert.match(
        evaluated.stderr,
        /^vouch evaluate: Cannot evaluate in isolation: .*\(isolation_unavailable\)\n$/,
      );
    } finally {
      for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
    }
  },
});
