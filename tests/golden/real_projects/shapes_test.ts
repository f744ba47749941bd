/**
 * Real-project shapes through the real `vouch verify` with its defaults, each
 * reproducing a condition that broke real projects (issue #11 §2). Every
 * fixture is self-written; each case fails if its fix is removed:
 *
 * - a suite that refuses to run under a path with a dot-directory (express's
 *   `send`): fails if the default worktree root has a dot component again;
 * - an `npm test` whose lint step writes `node_modules/.cache/...` (picomatch's
 *   eslint cache): fails if dependencies are read-only (bwrap) or shared with
 *   the user's checkout (`--sandbox none` writes into the user's node_modules,
 *   which the byte-identity assertion catches);
 * - a symlinked `node_modules`: fails if it is not provided (`tool: not found`);
 * - an npm workspaces monorepo whose root `node_modules` links the workspace
 *   packages relatively: fails if the clean tree resolves them to the user's
 *   unpatched packages (a link to the user's node_modules does).
 */
import assert from "node:assert/strict";
import {
  createProject,
  patchOf,
  type Project,
  sandboxes,
  show,
  verifyUnchanged,
} from "./_harness.ts";

const BUGGY_ADD = "exports.add = (a, b) => a - b;\n";
const FIXED_ADD = "exports.add = (a, b) => a + b;\n";
const ADD_TEST = [
  'const { add } = require("./lib.js");',
  'if (add(2, 3) !== 5) { console.error("not ok 1 - add adds"); process.exit(1); }',
  'console.log("ok 1 - add adds");',
  "",
].join("\n");

async function withProject(
  make: () => Promise<Project>,
  fn: (p: Project) => Promise<void>,
): Promise<void> {
  const project = await make();
  try {
    await fn(project);
  } finally {
    await project.cleanup();
  }
}

Deno.test("real projects: a suite that refuses dot-directory paths verifies under the default worktree root", async () => {
  for (const sandbox of sandboxes()) {
    await withProject(
      () =>
        createProject("vouch-rp-dotdir-", {
          "package.json": JSON.stringify({ name: "dotdir", scripts: { test: "node test.js" } }),
          "lib.js": BUGGY_ADD,
          "test.js": [
            'const path = require("path");',
            "// Like express's `send`: a path with a dot-directory is refused (dotfiles: ignore).",
            'const dot = __dirname.split(path.sep).find((p) => p.startsWith(".") && p.length > 1);',
            "if (dot) {",
            "  console.error(`refusing ${__dirname}: it contains the dot-directory ${dot}`);",
            "  process.exit(1);",
            "}",
            ADD_TEST,
          ].join("\n"),
        }),
      async (project) => {
        const patch = await patchOf(project, { "lib.js": FIXED_ADD });
        const run = await verifyUnchanged(project, [
          "--patch",
          patch,
          "--verify",
          "npm test",
          "--sandbox",
          sandbox,
        ]);
        assert.equal(run.json?.["verdict"], "verified", `${sandbox}: ${show(run)}`);
        assert.equal(run.code, 0);
      },
    );
  }
});

/** A lint tool, installed in node_modules like eslint, that caches into node_modules/.cache. */
const FAKELINT = [
  "#!/usr/bin/env node",
  'const fs = require("fs");',
  "// eslint --cache --cache-location node_modules/.cache/.eslintcache does exactly this.",
  'fs.mkdirSync("node_modules/.cache", { recursive: true });',
  'fs.writeFileSync("node_modules/.cache/.fakelintcache", JSON.stringify({ linted: Date.now() }));',
  'console.log("lint ok");',
  "",
].join("\n");

