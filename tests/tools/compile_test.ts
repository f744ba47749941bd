/**
 * `deno task compile`: its own output path (never the SEA's `dist/vouch`), one
 * line saying why it cannot compile (no `DENORT_BIN` and Deno's servers
 * unreachable, or a `DENORT_BIN` that is no executable), and a binary that
 * carries only what the CLI runs. The last is measured by `deno compile`
 * itself: its summary lists every embedded npm package. No real `denort` is
 * available offline, so the Deno binary stands in as `DENORT_BIN`: the embedded
 * graph is the same whatever the runtime (that stand-in output cannot run).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { COMPILE_OUTPUT, compileBlocker } from "../../tools/compile.ts";
import { ROOT } from "../../tools/build_npm.ts";

Deno.test("compile: its own output path, and one line when it cannot compile", () => {
  assert.equal(COMPILE_OUTPUT, join(ROOT, "dist/vouch-deno"));
  assert.notEqual(COMPILE_OUTPUT, join(ROOT, "dist/vouch"));
  const offline = compileBlocker({}, false)!;
  assert.match(offline, /^Cannot compile: .*denort.*DENORT_BIN=.*deno task sea/);
  assert.ok(!offline.includes("\n"));
  assert.equal(compileBlocker({}, true), null);
  assert.match(compileBlocker({ DENORT_BIN: "/nonexistent/denort" }, true)!, /not an executable/);
  assert.equal(compileBlocker({ DENORT_BIN: realpathSync(Deno.execPath()) }, false), null);

  const r = spawnSync(Deno.execPath(), ["task", "-q", "compile"], {
    cwd: ROOT,
    env: { ...Deno.env.toObject(), DENORT_BIN: "/nonexistent/denort", NO_COLOR: "1" },
    encoding: "utf8",
  });
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.equal(
    r.stderr,
    "deno task compile: Cannot compile: DENORT_BIN=/nonexistent/denort is not an executable file\n",
  );
});

/** npm packages the CLI never imports at run time (build, bench and test tools). */
const NOT_RUNTIME = [
  "binaryen",
  "assemblyscript",
  "typescript",
  "ts-json-schema-generator",
  "fast-check",
  "ajv",
  "diff",
  "parse-diff",
  "gitdiff-parser",
  "picomatch",
  "minimatch",
];

Deno.test("compile: the binary embeds the CLI's runtime packages, no build or test tool", () => {
  const dir = mkdtempSync(join(tmpdir(), "vouch-compile-"));
  try {
    const out = join(dir, "vouch");
    // --no-check: the CLI's type check is deno check --doc .'s (a phase of deno task test), and
    // the embedded graph is the same without it (~10 of this test's ~17 CPU-s).
    const r = spawnSync(Deno.execPath(), ["task", "-q", "compile", "--no-check", "--output", out], {
      cwd: ROOT,
      env: { ...Deno.env.toObject(), DENORT_BIN: realpathSync(Deno.execPath()), NO_COLOR: "1" },
      encoding: "utf8",
    });
    assert.equal(r.status, 0, r.stderr);
    assert.ok(statSync(out).isFile());
    const summary = r.stdout + r.stderr;
    // what the CLI imports is there (zod, the queue client) ...
    assert.ok(
      summary.includes("── zod/") && summary.includes("── bullmq/"),
      summary.slice(0, 3000),
    );
    // ... and nothing only the tests, benches or the build use
    for (const tool of NOT_RUNTIME) {
      assert.ok(!summary.includes(`── ${tool}/`), `the binary embeds ${tool}`);
    }
    const files = /Files: ([\d.]+)MB/.exec(summary);
    assert.ok(files !== null, summary.slice(-500));
    console.log(`compile: embedded files ${files[1]} MB`);
    assert.ok(Number(files[1]) < 40, `embedded ${files[1]} MB`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
