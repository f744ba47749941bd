/**
 * The npm package as its consumers meet it, from the packed tarball installed
 * with `npm install --engine-strict` into one fresh Node project:
 *
 * - publint (`--strict`) and arethetypeswrong (every resolution mode,
 *   node10 included) find no problem;
 * - a CommonJS and an ESM Node project load every entry point (`require` and
 *   `import`), verify a fix and reject a break on a real repository, and one
 *   `VouchError` class answers `instanceof` for errors from any entry point and
 *   either module format;
 * - TypeScript consumers with `strict` and without `skipLibCheck` compile
 *   against the shipped types under `moduleResolution` node16, nodenext (ESM
 *   and CommonJS files) and bundler, and a wrong call is a type error
 *   (`skipDefaultLibCheck`: TypeScript's own lib files are not checked);
 * - the optional queue client is absent and `vouch worker --queue` says so in
 *   one line naming the package;
 * - import cost, measured as CPU time of whole Node processes in one run
 *   (ratios to a bare Node start, so a busy machine does not decide it).
 *
 * publint, arethetypeswrong and TypeScript are pinned in tools/build_npm.ts
 * (BUILD_TOOLS) and installed into the build's scratch dir.
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { NPM_BUILD_DIR, NPM_ENTRIES } from "../../tools/build_npm.ts";
import { fixtureRepo, installTarball, npmTarball } from "./_fixture.ts";

const hasNpm = spawnSync("npm", ["--version"]).status === 0;
if (!hasNpm) console.log("consumers_test: npm not on PATH; the npm consumer tests skip");

const tool = (path: string) => join(NPM_BUILD_DIR, "node_modules", path);

interface Setup {
  readonly root: string;
  readonly project: string;
  readonly repo: string;
  readonly fix: string;
  readonly bad: string;
}
let setup: Setup | null = null;
/** One installed project (and fixture repository) for all tests of this file. */
function project(): Setup {
  if (setup !== null) return setup;
  const fx = fixtureRepo();
  const dir = installTarball(join(fx.root, "project"));
  setup = { root: fx.root, project: dir, repo: fx.repo, fix: fx.fix, bad: fx.bad };
  return setup;
}

