/**
 * Builds `dist/vouch`, a standalone executable, with Node's single executable
 * applications (no Deno, no Node and no npm needed to run it): the CLI
 * (`cli/node_bin.ts`) bundled by `deno bundle` into one CommonJS file (SEA
 * runs CommonJS), a SEA blob made by `node --experimental-sea-config`, and the
 * blob injected into a copy of the `node` binary with `postject` (from npm,
 * installed into the build's scratch dir). Everything is offline once
 * `postject` is in npm's cache. `deno task compile` stays for machines that
 * can reach Deno's `denort`.
 *
 *   deno task sea
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { installBuildTools, NPM_BUILD_DIR, ROOT } from "./build_npm.ts";

/** The SEA fuse Node's binary carries (fixed by Node). */
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

/**
 * Makes a CommonJS bundle SEA-ready: esbuild turns `import.meta` into `{}` in
 * CommonJS, so module-level `new URL(..., import.meta.url)` would throw at
 * start; give it the executable's own file URL instead (those URLs name source
 * files used only by `vouch evaluate`'s restricted child, which a SEA cannot start: there
 * `vouch evaluate` refuses with isolation_unavailable).
 */
export function patchImportMeta(code: string): string {
  // Both shapes esbuild emits: a top-level `var import_meta = {};` and, for a
  // module loaded on demand (inside `__esm`), an indented `import_meta3 = {};`.
  return code.replace(
    /^(\s*)(var )?(import_meta\d*) = \{\};$/gm,
    '$1$2$3 = { url: require("node:url").pathToFileURL(process.execPath).href };',
  );
}

function which(name: string): string {
  return execFileSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).trim();
}

/** Builds `dist/vouch` and returns its path. */
export function buildSea(): string {
  installBuildTools();
  const work = join(ROOT, "dist/sea");
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const bundle = join(work, "vouch.cjs");
  execFileSync(Deno.execPath(), [
    "bundle",
    "--quiet",
    "--format",
    "cjs",
    `--config=${join(ROOT, "deno.json")}`,
    "-o",
    bundle,
    join(ROOT, "cli/node_bin.ts"),
  ], { stdio: ["ignore", "inherit", "inherit"] });
  const patched = patchImportMeta(readFileSync(bundle, "utf8"));
  const left = patched.match(/\bimport_meta\d* = \{\}/);
  if (left) throw new Error(`build_sea: an import.meta shape patchImportMeta misses: ${left[0]}`);
  writeFileSync(bundle, patched);
  const config = join(work, "sea-config.json");
  const blob = join(work, "sea-prep.blob");
  writeFileSync(
    config,
    JSON.stringify({ main: bundle, output: blob, disableExperimentalSEAWarning: true }),
  );
  execFileSync("node", ["--experimental-sea-config", config], { stdio: "ignore" });
  const out = join(ROOT, "dist/vouch");
  rmSync(out, { force: true });
  copyFileSync(which("node"), out);
  chmodSync(out, 0o755);
  execFileSync("node", [
    join(NPM_BUILD_DIR, "node_modules/postject/dist/cli.js"),
    out,
    "NODE_SEA_BLOB",
    blob,
    "--sentinel-fuse",
    SEA_FUSE,
  ], { stdio: "ignore" });
  return out;
}

if (import.meta.main) console.log(buildSea());