Deno.test("real projects: an npm test whose lint step writes node_modules/.cache verifies and leaves the user's node_modules untouched", async () => {
  for (const sandbox of sandboxes()) {
    await withProject(
      () =>
        createProject(
          "vouch-rp-lintcache-",
          {
            "package.json": JSON.stringify({
              name: "lintcache",
              scripts: { lint: "fakelint", test: "npm run lint && node test.js" },
            }),
            "lib.js": BUGGY_ADD,
            "test.js": ADD_TEST,
          },
          {
            ignored: ["node_modules"],
            untracked: {
              "node_modules/fakelint/bin/fakelint.js": FAKELINT,
              "node_modules/fakelint/package.json": '{"name":"fakelint","bin":"bin/fakelint.js"}',
            },
          },
        ),
      async (project) => {
        await Deno.mkdir(`${project.dir}/node_modules/.bin`);
        await Deno.symlink(
          "../fakelint/bin/fakelint.js",
          `${project.dir}/node_modules/.bin/fakelint`,
        );
        const patch = await patchOf(project, { "lib.js": FIXED_ADD });
        const run = await verifyUnchanged(project, [
          "--patch",
          patch,
          "--verify",
          "npm test",
          "--sandbox",
          sandbox,
        ]);
        assert.equal(run.json?.["verdict"], "verified", `${sandbox}: ${show(run)}`);
        const cache = await Deno.lstat(`${project.dir}/node_modules/.cache`).catch(() => null);
        assert.equal(cache, null, "the lint cache was written into the private copy only");
      },
    );
  }
});

Deno.test("real projects: a symlinked node_modules is provided to the checks", async () => {
  for (const sandbox of sandboxes()) {
    await withProject(
      () =>
        createProject(
          "vouch-rp-symlinked-",
          {
            "package.json": JSON.stringify({
              name: "symlinked",
              scripts: { test: "mytool && node test.js" },
            }),
            "lib.js": BUGGY_ADD,
            "test.js": 'require("mylib");\n' + ADD_TEST,
          },
          { ignored: ["node_modules"] },
        ),
      async (project) => {
        // The dependencies live next to the checkout; node_modules is a symlink to them.
        const shared = `${project.state}/shared/node_modules`;
        await Deno.mkdir(`${shared}/mylib`, { recursive: true });
        await Deno.mkdir(`${shared}/.bin`);
        await Deno.writeTextFile(`${shared}/mylib/index.js`, "module.exports = 1;\n");
        await Deno.writeTextFile(`${shared}/mylib/tool.js`, '#!/bin/sh\necho "mytool ok"\n');
        await Deno.chmod(`${shared}/mylib/tool.js`, 0o755);
        await Deno.symlink("../mylib/tool.js", `${shared}/.bin/mytool`);
        await Deno.symlink("../state/shared/node_modules", `${project.dir}/node_modules`);
        const patch = await patchOf(project, { "lib.js": FIXED_ADD });
        const run = await verifyUnchanged(project, [
          "--patch",
          patch,
          "--verify",
          "npm test",
          "--sandbox",
          sandbox,
        ]);
        assert.equal(run.json?.["verdict"], "verified", `${sandbox}: ${show(run)}`);
      },
    );
  }
});

Deno.test("real projects: an npm workspaces monorepo is verified against the PATCHED workspace packages", async () => {
  for (const sandbox of sandboxes()) {
    await withProject(
      () =>
        createProject(
          "vouch-rp-workspaces-",
          {
            "package.json": JSON.stringify({
              name: "mono",
              private: true,
              workspaces: ["packages/*"],
              scripts: { test: "npm test --workspaces --if-present" },
            }),
            "packages/mathlib/package.json": JSON.stringify({ name: "mathlib", version: "1.0.0" }),
            "packages/mathlib/index.js": BUGGY_ADD,
            "packages/app/package.json": JSON.stringify({
              name: "app",
              version: "1.0.0",
              dependencies: { mathlib: "1.0.0" },
              scripts: { test: "node test.js" },
            }),
            "packages/app/test.js": ADD_TEST.replace('"./lib.js"', '"mathlib"'),
          },
          { ignored: ["node_modules", "package-lock.json"] },
        ),
      async (project) => {
        // Real npm links the workspace packages relatively into the root node_modules.
        const npm = await new Deno.Command("npm", {
          args: ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts"],
          cwd: project.dir,
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).output();
        assert.ok(npm.success, new TextDecoder().decode(npm.stderr));
        assert.equal(
          await Deno.readLink(`${project.dir}/node_modules/mathlib`),
          "../packages/mathlib",
        );
        const patch = await patchOf(project, { "packages/mathlib/index.js": FIXED_ADD });
        const run = await verifyUnchanged(project, [
          "--patch",
          patch,
          "--verify",
          "npm test",
          "--sandbox",
          sandbox,
        ]);
        assert.equal(run.json?.["verdict"], "verified", `${sandbox}: ${show(run)}`);
      },
    );
  }
});