function sh(cmd: string, args: string[], cwd: string): string {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8" });
  assert.equal(r.status, 0, `${cmd} ${args.join(" ")}\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

Deno.test({
  name: "npm consumers: publint --strict and arethetypeswrong (all resolutions) find no problem",
  ignore: !hasNpm,
  fn: () => {
    const tgz = npmTarball();
    const lint = sh("node", [tool("publint/src/cli.js"), "--strict", join(tgz, "../npm")], "/");
    assert.match(lint, /All good!/);
    const attw = sh("node", [tool("@arethetypeswrong/cli/dist/index.js"), tgz], "/");
    assert.match(attw, /No problems found/);
    for (const entry of NPM_ENTRIES) {
      const name = entry.key === "." ? '"@vouch/vouch"' : `"@vouch/vouch/${entry.key.slice(2)}"`;
      assert.ok(attw.includes(name), `attw checked ${name}`);
    }
    assert.doesNotMatch(attw, /💀|❌|🐛|❗️|🥴|🎭|⚠️/u);
  },
});

const CJS = `const assert = require("node:assert/strict");
const { readFileSync } = require("node:fs");
const vouch = require("@vouch/vouch");
const kernel = require("@vouch/vouch/kernel");
for (const sub of ["backends", "log", "batch", "wasm"]) assert.equal(typeof require("@vouch/vouch/" + sub), "object");
assert.equal(typeof require("@vouch/vouch/batch").runBatch, "function");
assert.match(require("@vouch/vouch/package.json").version, /^\\d+\\.\\d+\\.\\d+/);
const [patchFix, patchBad, dir] = process.argv.slice(2);
(async () => {
  const contract = vouch.contractFromCommand("sh check.sh", 60_000);
  const verify = (p) => vouch.verifyPatchInRepo({ dir, patch: new Uint8Array(readFileSync(p)), contract, sandbox: "none" });
  const ok = await verify(patchFix);
  const bad = await verify(patchBad);
  let parseError;
  try { kernel.parseGitDiff(new TextEncoder().encode("diff --git a/x\\n@@ nonsense")); } catch (e) { parseError = e; }
  const esm = await import("@vouch/vouch");
  console.log(JSON.stringify({
    ok: ok.verdict, bad: bad.verdict,
    kernelErrorIsVouchError: parseError instanceof vouch.VouchError && vouch.isVouchError(parseError),
    esmErrorIsCjsVouchError: new esm.VouchError("x_y", "m") instanceof vouch.VouchError,
    code: parseError?.code ?? null,
  }));
})().catch((e) => { console.error(e); process.exit(1); });
`;

const ESM = `import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import * as vouch from "@vouch/vouch";
import * as kernel from "@vouch/vouch/kernel";
import * as log from "@vouch/vouch/log";
import * as backends from "@vouch/vouch/backends";
import * as wasm from "@vouch/vouch/wasm";
import * as batch from "@vouch/vouch/batch";
for (const m of [log, backends, wasm, batch]) assert.ok(Object.keys(m).length > 0);
assert.equal(typeof batch.mergeReports, "function");
const [patchFix, patchBad, dir] = process.argv.slice(2);
const contract = vouch.contractFromCommand("sh check.sh", 60_000);
const verify = (p) => vouch.verifyPatchInRepo({ dir, patch: new Uint8Array(readFileSync(p)), contract, sandbox: "none" });
const ok = await verify(patchFix);
const bad = await verify(patchBad);
let parseError;
try { kernel.parseGitDiff(new TextEncoder().encode("diff --git a/x\\n@@ nonsense")); } catch (e) { parseError = e; }
const cjs = createRequire(import.meta.url)("@vouch/vouch");
console.log(JSON.stringify({
  ok: ok.verdict, bad: bad.verdict,
  kernelErrorIsVouchError: parseError instanceof vouch.VouchError && kernel.VouchError === vouch.VouchError,
  cjsErrorIsEsmVouchError: new cjs.VouchError("x_y", "m") instanceof vouch.VouchError,
  code: parseError?.code ?? null,
}));
`;

Deno.test({
  name: "npm consumers: a CommonJS and an ESM Node project verify through require and import",
  ignore: !hasNpm,
  fn: () => {
    const s = project();
    const run = (kind: "cjs" | "esm", code: string) => {
      const dir = join(s.project, kind);
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, "package.json"),
        JSON.stringify({ private: true, type: kind === "cjs" ? "commonjs" : "module" }),
      );
      writeFileSync(join(dir, "main.js"), code);
      const env = { ...Deno.env.toObject(), XDG_STATE_HOME: join(s.root, "state") };
      const r = spawnSync("node", ["main.js", s.fix, s.bad, s.repo], {
        cwd: dir,
        env,
        encoding: "utf8",
      });
      assert.equal(r.status, 0, r.stderr + r.stdout);
      return JSON.parse(r.stdout);
    };
    const cjs = run("cjs", CJS);
    assert.equal(cjs.ok, "verified");
    assert.equal(cjs.bad, "rejected");
    assert.equal(cjs.kernelErrorIsVouchError, true);
    assert.equal(cjs.esmErrorIsCjsVouchError, true);
    assert.match(cjs.code, /^[a-z_]+$/);
    const esm = run("esm", ESM);
    assert.equal(esm.ok, "verified");
    assert.equal(esm.bad, "rejected");
    assert.equal(esm.kernelErrorIsVouchError, true);
    assert.equal(esm.cjsErrorIsEsmVouchError, true);
    assert.equal(esm.code, cjs.code);
  },
});

/** A consumer; `IMPORTS` is replaced by the module syntax of the file's format. */
const TS_BODY = `
const outcome: Promise<VerifyPatchOutcome> = verifyPatchInRepo({
  dir: "/repo",
  patch: new Uint8Array(),
  contract: contractFromCommand("npm test", 60_000),
  sandbox: "none",
});
void outcome;
const version: 1 = initialKernelState().v;
void version;
export function wrongUse(): Promise<unknown> {
  // @ts-expect-error dir must be a string, and patch and contract are required
  return verifyPatchInRepo({ dir: 1 });
}
export const isError: (e: unknown) => boolean = (e) => e instanceof VouchError;
`;
const TS_IMPORTS =
  `import { contractFromCommand, verifyPatchInRepo, VouchError, type VerifyPatchOutcome } from "@vouch/vouch";
import { initialKernelState } from "@vouch/vouch/kernel";
import type { LogVerification } from "@vouch/vouch/log";
import type { AgentTask } from "@vouch/vouch/backends";
import { createWasmDiffScanner } from "@vouch/vouch/wasm";
export type Used = [LogVerification, AgentTask, typeof createWasmDiffScanner];
`;

Deno.test({
  name:
    "npm consumers: tsc strict (no skipLibCheck) with moduleResolution node16, nodenext, bundler",
  ignore: !hasNpm,
  fn: () => {
    const s = project();
    const tsc = tool("typescript/bin/tsc");
    const cases = [
      { name: "node16", module: "Node16", resolution: "Node16", files: ["esm.mts", "cjs.cts"] },
      {
        name: "nodenext",
        module: "NodeNext",
        resolution: "NodeNext",
        files: ["esm.mts", "cjs.cts"],
      },
      { name: "bundler", module: "ESNext", resolution: "Bundler", files: ["app.ts"] },
    ];
    for (const c of cases) {
      const dir = join(s.project, `ts-${c.name}`);
      mkdirSync(dir, { recursive: true });
      for (const file of c.files) writeFileSync(join(dir, file), TS_IMPORTS + TS_BODY);
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            target: "ES2022",
            module: c.module,
            moduleResolution: c.resolution,
            strict: true,
            noEmit: true,
            // TypeScript's own lib.*.d.ts are not the package's: the same in every program, they
            // took ~6 CPU-s of each compile's ~17. The shipped declarations, and those of zod
            // and @types/node they use, are still checked (no skipLibCheck).
            skipDefaultLibCheck: true,
            types: ["node"],
            typeRoots: [tool("@types")],
          },
          files: c.files,
        }),
      );
      const r = spawnSync("node", [tsc, "-p", "tsconfig.json"], { cwd: dir, encoding: "utf8" });
      assert.equal(r.status, 0, `${c.name}: ${r.stdout}${r.stderr}`);
    }
  },
});

Deno.test({
  name: "npm consumers: the queue client is optional and its absence is one clear line",
  ignore: !hasNpm,
  fn: () => {
    const s = project();
    const pkg = JSON.parse(
      readFileSync(join(s.project, "node_modules/@vouch/vouch/package.json"), "utf8"),
    );
    assert.equal(pkg.peerDependenciesMeta.bullmq.optional, true);
    assert.equal(pkg.dependencies.bullmq, undefined);
    assert.ok(!existsSync(join(s.project, "node_modules/bullmq")), "npm left bullmq out");
    assert.ok(!existsSync(join(s.project, "node_modules/ioredis")), "and its ioredis");
    const tasks = join(s.root, "tasks.jsonl");
    writeFileSync(
      tasks,
      JSON.stringify({ id: "t1", repo: s.repo, base: "HEAD", verify: { command: "true" } }) + "\n",
    );
    const args = ["worker", "--queue", "redis://127.0.0.1:9", "--tasks", tasks];
    const r = spawnSync("npx", ["--no-install", "vouch", ...args], {
      cwd: s.project,
      env: { ...Deno.env.toObject(), XDG_STATE_HOME: join(s.root, "state") },
      encoding: "utf8",
    });
    assert.equal(r.status, 2, r.stderr + r.stdout);
    // one line saying what is missing and how to add it (then the usage hint)
    const [first, ...rest] = r.stderr.trim().split("\n");
    assert.match(
      first!,
      /^vouch worker: Cannot use --queue: .*optional npm package bullmq.*npm install bullmq/,
    );
    assert.deepEqual(rest, ["Run `vouch worker --help` for usage."]);
  },
});

/** Median CPU milliseconds (user + system) of whole `node` processes running `code`. */
function cpuMs(cwd: string, code: string, runs: number): number {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const out = execFileSync("node", [
      "--input-type=module",
      "-e",
      `${code};const u = process.cpuUsage(); console.log((u.user + u.system) / 1000);`,
    ], { cwd, encoding: "utf8" });
    samples.push(Number(out.trim()));
  }
  samples.sort((a, b) => a - b);
  return samples[samples.length >> 1]!;
}

Deno.test({
  name: "npm consumers: importing vouch costs a bounded multiple of a bare Node start",
  ignore: !hasNpm,
  fn: () => {
    const s = project();
    const runs = 7;
    // Interleaved in one run, CPU time (not wall time: the machine may be busy).
    const bare = cpuMs(s.project, "", runs);
    const root = cpuMs(s.project, 'await import("@vouch/vouch")', runs);
    const kernel = cpuMs(s.project, 'await import("@vouch/vouch/kernel")', runs);
    const rootRatio = (root - bare) / bare;
    const kernelRatio = (kernel - bare) / bare;
    console.log(
      `import cost (median CPU of ${runs} processes): bare node ${bare.toFixed(0)} ms; ` +
        `"@vouch/vouch" +${(root - bare).toFixed(0)} ms (${rootRatio.toFixed(2)} of bare); ` +
        `"@vouch/vouch/kernel" +${(kernel - bare).toFixed(0)} ms (${
          kernelRatio.toFixed(2)
        } of bare)`,
    );
    // The budgets are 150 ms and 40 ms over a bare start of about 40 ms on an idle machine:
    // 3.75 and 1.0 bare starts.
    assert.ok(
      rootRatio <= 3.75,
      `"@vouch/vouch" adds ${rootRatio.toFixed(2)} bare starts (> 3.75)`,
    );
    assert.ok(kernelRatio <= 1, `"@vouch/vouch/kernel" adds ${kernelRatio.toFixed(2)} (> 1)`);
  },
});

globalThis.addEventListener("unload", () => {
  if (setup !== null) rmSync(setup.root, { recursive: true, force: true });
});
