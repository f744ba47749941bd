/**
 * `vouch evaluate` under Node, from the installed npm package: the CLI and the
 * library's `evaluateBundle` give exactly the VerificationResult Deno
 * gives on every red-team bundle fixture (honest and hostile), the child runs
 * under Node's permission model, and a probe started exactly as the evaluation
 * child is (through `evaluateBundle` with `childEntry`) cannot read a
 * file beside the bundle, list a directory, write, spawn or start a worker.
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { evaluateBundle } from "../../adapters/bundle/isolated.ts";
import type { VerificationResult } from "../../kernel/bundle/types.ts";
import { BUNDLE_FIXTURES, evaluateArgs, materializeFixture } from "../redteam/bundles/fixtures.ts";
import { installTarball } from "./_fixture.ts";

const hasNpm = spawnSync("npm", ["--version"]).status === 0;
if (!hasNpm) console.log("evaluate_node_test: npm not on PATH; the Node evaluate tests skip");

let consumer: string | null = null;

/** One Node project with the tarball installed, for both tests of this file (removed at exit). */
function installedConsumer(): string {
  if (consumer === null) {
    const root = mkdtempSync(join(tmpdir(), "vouch-evaluate-node-consumer-"));
    globalThis.addEventListener("unload", () => rmSync(root, { recursive: true, force: true }));
    consumer = installTarball(join(root, "consumer"));
  }
  return consumer;
}

/** Evaluates every fixture given as argv[2] (JSON: name -> paths) through the package's facade. */
const EVALUATE_ALL_JS = `import { evaluateBundle } from "@vouch/vouch";
const fixtures = JSON.parse(process.argv[2]);
const out = {};
for (const [name, paths] of Object.entries(fixtures)) out[name] = await evaluateBundle(paths);
console.log(JSON.stringify(out));
`;

/**
 * Started by evaluateBundle as the evaluation child: it tries what an
 * exploited evaluator would, and reports through a schema-valid
 * VerificationResult (the parent refuses anything else).
 */
const PROBE_CHILD_JS = `import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { Worker } from "node:worker_threads";
import { parseArgs } from "node:util";
import { unjudgeableResult } from "@vouch/vouch/kernel";
const { values } = parseArgs({ options: { bundle: { type: "string" }, "work-unit": { type: "string" }, plan: { type: "string" } } });
function attempt(fn) {
  try { fn(); return "allowed"; } catch (e) { return e.code ?? e.name; }
}
const report = {
  readPlan: attempt(() => readFileSync(values.plan)),
  readBundleManifest: attempt(() => readFileSync(values.bundle + "/result-manifest.json")),
  readBesideBundle: attempt(() => readFileSync(values.bundle + "/../outside/secret.txt")),
  readEtcPasswd: attempt(() => readFileSync("/etc/passwd")),
  listBundleParent: attempt(() => readdirSync(values.bundle + "/..")),
  writeBundle: attempt(() => writeFileSync(values.bundle + "/written-by-probe", "x")),
  spawn: attempt(() => execFileSync("/bin/true")),
  worker: attempt(() => new Worker("1", { eval: true })),
  env: Object.keys(process.env).sort().join(","),
  fsReadPermission: process.permission?.has("fs.read", values.bundle + "/../outside/secret.txt"),
};
console.log(JSON.stringify(unjudgeableResult("evaluator_error", "probe:" + JSON.stringify(report))));
`;

const PROBE_RUNNER_JS = `import { evaluateBundle } from "@vouch/vouch";
import { pathToFileURL } from "node:url";
const [probe, paths] = process.argv.slice(2);
const result = await evaluateBundle(JSON.parse(paths), { childEntry: pathToFileURL(probe) });
console.log(result.findings[0].summary);
`;

Deno.test({
  name: "npm package under Node: vouch evaluate and evaluateBundle agree with Deno",
  ignore: !hasNpm,
  fn: async () => {
    const root = mkdtempSync(join(tmpdir(), "vouch-evaluate-node-"));
    try {
      const project = installedConsumer();
      const fixtures: Record<
        string,
        { bundleDir: string; workUnitPath: string; planPath: string }
      > = {};
      const underDeno: Record<string, VerificationResult> = {};
      for (const fixture of BUNDLE_FIXTURES) {
        const paths = await materializeFixture(fixture, join(root, fixture.name));
        fixtures[fixture.name] = paths;
        underDeno[fixture.name] = await evaluateBundle(paths);
      }
      writeFileSync(join(project, "evaluate_all.mjs"), EVALUATE_ALL_JS);
      const underNode: Record<string, VerificationResult> = JSON.parse(
        execFileSync("node", ["evaluate_all.mjs", JSON.stringify(fixtures)], {
          cwd: project,
          encoding: "utf8",
        }),
      );
      assert.equal(Object.keys(underNode).length, BUNDLE_FIXTURES.length);
      for (const fixture of BUNDLE_FIXTURES) {
        const result = underNode[fixture.name]!;
        assert.deepEqual(result, underDeno[fixture.name], fixture.name);
        const want = fixture.isolated ?? fixture;
        assert.equal(result.decision_support.recommendation, want.recommendation, fixture.name);
        assert.deepEqual(
          result.decision_support.reason_codes.toSorted(),
          [...want.reasons].sort(),
          fixture.name,
        );
      }
      // The CLI from the package's bin, honest and hostile bundles, --json and exit codes.
      for (const name of ["good", "symlinked-artifact", "forbidden-path"]) {
        const p = fixtures[name]!;
        const cli = spawnSync("node", [
          join(project, "node_modules/.bin/vouch"),
          ...evaluateArgs(p),
          "--json",
        ], { cwd: project, encoding: "utf8" });
        assert.equal(cli.status, name === "good" ? 0 : 1, cli.stderr);
        assert.deepEqual(JSON.parse(cli.stdout), underDeno[name], name);
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
});

Deno.test({
  name: "npm package under Node: the evaluation child cannot read beside the bundle",
  ignore: !hasNpm,
  fn: async () => {
    const root = mkdtempSync(join(tmpdir(), "vouch-evaluate-node-probe-"));
    try {
      const project = installedConsumer();
      const good = BUNDLE_FIXTURES.find((f) => f.name === "good")!;
      const paths = await materializeFixture(good, join(root, "fx"));
      writeFileSync(join(root, "fx/outside/secret.txt"), "not for the evaluator\n");
      writeFileSync(join(project, "probe_child.mjs"), PROBE_CHILD_JS);
      writeFileSync(join(project, "probe_runner.mjs"), PROBE_RUNNER_JS);
      const summary = execFileSync(
        "node",
        ["probe_runner.mjs", join(project, "probe_child.mjs"), JSON.stringify(paths)],
        { cwd: project, encoding: "utf8", env: { ...Deno.env.toObject(), PROBE_MARK: "1" } },
      ).trim();
      assert.match(summary, /^probe:/, summary);
      assert.deepEqual(JSON.parse(summary.slice("probe:".length)), {
        readPlan: "allowed",
        readBundleManifest: "allowed",
        readBesideBundle: "ERR_ACCESS_DENIED",
        readEtcPasswd: "ERR_ACCESS_DENIED",
        listBundleParent: "ERR_ACCESS_DENIED",
        writeBundle: "ERR_ACCESS_DENIED",
        spawn: "ERR_ACCESS_DENIED",
        worker: "ERR_ACCESS_DENIED",
        // the parent's environment (PROBE_MARK, PATH, HOME, ...) never reaches the child
        env: "NO_COLOR",
        fsReadPermission: false,
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
});
