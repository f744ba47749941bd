/**
 * The shape of a real project with REAL npm packages: mocha 10 and eslint 8
 * from the npm registry (pinned in `tests/fixtures/runners/eslint`, installed
 * once by `.ci/run`) copied into the fixture's own `node_modules`, and an
 * unmodified `npm test` like picomatch's (`eslint --cache --cache-location
 * node_modules/.cache/.eslintcache . && mocha`). Through `vouch verify` with
 * the defaults: an honest fix is VERIFIED and the user's node_modules stays
 * byte-identical. Graded per test (`failToPass` lists of mocha full titles)
 * with the spec and the TAP reporter, the fix verifies only because the
 * parsers name mocha's failing tests at the base and passing ones after; a
 * partial fix is REJECTED, never with "exited 1 but the output shows no
 * failing test".
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import {
  createProject,
  patchOf,
  type Project,
  sandboxes,
  show,
  verifyUnchanged,
} from "./_harness.ts";

const FILES: Record<string, string> = {
  "package.json": JSON.stringify(
    {
      name: "realshape",
      private: true,
      scripts: {
        lint: "eslint --cache --cache-location node_modules/.cache/.eslintcache .",
        mocha: "mocha --reporter spec",
        test: "npm run lint && npm run mocha",
      },
    },
    null,
    2,
  ),
  ".eslintrc.json": JSON.stringify({
    root: true,
    env: { node: true, es2020: true, mocha: true },
    extends: ["eslint:recommended"],
  }),
  "lib.js": [
    "exports.add = (a, b) => a - b;",
    "exports.double = (x) => x + 2;",
    "",
  ].join("\n"),
  "test/lib.test.js": [
    'const assert = require("assert");',
    'const { add, double } = require("../lib.js");',
    'describe("lib", function () {',
    '  it("adds", function () { assert.equal(add(2, 3), 5); });',
    '  describe("double", function () {',
    '    it("doubles three", function () { assert.equal(double(3), 6); });',
    "  });",
    "});",
    "",
  ].join("\n"),
};

const FIX = "exports.add = (a, b) => a + b;\nexports.double = (x) => x * 2;\n";
const PARTIAL = "exports.add = (a, b) => a + b;\nexports.double = (x) => x + 2;\n";

/** mocha 10.8.2 and eslint 8.57.1 from the npm registry, pinned by this dir's package-lock.json. */
const PINNED = fileURLToPath(new URL("../../fixtures/runners/eslint/", import.meta.url));

/**
 * The pinned packages, installed once (`.ci/run` runs this `npm ci`; a checkout
 * without them installs them here, from the registry, the first time).
 */
async function pinnedModules(): Promise<string> {
  const modules = `${PINNED}node_modules`;
  try {
    await Deno.stat(`${modules}/.bin/eslint`);
    await Deno.stat(`${modules}/.bin/mocha`);
    return modules;
  } catch {
    // not installed yet
  }
  const out = await new Deno.Command("npm", {
    args: ["ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"],
    cwd: PINNED,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`npm ci failed: ${new TextDecoder().decode(out.stderr)}`);
  return modules;
}

/**
 * The user's node_modules: a real directory (not a link) holding a copy of the
 * real installed packages, as `npm install` leaves it; eslint writes its cache into it.
 */
async function install(project: Project): Promise<void> {
  const out = await new Deno.Command("cp", {
    args: ["-R", await pinnedModules(), `${project.dir}/node_modules`],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`cp failed: ${new TextDecoder().decode(out.stderr)}`);
}

Deno.test("real npm packages: picomatch-shaped npm test (real eslint cache + real mocha) verifies; node_modules byte-identical", async () => {
  const project = await createProject("vouch-rp-realnpm-", FILES, { ignored: ["node_modules"] });
  try {
    await install(project);
    const fix = await patchOf(project, { "lib.js": FIX });
    const partial = await patchOf(project, { "lib.js": PARTIAL }, "partial");
    for (const sandbox of sandboxes()) {
      const ok = await verifyUnchanged(project, [
        "--patch",
        fix,
        "--verify",
        "npm test",
        "--sandbox",
        sandbox,
      ]);
      assert.equal(ok.json?.["verdict"], "verified", `${sandbox}: ${show(ok)}`);
    }
    // Per-test grading under the default sandbox only (the parsers do not depend on it).
    const sandbox = sandboxes().at(-1)!;
    {
      for (const reporter of ["spec", "tap"]) {
        const contract = `${project.state}/contract-${reporter}.json`;
        await Deno.writeTextFile(
          contract,
          JSON.stringify({
            description: "lint and the mocha suite pass",
            checks: [{
              name: "tests",
              run: `npm run lint && npx mocha --reporter ${reporter}`,
              tests: reporter === "tap" ? "tap" : "mocha",
              // Graded per test: only a parser that names mocha's tests can verify this.
              failToPass: ["lib adds", "lib double doubles three"],
              timeout: 120,
            }],
          }),
        );
        const good = await verifyUnchanged(project, [
          "--patch",
          fix,
          "--contract",
          contract,
          "--sandbox",
          sandbox,
        ]);
        assert.equal(good.json?.["verdict"], "verified", `${sandbox} ${reporter}: ${show(good)}`);
        // The partial fix once (spec): the parsers do not differ in what they reject.
        if (reporter !== "spec") continue;
        const bad = await verifyUnchanged(project, [
          "--patch",
          partial,
          "--contract",
          contract,
          "--sandbox",
          sandbox,
        ]);
        assert.equal(bad.json?.["verdict"], "rejected", `${sandbox} ${reporter}: ${show(bad)}`);
        const checks = bad.json?.["checks"] as { outputTail: string; detail?: string }[];
        const tail = checks[0]!.outputTail;
        assert.doesNotMatch(tail, /shows no failing test/, tail);
        // The why names the failing mocha test, parsed from the real output.
        assert.match(checks[0]!.detail ?? "", /lib double doubles three/, show(bad));
      }
    }
  } finally {
    await project.cleanup();
  }
});
