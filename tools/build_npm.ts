/**
 * Builds the npm package in `dist/npm/`:
 *
 * - `types/`: one `.d.ts` per source file (kernel, adapters, cli, wasm, the root facade), emitted
 *   by TypeScript from npm (`tsc`, relative `.ts` imports rewritten to `.js`); `cjs/types/` is
 *   the same tree read as CommonJS (`cjs/package.json` says `"type": "commonjs"`).
 * - `esm/`: one bundle per entry point (esbuild from npm, ESM with shared chunks, so each module
 *   exists once), plus `bin.js` (the `vouch` CLI) and `evaluate_child.js` (the child `vouch
 *   evaluate` starts under Node's permission model).
 * - `cjs/`: one self-contained CommonJS bundle per entry point, for `require`.
 * - a `package.json` whose `exports` are deno.json's (facade `.` and every sub-path, each with
 *   `import` and `require`, each with its `types`) plus `./package.json`; a folder per sub-path
 *   for resolvers without `exports` (TypeScript's node10); the runtime dependencies pinned to
 *   the versions in deno.lock; the queue client as an optional peer dependency.
 *
 * With `--pack` it also runs `npm pack`, printing the tarball's path.
 *
 *   deno task npm [--pack]
 *
 * Needs `node` and `npm` on PATH: the build installs its tools (BUILD_TOOLS: typescript,
 * esbuild, postject for the SEA, publint and arethetypeswrong for the tests) into
 * `dist/npm-build/`, a scratch directory, from the npm registry or npm's cache.
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT: string = fileURLToPath(new URL("../", import.meta.url));
const OUT = join(ROOT, "dist/npm");
/** Scratch directory of the build: its node_modules hold `typescript` and `@types/node`. */
export const NPM_BUILD_DIR: string = join(ROOT, "dist/npm-build");
const BUILD = NPM_BUILD_DIR;

