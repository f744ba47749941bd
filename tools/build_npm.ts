/**
 * Builds the npm package in `dist/npm/`: ESM JavaScript and `.d.ts` types for
 * every source file of the library (kernel, adapters, cli, wasm, the root
 * facade), emitted by TypeScript from npm (`tsc`, relative `.ts` imports
 * rewritten to `.js`), a `package.json` whose `exports` are deno.json's
 * (facade `.` and every sub-path, each with `types` and `import`), a `bin` for
 * `vouch` (`cli/node_bin.ts`), and the runtime dependencies (zod, canonicalize, the ACP SDK,
 * hash-wasm) as real npm dependencies pinned to the versions in deno.lock.
 * With `--pack` it also runs `npm pack`, printing the tarball's path.
 *
 *   deno task npm [--pack]
 *
 * Needs `node` and `npm` on PATH (the build installs `typescript` and
 * `@types/node` into `dist/npm-build/`, a scratch directory, from the npm
 * registry or npm's cache).
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
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

/** The package.json of the npm package. */
export function packageJson(): Record<string, unknown> {
  const config = JSON.parse(readFileSync(join(ROOT, "deno.json"), "utf8")) as DenoConfig;
  const exports: Record<string, { types: string; import: string }> = {};
  for (const [key, path] of Object.entries(config.exports)) {
    const base = "./esm/" + path.replace(/^\.\//, "").replace(/\.ts$/, "");
    exports[key] = { types: `${base}.d.ts`, import: `${base}.js` };
  }
  const dependencies: Record<string, string> = {};
  for (const [name, version] of Object.entries(lockedVersions())) {
    dependencies[name] = `^${version}`;
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
    types: exports["."]!.types,
    bin: { vouch: "./esm/cli/node_bin.js" },
    files: ["esm/", "schemas/", "README.md", "LICENSE", "CHANGELOG.md"],
    dependencies,
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
  const pkgPath = join(BUILD, "package.json");
  const pkgText = JSON.stringify(buildPkg, null, 2) + "\n";
  if (!existsSync(pkgPath) || readFileSync(pkgPath, "utf8") !== pkgText) {
    writeFileSync(pkgPath, pkgText);
    run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], BUILD);
  }
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
      // The sources are type-checked by `deno check`; tsc only emits.
      noCheck: true,
      skipLibCheck: true,
      rootDir: "src",
      outDir: join(OUT, "esm"),
    },
    files: sources.map((f) => `src/${f}`),
  };
  writeFileSync(join(BUILD, "tsconfig.json"), JSON.stringify(tsconfig, null, 2) + "\n");
  run("node", [
    join(BUILD, "node_modules/typescript/bin/tsc"),
    "-p",
    join(BUILD, "tsconfig.json"),
  ], BUILD);
  walk(join(OUT, "esm"), (file) => {
    if (file.endsWith(".d.ts")) {
      writeFileSync(file, rewriteDeclarationSpecifiers(readFileSync(file, "utf8")));
    }
  });
  chmodSync(join(OUT, "esm/cli/node_bin.js"), 0o755);
  writeFileSync(join(OUT, "package.json"), JSON.stringify(packageJson(), null, 2) + "\n");
  for (const file of ["README.md", "LICENSE", "CHANGELOG.md"]) {
    cpSync(join(ROOT, file), join(OUT, file));
  }
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
