/**
 * The npm package end to end: `deno task npm --pack`'s tarball installs into a
 * fresh Node project (`npm install ./vouch-vouch-x.y.z.tgz`), a consumer file
 * type-checks with `tsc --noEmit` against the shipped `.d.ts` (its
 * `@ts-expect-error` on a wrong call would be an error if the types were `any`),
 * `npx vouch verify` verifies a fix and rejects a break on a real git
 * repository, `npx vouch inspect` verifies the log, and the verifier called
 * from JavaScript does the same.
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { NPM_BUILD_DIR } from "../../tools/build_npm.ts";
import { fixtureRepo, npmTarball } from "./_fixture.ts";

const hasNpm = spawnSync("npm", ["--version"]).status === 0;
if (!hasNpm) console.log("npm_package_test: npm not on PATH; the npm package tests skip");

const CONSUMER =
  `import { contractFromCommand, verifyPatchInRepo, type VerifyPatchOutcome } from "@vouch/vouch";
import { initialKernelState } from "@vouch/vouch/kernel";
import { readFileSync } from "node:fs";

const [patchFile, dir] = process.argv.slice(2);
const outcome: VerifyPatchOutcome = await verifyPatchInRepo({
  dir: dir!,
  patch: new Uint8Array(readFileSync(patchFile!)),
  contract: contractFromCommand("sh check.sh", 60_000),
  sandbox: "none",
});
const verdict: "verified" | "rejected" = outcome.verdict;
const version: 1 = initialKernelState().v;
console.log(JSON.stringify({ verdict, version, reasons: outcome.reasons }));

// The types are real (not any): tsc fails on an unused @ts-expect-error.
export function wrongUse(): Promise<unknown> {
  // @ts-expect-error dir must be a string, and patch and contract are required
  return verifyPatchInRepo({ dir: 1 });
}
`;

/** The same consumer as plain JavaScript (what Node runs). */
const CONSUMER_JS = `import { contractFromCommand, verifyPatchInRepo } from "@vouch/vouch";
import { initialKernelState } from "@vouch/vouch/kernel";
import { readFileSync } from "node:fs";

const [patchFile, dir] = process.argv.slice(2);
const outcome = await verifyPatchInRepo({
  dir,
  patch: new Uint8Array(readFileSync(patchFile)),
  contract: contractFromCommand("sh check.sh", 60_000),
  sandbox: "none",
});
console.log(JSON.stringify({ verdict: outcome.verdict, version: initialKernelState().v, reasons: outcome.reasons }));
`;

Deno.test({
  name: "npm package: installs in a fresh Node project, type-checks, npx vouch verify, JS API",
  ignore: !hasNpm,
  fn: () => {
    const tgz = npmTarball();
    assert.match(tgz, /vouch-vouch-\d+\.\d+\.\d+\.tgz$/);
    const fx = fixtureRepo();
    try {
      const project = join(fx.root, "consumer");
      const sh = (cmd: string, args: string[], cwd = project) =>
        execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
      execFileSync("mkdir", ["-p", project]);
      writeFileSync(
        join(project, "package.json"),
        JSON.stringify({ name: "consumer", private: true, type: "module" }),
      );
      // --engine-strict: npm refuses the install if vouch or any dependency excludes this Node.
      sh("npm", [
        "install",
        "--engine-strict",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        tgz,
      ]);
      const installed = JSON.parse(
        readFileSync(join(project, "node_modules/@vouch/vouch/package.json"), "utf8"),
      );
      assert.ok(installed.dependencies.zod, "zod is a real npm dependency");
      assert.equal(installed.engines.node, ">=20");
      assert.equal(installed.license, "MIT");
      assert.equal(installed.sideEffects, false);
      assert.match(installed.repository.url, /^git\+https:\/\/.+\.git$/);
      assert.match(installed.homepage, /^https:\/\//);
      for (const file of ["LICENSE", "CHANGELOG.md", "README.md"]) {
        assert.ok(existsSync(join(project, "node_modules/@vouch/vouch", file)), file);
      }
      // which Node the engine-strict install was judged against (the CI image has Node 20)
      const nodeMajor = Number(
        execFileSync("node", ["-p", "process.versions.node.split('.')[0]"], {
          encoding: "utf8",
        }).trim(),
      );
      console.log(`npm_package_test: installed with --engine-strict on Node ${nodeMajor}`);
      // the runtime dependencies were installed by npm, not bundled
      JSON.parse(readFileSync(join(project, "node_modules/zod/package.json"), "utf8"));
      writeFileSync(join(project, "consumer.ts"), CONSUMER);
      const tsconfig = {
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          // The shipped declarations are checked without skipLibCheck under these very options
          // (NodeNext, strict, @types/node) by consumers_test.ts's nodenext case; checking them
          // again here cost ~13 CPU-s of tsc's ~17. This compile checks the consumer's own code
          // against them (the @ts-expect-error must still be an error).
          skipLibCheck: true,
          types: ["node"],
          // TypeScript and @types/node come from the build's scratch dir (not the package)
          typeRoots: [join(NPM_BUILD_DIR, "node_modules/@types")],
          outDir: "out",
        },
        files: ["consumer.ts"],
      };
      writeFileSync(join(project, "tsconfig.json"), JSON.stringify(tsconfig));
      const tsc = join(NPM_BUILD_DIR, "node_modules/typescript/bin/tsc");
      sh("node", [tsc, "--noEmit", "-p", "tsconfig.json"]);

      const env = { ...Deno.env.toObject(), XDG_STATE_HOME: join(fx.root, "state") };
      const npx = (patch: string) =>
        spawnSync("npx", [
          "--no-install",
          "vouch",
          "verify",
          "--patch",
          patch,
          "--verify",
          "sh check.sh",
          "--sandbox",
          "none",
          "--dir",
          fx.repo,
          "--json",
        ], {
          cwd: project,
          env,
          encoding: "utf8",
        });
      const ok = npx(fx.fix);
      assert.equal(ok.status, 0, ok.stderr + ok.stdout);
      assert.equal(JSON.parse(ok.stdout).verdict, "verified");
      const bad = npx(fx.bad);
      assert.equal(bad.status, 1, bad.stderr + bad.stdout);
      assert.equal(JSON.parse(bad.stdout).verdict, "rejected");
      const inspected = spawnSync("npx", [
        "--no-install",
        "vouch",
        "inspect",
        join(fx.repo, ".vouch/events.jsonl"),
        "--json",
      ], { cwd: project, env, encoding: "utf8" });
      assert.equal(inspected.status, 0, inspected.stderr + inspected.stdout);
      assert.equal(JSON.parse(inspected.stdout).audit, "verified");

      writeFileSync(join(project, "consumer.mjs"), CONSUMER_JS);
      const js = (patch: string) =>
        JSON.parse(
          execFileSync("node", [join(project, "consumer.mjs"), patch, fx.repo], {
            cwd: project,
            env,
            encoding: "utf8",
          }),
        );
      assert.deepEqual(js(fx.fix), { verdict: "verified", version: 1, reasons: [] });
      assert.equal(js(fx.bad).verdict, "rejected");
    } finally {
      rmSync(fx.root, { recursive: true, force: true });
    }
  },
});
