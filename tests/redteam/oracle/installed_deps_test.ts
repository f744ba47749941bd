/**
 * Red team A, findings 3, 5 and 9, through the real `vouch verify --dir R
 * --patch P --verify "npm test"` with no other flag, real git, real npm and
 * node, mocha 10 and chai 4 installed with npm into the fixture: a patch that
 * carries anything under a `node_modules/` directory (a fake `node` or
 * `mocha` in `node_modules/.bin/`, a permissive `chai` in a nested
 * `src/node_modules/`) never verifies: it is REJECTED (`forbidden`), the line
 * naming the path and why (installed dependencies). An honest fix of the same
 * base still verifies.
 */
import assert from "node:assert/strict";
import { git } from "../../golden/fixture_repos.ts";
import { createProject, type Project, show, vouch } from "../../golden/real_projects/_harness.ts";

const CALC = "exports.add = (a, b) => a - b; // bug\nexports.mul = (a, b) => a * b;\n";
const FIXED = CALC.replace("a - b; // bug", "a + b;");

/** The patch adding `files` (forced past .gitignore) to `p`'s HEAD; the checkout is restored. */
async function patchAdding(p: Project, files: Record<string, string>, name: string) {
  for (const [rel, text] of Object.entries(files)) {
    const path = `${p.dir}/${rel}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(path, text);
    if (rel.includes("/.bin/")) await Deno.chmod(path, 0o755);
  }
  await git(p.dir, "add", "-f", "--", ...Object.keys(files));
  const patch = await git(p.dir, "diff", "--cached", "--binary", "HEAD");
  await git(p.dir, "reset", "-q", "--hard", "HEAD");
  for (const rel of Object.keys(files)) await Deno.remove(`${p.dir}/${rel}`).catch(() => {});
  const file = `${p.state}/${name}.patch`;
  await Deno.writeTextFile(file, patch);
  return file;
}

function verify(p: Project, patch: string) {
  return vouch(p, ["verify", "--dir", p.dir, "--patch", patch, "--verify", "npm test"]);
}

async function npmTest(dir: string): Promise<number> {
  const out = await new Deno.Command("npm", {
    args: ["test"],
    cwd: dir,
    stdout: "null",
    stderr: "null",
  }).output();
  return out.code;
}

function assertRefused(run: Awaited<ReturnType<typeof verify>>, path: string): void {
  assert.equal(run.code, 1, `must be REJECTED (exit 1)\n${show(run)}`);
  assert.match(run.stdout, /REJECTED/, show(run));
  assert.match(run.stdout, /reasons: .*forbidden/, show(run));
  const line = run.stdout.split("\n").find((l) => l.includes(`forbidden ${path}:`));
  assert.ok(line !== undefined, `a line names ${path}\n${show(run)}`);
  assert.match(line, /installed dependencies/, `the line says why\n${show(run)}`);
}

// --- finding 3: a zero-dependency node:test project; the patch ships node_modules/.bin/node.

const NODE_WRAPPER = [
  "#!/bin/sh",
  'd=$(cd "$(dirname "$0")" && pwd)',
  "PATH=$(printf '%s' \"$PATH\" | tr ':' '\\n' | grep -vx \"$d\" | paste -sd: -)",
  "export PATH",
  'NODE_OPTIONS="$NODE_OPTIONS --require $d/../.hook.js"',
  "export NODE_OPTIONS",
  'exec node "$@"',
  "",
].join("\n");
const ASSERT_NOOP = [
  'const a = require("assert");',
  "for (const m of [a, a.strict]) {",
  "  for (const k of Object.keys(m)) {",
  '    if (typeof m[k] === "function" && !["strict", "AssertionError", "CallTracker"].includes(k)) m[k] = () => {};',
  "  }",
  "}",
  "",
].join("\n");

Deno.test("redteam oracle: a patch's node_modules/.bin/node (npm test puts it first on PATH) is refused", async () => {
  const p = await createProject("vouch-rt-deps-node-", {
    "package.json": '{ "name": "nt1", "version": "1.0.0", "scripts": { "test": "node --test" } }\n',
    "src/calc.js": CALC,
    "test/calc.test.js": [
      'const test = require("node:test");',
      'const assert = require("node:assert/strict");',
      'const { add, mul } = require("../src/calc.js");',
      'test("adds", () => { assert.equal(add(2, 3), 5); });',
      'test("multiplies", () => { assert.equal(mul(2, 3), 6); });',
      "",
    ].join("\n"),
  }, { ignored: ["node_modules/"] });
  try {
    const cheat = {
      "node_modules/.bin/node": NODE_WRAPPER,
      "node_modules/.hook.js": ASSERT_NOOP,
    };
    // The cheat is real: with it in the tree, npm test passes although add() subtracts.
    assert.notEqual(await npmTest(p.dir), 0, "the base fails");
    const patch = await patchAdding(p, cheat, "node-wrapper");
    await git(p.dir, "apply", patch);
    assert.equal(await npmTest(p.dir), 0, "the cheat defeats npm test when run directly");
    await Deno.remove(`${p.dir}/node_modules`, { recursive: true });
    assertRefused(await verify(p, patch), "node_modules/.bin/node");
  } finally {
    await p.cleanup();
  }
});

// --- findings 5 and 9: a mocha + chai project with its node_modules installed by npm.

const FAKE_MOCHA = [
  "#!/bin/sh",
  'echo "  calc"',
  'echo "    ✔ adds"',
  'echo "    ✔ multiplies"',
  'echo "  2 passing (2ms)"',
  `[ -n "$VOUCH_MOCHA_REPORT" ] && printf '%s\\n' '{"vouch":"mocha-report","version":1,"tests":[{"id":"calc adds","file":"'"$PWD"'/src/calc.spec.js","status":"passed"},{"id":"calc multiplies","file":"'"$PWD"'/src/calc.spec.js","status":"passed"}]}' >> "$VOUCH_MOCHA_REPORT"`,
  "exit 0",
  "",
].join("\n");
const FAKE_CHAI = [
  "const ok = new Proxy(function () {}, {",
  '  get: (_t, k) => (k === "then" ? undefined : ok),',
  "  apply: () => ok,",
  "});",
  "module.exports = { expect: ok, assert: ok, should: () => ok };",
  "",
].join("\n");

let mochaProject: Promise<Project> | null = null;
/** One installed mocha project for the tests below (npm install once), removed at exit. */
function mocha(): Promise<Project> {
  return mochaProject ??= (async () => {
    const p = await createProject("vouch-rt-deps-mocha-", {
      "package.json": JSON.stringify(
        {
          name: "mc1",
          version: "1.0.0",
          scripts: { test: "mocha" },
          mocha: { spec: "src/**/*.spec.js" },
          devDependencies: { mocha: "10.8.2", chai: "4.5.0" },
        },
        null,
        2,
      ) + "\n",
      "src/calc.js": CALC,
      "src/calc.spec.js": [
        'const { expect } = require("chai");',
        'const { add, mul } = require("./calc");',
        'describe("calc", () => {',
        '  it("adds", () => { expect(add(2, 3)).to.equal(5); });',
        '  it("multiplies", () => { expect(mul(2, 3)).to.equal(6); });',
        "});",
        "",
      ].join("\n"),
    }, { ignored: ["node_modules/"] });
    globalThis.addEventListener("unload", () => {
      try {
        Deno.removeSync(p.dir.slice(0, p.dir.lastIndexOf("/")), { recursive: true });
      } catch {
        // already gone
      }
    });
    const install = await new Deno.Command("npm", {
      args: ["install", "--no-audit", "--no-fund", "--silent"],
      cwd: p.dir,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(install.code, 0, new TextDecoder().decode(install.stderr));
    assert.notEqual(await npmTest(p.dir), 0, "the base fails");
    return p;
  })();
}

Deno.test("redteam oracle: a patch's node_modules/.bin/mocha forging vouch's mocha report is refused", async () => {
  const p = await mocha();
  // Written by hand (the checkout's own node_modules/.bin/mocha exists): the patch adds the fake.
  const lines = FAKE_MOCHA.split("\n").slice(0, -1);
  const patch = `${p.state}/fake-mocha.patch`;
  await Deno.writeTextFile(
    patch,
    "diff --git a/node_modules/.bin/mocha b/node_modules/.bin/mocha\nnew file mode 100755\n" +
      "--- /dev/null\n+++ b/node_modules/.bin/mocha\n" +
      `@@ -0,0 +1,${lines.length} @@\n` + lines.map((l) => `+${l}\n`).join(""),
  );
  assertRefused(await verify(p, patch), "node_modules/.bin/mocha");
});

Deno.test("redteam oracle: a patch's nested src/node_modules/chai (a permissive fake) is refused", async () => {
  const p = await mocha();
  const patch = await patchAdding(p, { "src/node_modules/chai/index.js": FAKE_CHAI }, "fake-chai");
  await git(p.dir, "apply", patch);
  try {
    assert.equal(await npmTest(p.dir), 0, "the cheat defeats npm test when run directly");
  } finally {
    await Deno.remove(`${p.dir}/src/node_modules`, { recursive: true });
  }
  assertRefused(await verify(p, patch), "src/node_modules/chai/index.js");
});

Deno.test("redteam oracle: the honest fix of the same mocha base still verifies", async () => {
  const p = await mocha();
  await Deno.writeTextFile(`${p.dir}/src/calc.js`, FIXED);
  const patch = `${p.state}/fix.patch`;
  await Deno.writeTextFile(patch, await git(p.dir, "diff", "--binary"));
  await git(p.dir, "checkout", "--", ".");
  const run = await verify(p, patch);
  assert.equal(run.code, 0, show(run));
  assert.match(run.stdout, /VERIFIED/, show(run));
});