/** Source trees that make up the library (tests, tools and benches stay out). */
const SOURCES = ["mod.ts", "kernel", "adapters", "cli", "wasm"];
const EXCLUDED_DIRS = new Set(["assembly"]);
/** npm packages the library imports at run time (everything else is dev-only). */
export const RUNTIME_DEPENDENCIES: readonly string[] = [
  "zod",
  "canonicalize",
  "hash-wasm",
  "@agentclientprotocol/sdk",
  "bullmq",
  "saxes",
];
/** The bare specifiers the library's sources import (each must be in RUNTIME_DEPENDENCIES). */
export function runtimeImports(): string[] {
  const found = new Set<string>();
  for (const file of SOURCES.flatMap(listSources)) {
    const text = readFileSync(join(ROOT, file), "utf8");
    for (
      const m of text.matchAll(/^\s*(?:import|export)[^"'\n]*?from\s*["']([^"'./][^"']*)["']/gm)
    ) {
      if (!m[1]!.startsWith("node:")) found.add(m[1]!);
    }
  }
  return [...found].sort();
}

/**
 * Where the project lives, for the package's `homepage`, `repository` and `bugs` fields (the
 * same `vouch.dev` namespace the attestation predicates use). Confirm before the first publish.
 */
export const HOMEPAGE = "https://vouch.dev";
/** The source repository (see {@link HOMEPAGE}). */
export const REPOSITORY = "https://github.com/vouch-dev/vouch";

const BUILD_TOOLS = {
  typescript: "5.9.3",
  "@types/node": "20.19.1",
  postject: "1.0.0-alpha.6",
  esbuild: "0.28.2",
  publint: "0.3.25",
  "@arethetypeswrong/cli": "0.18.5",
};

interface DenoConfig {
  name: string;
  version: string;
  exports: Record<string, string>;
  imports: Record<string, string>;
}

/** The locked version of each runtime dependency (from deno.lock), e.g. `{ zod: "4.6.7" }`. */
export function lockedVersions(): Record<string, string> {
  const config = JSON.parse(readFileSync(join(ROOT, "deno.json"), "utf8")) as DenoConfig;
  const lock = JSON.parse(readFileSync(join(ROOT, "deno.lock"), "utf8")) as {
    specifiers: Record<string, string>;
  };
  const out: Record<string, string> = {};
  for (const name of RUNTIME_DEPENDENCIES) {
    const spec = config.imports[name];
    const version = spec === undefined ? undefined : lock.specifiers[spec];
    if (version === undefined) throw new Error(`no locked version for ${name} (${spec})`);
    out[name] = version.replace(/_.*$/, "");
  }
  return out;
}

/** The npm package's entry points: export key, bundle name, source module. */
export const NPM_ENTRIES: readonly { key: string; name: string; source: string }[] = [
  { key: ".", name: "index", source: "mod.ts" },
  { key: "./kernel", name: "kernel", source: "kernel/mod.ts" },
  { key: "./backends", name: "backends", source: "adapters/backends/mod.ts" },
  { key: "./log", name: "log", source: "adapters/log/mod.ts" },
  { key: "./batch", name: "batch", source: "adapters/batch/mod.ts" },
  { key: "./wasm", name: "wasm", source: "wasm/mod.ts" },
];
/** Bundles that are no export: the CLI (`bin`) and the evaluation child `vouch evaluate` starts. */
const INTERNAL_ENTRIES = [
  { name: "bin", source: "cli/node_bin.ts", cjs: false },
  { name: "evaluate_child", source: "adapters/bundle/evaluate_child.ts", cjs: false },
];
/**
 * npm packages left out of the bundles (npm installs them): hash-wasm (loaded on first use), the
 * ACP SDK (loaded when an ACP agent starts; ESM only, so the CommonJS bundles inline it) and the
 * optional queue client. Everything else is bundled: zod (one file evaluates far faster than
 * zod's 95 modules; zod stays a dependency because vouch's types name its types), the RFC 8785
 * serializer, saxes.
 */
const ESM_EXTERNAL = ["hash-wasm", "@agentclientprotocol/sdk", "bullmq"];
const CJS_EXTERNAL = ["hash-wasm", "bullmq"];
/** Optional: only `vouch batch --queue` and `vouch worker` load them. */
export const OPTIONAL_PEERS: readonly string[] = ["bullmq"];

/** The package.json of the npm package. */
export function packageJson(): Record<string, unknown> {
  const config = JSON.parse(readFileSync(join(ROOT, "deno.json"), "utf8")) as DenoConfig;
  const exports: Record<string, unknown> = {};
  for (const entry of NPM_ENTRIES) {
    if (config.exports[entry.key] !== "./" + entry.source) {
      throw new Error(`deno.json exports ${entry.key} is not ./${entry.source}`);
    }
    const types = entry.source.replace(/\.ts$/, ".d.ts");
    exports[entry.key] = {
      import: { types: `./types/${types}`, default: `./esm/${entry.name}.js` },
      require: { types: `./cjs/types/${types}`, default: `./cjs/${entry.name}.js` },
    };
  }
  exports["./package.json"] = "./package.json";
  const dependencies: Record<string, string> = {};
  const peerDependencies: Record<string, string> = {};
  const peerDependenciesMeta: Record<string, { optional: true }> = {};
  for (const [name, version] of Object.entries(lockedVersions())) {
    if (OPTIONAL_PEERS.includes(name)) {
      peerDependencies[name] = `^${version}`;
      peerDependenciesMeta[name] = { optional: true };
    } else if (name === "zod" || ESM_EXTERNAL.includes(name)) {
      dependencies[name] = `^${version}`;
    } // else bundled (the RFC 8785 serializer, saxes): nothing for npm to install
  }
  return {
    name: config.name,
    version: config.version,
    description: 'vouch makes "done" mean verified for AI coding agents: it re-derives the ' +
      "real diff, checks its scope, re-runs an outcome contract in a clean sandbox and only " +
      "then mints a MAC'd VerifiedPatch in a hash-chained log.",
    type: "module",
    license: "MIT",
    author: "the vouch authors",
    homepage: HOMEPAGE,
    repository: { type: "git", url: `git+${REPOSITORY}.git` },
    bugs: { url: `${REPOSITORY}/issues` },
    keywords: ["ai", "coding-agent", "verification", "sandbox", "git", "patch", "swe-bench"],
    engines: { node: ">=20" },
    // Importing a vouch module runs nothing but definitions (the CLI is the `bin`, never imported).
    sideEffects: false,
    exports,
    main: "./cjs/index.js",
    module: "./esm/index.js",
    types: "./types/mod.d.ts",
    bin: { vouch: "./esm/bin.js" },
    files: [
      "esm/",
      "cjs/",
      "types/",
      ...NPM_ENTRIES.filter((e) => e.key !== ".").map((e) => e.key.slice(2) + "/"),
      "schemas/",
      "README.md",
      "LICENSE",
      "CHANGELOG.md",
    ],
    dependencies,
    peerDependencies,
    peerDependenciesMeta,
  };
}

function listSources(path: string): string[] {
  const abs = join(ROOT, path);
  if (statSync(abs).isFile()) return [path];
  const out: string[] = [];
  for (const name of readdirSync(abs).sort()) {
    const rel = join(path, name);
    if (statSync(join(ROOT, rel)).isDirectory()) {
      if (!EXCLUDED_DIRS.has(name)) out.push(...listSources(rel));
    } else if (name.endsWith(".ts")) out.push(rel);
  }
  return out;
}

function run(cmd: string, args: string[], cwd: string): string {
  return execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
}

/** Rewrites relative `.ts` specifiers in emitted declarations to `.js`. */
export function rewriteDeclarationSpecifiers(text: string): string {
  return text.replace(
    /((?:from|import)\s*\(?\s*["'])(\.{1,2}\/[^"']*?)\.ts(["'])/g,
    (_m, head: string, path: string, tail: string) => `${head}${path}.js${tail}`,
  );
}

function walk(dir: string, fn: (file: string) => void): void {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, fn);
    else fn(p);
  }
}

/**
 * Whether the scratch dir still needs `npm install` for this build's tools: its
 * `installed.json` (written only once an install finished) is not this
 * `package.json`. An install that was interrupted or failed left no marker, so
 * the next build installs again instead of finding half a `node_modules`.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { buildToolsMissing } from "./build_npm.ts";
 * const dir = mkdtempSync(join(tmpdir(), "vouch-build-"));
 * writeFileSync(join(dir, "package.json"), "{}\n"); // an install began
 * equal(buildToolsMissing(dir, "{}\n"), true);
 * writeFileSync(join(dir, "installed.json"), "{}\n"); // and finished
 * equal(buildToolsMissing(dir, "{}\n"), false);
 * equal(buildToolsMissing(dir, "{ \"other\": 1 }\n"), true);
 * rmSync(dir, { recursive: true, force: true });
 * ```
 */
export function buildToolsMissing(dir: string, pkgText: string): boolean {
  try {
    return readFileSync(join(dir, INSTALLED), "utf8") !== pkgText;
  } catch {
    return true;
  }
}

/** The copy of `package.json` the scratch dir gets once `npm install` finished. */
const INSTALLED = "installed.json";

/** Installs the build tools (and the runtime dependencies' types) into the scratch dir, once. */
export function installBuildTools(): void {
  mkdirSync(BUILD, { recursive: true });
  // Build tools and the runtime dependencies' types, installed once into the scratch dir.
  const buildPkg = {
    name: "vouch-npm-build",
    private: true,
    type: "module",
    devDependencies: { ...BUILD_TOOLS, ...lockedVersions() },
  };
  const pkgText = JSON.stringify(buildPkg, null, 2) + "\n";
  if (!buildToolsMissing(BUILD, pkgText)) return;
  rmSync(join(BUILD, INSTALLED), { force: true });
  writeFileSync(join(BUILD, "package.json"), pkgText);
  run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], BUILD);
  writeFileSync(join(BUILD, INSTALLED), pkgText);
}

