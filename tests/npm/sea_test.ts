/**
 * `deno task sea`'s `dist/vouch` (Node single executable application) runs on
 * a real repository with no Deno and no Node on PATH: PATH is one directory of
 * links to everything in the system's bin directories except deno, node, npm,
 * npx and corepack. It verifies a fix (in the
 * bwrap sandbox when available), rejects a break, and its `inspect` verifies
 * the log it wrote. `vouch evaluate` cannot start a permission-restricted child
 * of a single executable: it refuses in one line (isolation_unavailable) and
 * never evaluates unisolated.
 *
 * The binary exposes nothing but itself: placed in a folder beside
 * `SECRET-beside-binary`, or at `<repo>/.tools/vouch`, a sandboxed check sees
 * the executable's file and neither the secret nor the checkout (the same check
 * run with `--sandbox none` does see the secret: the probe can tell), and
 * `vouch doctor` never lists the binary's folder as a toolchain.
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
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

let built: string | null = null;
/** `deno task sea`, once per test process. */
function sea(): string {
  built ??= buildSea();
  return built;
}

Deno.test({
  name: "sea: dist/vouch verifies on a repo with no deno and no node on PATH",
  ignore: !hasNpm,
  fn: async () => {
    const exe = sea();
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

const hasBwrap = which("bwrap") !== null;
if (!hasBwrap) console.log("sea_test: bwrap not on PATH; the binary-exposure test skips");

Deno.test({
  name: "sea: a sandboxed check sees the binary's own file, never the folder it sits in",
  ignore: !hasNpm || !hasBwrap,
  fn: () => {
    const built = sea();
    const fx = fixtureRepo();
    // Outside /tmp (checks get a private /tmp, which would hide these vacuously).
    const outside = join(ROOT, "dist", `sea-beside-${Date.now()}`);
    try {
      // 1. a download folder: the binary beside a secret
      const downloads = join(outside, "downloads");
      mkdirSync(downloads, { recursive: true });
      const secret = join(downloads, "SECRET-beside-binary");
      writeFileSync(secret, "hunter2\n");
      const exe = join(downloads, "vouch");
      copyFileSync(built, exe);
      execFileSync("chmod", ["+x", exe]);
      // 2. a checkout with the binary at <repo>/.tools/vouch (untracked, ignored)
      const repo = join(outside, "repo");
      cpSync(fx.repo, repo, { recursive: true });
      writeFileSync(join(repo, ".git/info/exclude"), ".tools/\n");
      mkdirSync(join(repo, ".tools"));
      writeFileSync(join(repo, ".tools/SECRET-beside-binary"), "hunter2\n");
      const inRepo = join(repo, ".tools/vouch");
      copyFileSync(built, inRepo);
      execFileSync("chmod", ["+x", inRepo]);

      const env = { PATH: "/usr/bin:/bin", HOME: fx.root, XDG_STATE_HOME: join(fx.root, "state") };
      const verify = (vouch: string, check: string, sandbox: "bwrap" | "none") =>
        spawnSync(vouch, [
          "verify",
          "--patch",
          fx.fix,
          "--verify",
          `${check} && sh check.sh`,
          "--sandbox",
          sandbox,
          "--dir",
          repo,
          "--json",
        ], { cwd: dirname(vouch), env, encoding: "utf8" });
      const beside = `test -x ${exe} && test ! -e ${secret}`;
      // the control: without the sandbox the check does see the secret (the check can tell)
      const control = verify(exe, beside, "none");
      assert.equal(control.status, 1, control.stderr + control.stdout);
      const boxed = verify(exe, beside, "bwrap");
      assert.equal(boxed.status, 0, boxed.stderr + boxed.stdout);
      assert.equal(JSON.parse(boxed.stdout).verdict, "verified");

      // (its .git is shown read-only by design: the worktree's git dirs live there)
      const checkout = ["value.txt", "check.sh", ".tools/SECRET-beside-binary"]
        .map((f) => `test ! -e ${join(repo, f)}`).join(" && ");
      const inside = verify(inRepo, checkout, "bwrap");
      assert.equal(inside.status, 0, inside.stderr + inside.stdout);
      assert.equal(JSON.parse(inside.stdout).verdict, "verified");

      // doctor names the binary's file (if anything there), never its folder
      const doctor = spawnSync(exe, ["doctor", "--json"], {
        cwd: downloads,
        env,
        encoding: "utf8",
      });
      const shown: string[] = JSON.parse(doctor.stdout).sandboxToolchains;
      assert.ok(Array.isArray(shown), doctor.stdout + doctor.stderr);
      for (const path of shown) {
        assert.ok(!downloads.startsWith(path) && !outside.startsWith(path), path);
        if (path.startsWith(downloads)) assert.equal(path, exe);
      }
    } finally {
      rmSync(outside, { recursive: true, force: true });
      rmSync(fx.root, { recursive: true, force: true });
    }
  },
});
