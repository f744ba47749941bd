/**
 * `tools/build_npm.ts` installs its tools (typescript, esbuild, publint, ...)
 * into `dist/npm-build/` once. A build interrupted during that `npm install`
 * (Ctrl-C, a killed test run, a registry error) must not leave a scratch dir
 * the next build takes as installed: seen when a killed `deno task test` left
 * `package.json` written and `node_modules` half full, and every npm test of
 * the next run failed with "Cannot find module .../typescript/bin/tsc".
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildToolsMissing } from "../../tools/build_npm.ts";

Deno.test("build tools: an install that did not finish is installed again", () => {
  const dir = mkdtempSync(join(tmpdir(), "vouch-build-tools-"));
  try {
    const pkg = JSON.stringify({ name: "vouch-npm-build", devDependencies: { typescript: "5" } });
    assert.equal(buildToolsMissing(dir, pkg), true, "a fresh dir needs the install");
    // What an interrupted install leaves: the manifest, part of node_modules, no marker.
    writeFileSync(join(dir, "package.json"), pkg);
    mkdirSync(join(dir, "node_modules", "typescript"), { recursive: true });
    assert.equal(buildToolsMissing(dir, pkg), true, "half an install is not an install");
    writeFileSync(join(dir, "installed.json"), pkg);
    assert.equal(buildToolsMissing(dir, pkg), false, "a finished install is reused");
    const newer = pkg.replace('"5"', '"6"');
    assert.equal(buildToolsMissing(dir, newer), true, "other pinned tools install again");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