/** Builds `dist/npm/` and returns its path. */
export function buildNpm(): string {
  const sources = SOURCES.flatMap(listSources);
  rmSync(OUT, { recursive: true, force: true });
  installBuildTools();
  const src = join(BUILD, "src");
  rmSync(src, { recursive: true, force: true });
  for (const file of sources) {
    mkdirSync(dirname(join(src, file)), { recursive: true });
    cpSync(join(ROOT, file), join(src, file));
  }
  // 1. Types: declarations only, one .d.ts per source file (with the JSDoc).
  const tsconfig = {
    compilerOptions: {
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      lib: ["ES2023", "DOM"],
      types: ["node"],
      strict: true,
      allowImportingTsExtensions: true,
      rewriteRelativeImportExtensions: true,
      declaration: true,
      emitDeclarationOnly: true,
      // The sources are type-checked by `deno check`; tsc only emits.
      noCheck: true,
      skipLibCheck: true,
      rootDir: "src",
      outDir: join(OUT, "types"),
    },
    files: sources.map((f) => `src/${f}`),
  };
  writeFileSync(join(BUILD, "tsconfig.json"), JSON.stringify(tsconfig, null, 2) + "\n");
  run("node", [
    join(BUILD, "node_modules/typescript/bin/tsc"),
    "-p",
    join(BUILD, "tsconfig.json"),
  ], BUILD);
  walk(join(OUT, "types"), (file) => {
    if (file.endsWith(".d.ts")) {
      writeFileSync(file, rewriteDeclarationSpecifiers(readFileSync(file, "utf8")));
    }
  });
  // The same declarations read as CommonJS (a folder whose package.json says so), for `require`.
  cpSync(join(OUT, "types"), join(OUT, "cjs/types"), { recursive: true });
  writeFileSync(join(OUT, "cjs/package.json"), JSON.stringify({ type: "commonjs" }) + "\n");
  // 2. Code: one bundle per entry point. ESM with shared chunks (one copy of each module, so
  // `instanceof VouchError` holds across entry points); CommonJS one self-contained file each.
  const esbuild = join(BUILD, "node_modules/esbuild/bin/esbuild");
  const common = ["--bundle", "--platform=node", "--target=node20", "--log-level=warning"];
  const esmEntries = [...NPM_ENTRIES, ...INTERNAL_ENTRIES].map((e) => `${e.name}=src/${e.source}`);
  run(esbuild, [
    ...esmEntries,
    ...common,
    "--format=esm",
    "--splitting",
    "--chunk-names=chunk-[hash]",
    `--outdir=${join(OUT, "esm")}`,
    ...ESM_EXTERNAL.map((x) => `--external:${x}`),
  ], BUILD);
  const cjsEntries = [...NPM_ENTRIES, ...INTERNAL_ENTRIES.filter((e) => e.cjs)];
  for (const entry of cjsEntries) {
    run(esbuild, [
      `src/${entry.source}`,
      ...common,
      "--format=cjs",
      // CommonJS has no import.meta: the bundle's own file URL stands in for it.
      "--define:import.meta.url=__vouch_import_meta_url",
      '--banner:js=var __vouch_import_meta_url = require("node:url").pathToFileURL(__filename).href;',
      `--outfile=${join(OUT, "cjs", entry.name + ".js")}`,
      ...CJS_EXTERNAL.map((x) => `--external:${x}`),
    ], BUILD);
  }
  // Resolvers without `exports` (TypeScript's node10, old bundlers): a folder per sub-path.
  for (const entry of NPM_ENTRIES.filter((e) => e.key !== ".")) {
    const dir = join(OUT, entry.key);
    mkdirSync(dir, { recursive: true });
    const types = entry.source.replace(/\.ts$/, ".d.ts");
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify(
        {
          main: `../cjs/${entry.name}.js`,
          module: `../esm/${entry.name}.js`,
          types: `../cjs/types/${types}`,
        },
        null,
        2,
      ) + "\n",
    );
  }
  const bin = join(OUT, "esm/bin.js");
  writeFileSync(bin, "#!/usr/bin/env node\n" + readFileSync(bin, "utf8").replace(/^#!.*\n/, ""));
  chmodSync(bin, 0o755);
  writeFileSync(join(OUT, "package.json"), JSON.stringify(packageJson(), null, 2) + "\n");
  // The package's own README is Node-first (npm, npx, require/import); the repository's is Deno's.
  cpSync(join(ROOT, "tools/npm/README.md"), join(OUT, "README.md"));
  for (const file of ["LICENSE", "CHANGELOG.md"]) cpSync(join(ROOT, file), join(OUT, file));
  cpSync(join(ROOT, "schemas"), join(OUT, "schemas"), { recursive: true });
  return OUT;
}

/** Runs `npm pack` in `dist/npm/` and returns the tarball's absolute path. */
export function packNpm(): string {
  const out = run("npm", ["pack", "--silent", "--pack-destination", join(ROOT, "dist")], OUT);
  const name = out.trim().split("\n").at(-1)!;
  return join(ROOT, "dist", name);
}

if (import.meta.main) {
  const out = buildNpm();
  console.log(`built ${relative(ROOT, out)}/`);
  if (Deno.args.includes("--pack")) console.log(packNpm());
}
