/**
 * JSR readiness: `deno task doc` builds the HTML reference of every entry point
 * (`deno doc --html` into `dist/doc/`), and the package's config names its
 * license and exports the CLI (`deno run jsr:@vouch/vouch/cli`, exercised in
 * tests/npm/deno_link_test.ts).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../../tools/build_npm.ts";

Deno.test("deno task doc builds the HTML reference of every entry point", () => {
  const r = spawnSync(Deno.execPath(), ["task", "-q", "doc"], { cwd: ROOT, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const index = readFileSync(join(ROOT, "dist/doc/index.html"), "utf8");
  assert.match(index, /verifyPatchInRepo/);
  const config = JSON.parse(readFileSync(join(ROOT, "deno.json"), "utf8"));
  for (const key of Object.keys(config.exports)) {
    if (key === ".") continue;
    assert.ok(existsSync(join(ROOT, "dist/doc", key.slice(2), "index.html")), `doc for ${key}`);
  }
  assert.equal(config.license, "MIT");
  assert.ok(existsSync(join(ROOT, "LICENSE")));
  assert.equal(config.exports["./cli"], "./cli/main.ts");
});
