/**
 * Embedding from a Deno project outside the checkout: the consumer's deno.json
 * `links` the vouch checkout, and `jsr:@vouch/vouch` (and its sub-paths) then
 * resolve through vouch's OWN deno.json (`exports` + `imports`), so vouch's
 * bare imports (zod, canonicalize, ...) resolve without the consumer declaring
 * them. Nothing is fetched: linked packages resolve locally. The link carries
 * vouch's runtime imports only (the consumer's lock names them and no build,
 * bench or test tool).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, RUNTIME_DEPENDENCIES } from "../../tools/build_npm.ts";

/** npm packages only vouch's tests, benches and build use (never a link's dependency). */
const BUILD_AND_TEST_TOOLS = [
  "fast-check",
  "assemblyscript",
  "binaryen",
  "typescript",
  "ts-json-schema-generator",
  "ajv",
  "diff",
  "parse-diff",
  "gitdiff-parser",
  "picomatch",
  "minimatch",
];
import { fixtureRepo } from "./_fixture.ts";

const SCRIPT = `import { contractFromCommand, verifyPatchInRepo } from "jsr:@vouch/vouch";
import { initialKernelState } from "jsr:@vouch/vouch/kernel";
const [patch, dir] = Deno.args;
const r = await verifyPatchInRepo({
  dir: dir!,
  patch: await Deno.readFile(patch!),
  contract: contractFromCommand("sh check.sh", 60_000),
  sandbox: "none",
});
console.log(JSON.stringify({ verdict: r.verdict, v: initialKernelState().v }));
`;

Deno.test("a Deno project outside the checkout imports vouch through its own import map (links)", () => {
  const fx = fixtureRepo();
  try {
    const project = join(fx.root, "deno-consumer");
    mkdirSync(project);
    writeFileSync(join(project, "deno.json"), JSON.stringify({ links: [ROOT] }));
    writeFileSync(join(project, "main.ts"), SCRIPT);
    const run = (patch: string) =>
      spawnSync(Deno.execPath(), ["run", "-A", "--no-prompt", "main.ts", patch, fx.repo], {
        cwd: project,
        env: { ...Deno.env.toObject(), XDG_STATE_HOME: join(fx.root, "state") },
        encoding: "utf8",
      });
    const ok = run(fx.fix);
    assert.equal(ok.status, 0, ok.stderr);
    assert.deepEqual(JSON.parse(ok.stdout), { verdict: "verified", v: 1 });
    const bad = run(fx.bad);
    assert.equal(bad.status, 0, bad.stderr);
    assert.equal(JSON.parse(bad.stdout).verdict, "rejected");
    // The CLI is an export too: `deno run jsr:@vouch/vouch/cli` (no permission needed for this).
    const cli = spawnSync(Deno.execPath(), [
      "run",
      "--no-prompt",
      "jsr:@vouch/vouch/cli",
      "--version",
    ], {
      cwd: project,
      encoding: "utf8",
    });
    assert.equal(cli.status, 0, cli.stderr);
    assert.match(cli.stdout, /^vouch \d+\.\d+\.\d+/);
    // The link brings vouch's runtime imports only: no build, bench or test tool (those are the
    // tests/, bench/ and tools/ workspace members' imports).
    const lock = JSON.parse(readFileSync(join(project, "deno.lock"), "utf8"));
    const linked = Object.values(lock.workspace?.links ?? {}) as { dependencies?: string[] }[];
    const deps = linked.flatMap((l) => l.dependencies ?? []).map((d) =>
      d.replace(/^npm:/, "").replace(/@[^@]*$/, "")
    ).sort();
    assert.deepEqual(deps, [...RUNTIME_DEPENDENCIES].sort());
    const npmPackages = Object.keys(lock.npm ?? {}).map((k) => k.replace(/@[^@]*$/, ""));
    for (const tool of BUILD_AND_TEST_TOOLS) {
      assert.ok(!npmPackages.includes(tool), `the link pulled ${tool}`);
    }
  } finally {
    rmSync(fx.root, { recursive: true, force: true });
  }
});
