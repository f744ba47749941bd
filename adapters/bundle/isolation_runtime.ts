/**
 * The one small interface the isolated bundle evaluation needs from its
 * runtime: how to start a child of the same runtime that may read only the
 * given paths. Two implementations: Deno (`deno run` with `--allow-read=` and
 * every other permission denied) and Node (`node --permission` /
 * `--experimental-permission` with `--allow-fs-read=` per path: no write, no
 * child processes, no workers, no addons, no WASI). A runtime that cannot
 * isolate (a Node without the permission model, a single executable that has
 * no child module on disk) throws a {@link VouchError} `isolation_unavailable`:
 * the evaluation never runs unisolated.
 *
 * @module
 */
import { existsSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { VouchError } from "../../kernel/errors/mod.ts";

/** How to start the child: the program, its arguments, its whole environment. */
export interface ChildCommand {
  /** The program to start. */
  readonly program: string;
  /** Its arguments. */
  readonly args: string[];
  /** Its whole environment. */
  readonly env: Record<string, string>;
}

/** A runtime that can start a read-only evaluation child of itself. */
export interface IsolationRuntime {
  /** Which runtime. */
  readonly name: "deno" | "node";
  /**
   * The command running `entry` (a local module) with `entryArgs`, allowed to
   * read `readPaths` (and the child's own code) and nothing else. Throws
   * `RangeError` for a path it cannot grant, {@link VouchError}
   * `isolation_unavailable` when this runtime cannot isolate at all.
   */
  command(entry: URL, readPaths: readonly string[], entryArgs: readonly string[]): ChildCommand;
}

/**
 * Whether this module runs from the npm package's bundles: `esm/*.js` or `cjs/*.js`, each folder
 * the entry bundles (and chunks); the child is `esm/evaluate_child.js` for both.
 */
const BUNDLED = !import.meta.url.endsWith(".ts");

/** The default child entry module: the `.ts` source under Deno, the bundled `.js` in the npm package. */
export const EVALUATE_CHILD_ENTRY: URL = new URL(
  BUNDLED ? "../esm/evaluate_child.js" : "./evaluate_child.ts",
  import.meta.url,
);

/** The child's own code: the npm package's root (its bundles), or the source tree. */
const OWN_CODE: URL = new URL(BUNDLED ? "../" : "../../", import.meta.url);

/** The repository's deno.json, giving a Deno child its import map (`zod`, ...). */
export const EVALUATE_CHILD_CONFIG: URL = new URL("../../deno.json", import.meta.url);

/**
 * npm packages the child's module graph imports (their directories are readable to a Node child):
 * none from the npm package, whose child bundle holds all it runs (zod, the RFC 8785 serializer).
 */
export const CHILD_NPM_PACKAGES: readonly string[] = BUNDLED ? [] : ["zod", "canonicalize"];

function checkGrantable(readPaths: readonly string[]): void {
  for (const p of readPaths) {
    if (p.includes(",")) throw new RangeError(`Cannot grant read access: ${p} contains a comma`);
    if (p === "") throw new RangeError("Cannot grant read access: empty path");
  }
}

/**
 * Deno's permission flags for a child that may read only `readPaths`.
 * Throws `RangeError` for a path containing a comma (Deno's list separator).
 *
 * @example
 * ```ts
 * import { childPermissionFlags } from "./isolation_runtime.ts";
 * const flags = childPermissionFlags(["/tmp/b"]);
 * if (!flags.includes("--allow-read=/tmp/b") || !flags.includes("--deny-net")) {
 *   throw new Error("unexpected");
 * }
 * ```
 */
export function childPermissionFlags(readPaths: readonly string[]): string[] {
  checkGrantable(readPaths);
  return [
    "--no-prompt",
    `--allow-read=${readPaths.join(",")}`,
    "--deny-write",
    "--deny-net",
    "--deny-run",
    "--deny-env",
    "--deny-ffi",
    "--deny-sys",
  ];
}

/**
 * Node's permission-model flags for a child that may read only `readPaths`:
 * `permissionFlag` (`--permission`, or `--experimental-permission` on Node 20)
 * and one `--allow-fs-read` per path. No write, child process, worker or
 * addon permission is granted. Throws `RangeError` for a path containing a
 * comma (older Nodes split the flag's value on commas).
 *
 * @example
 * ```ts
 * import { nodePermissionFlags } from "./isolation_runtime.ts";
 * const flags = nodePermissionFlags("--permission", ["/a", "/b"]);
 * if (flags.join(" ") !== "--permission --allow-fs-read=/a --allow-fs-read=/b") {
 *   throw new Error("unexpected");
 * }
 * ```
 */
export function nodePermissionFlags(
  permissionFlag: "--permission" | "--experimental-permission",
  readPaths: readonly string[],
): string[] {
  checkGrantable(readPaths);
  return [permissionFlag, ...readPaths.map((p) => `--allow-fs-read=${p}`)];
}

/** Both the absolute form of `path` and, when it differs, its symlink-resolved form. */
export function pathForms(path: string): string[] {
  const absolute = resolve(path);
  try {
    const real = realpathSync(path);
    return real === absolute ? [absolute] : [absolute, real];
  } catch {
    return [absolute];
  }
}

function envValue(name: string): string | undefined {
  try {
    return process.env[name];
  } catch {
    return undefined; // Deno without env permission: the child falls back to Deno's defaults
  }
}

/** The Deno implementation: `deno run --cached-only --config deno.json` with read-only flags. */
export const denoIsolation: IsolationRuntime = {
  name: "deno",
  command(entry, readPaths, entryArgs) {
    const env: Record<string, string> = { NO_COLOR: "1" };
    for (const name of ["DENO_DIR", "HOME", "XDG_CACHE_HOME"]) {
      const value = envValue(name);
      if (value !== undefined) env[name] = value;
    }
    return {
      program: process.execPath,
      args: [
        "run",
        "--quiet",
        "--cached-only",
        "--config",
        fileURLToPath(EVALUATE_CHILD_CONFIG),
        ...childPermissionFlags([...new Set(readPaths)]),
        fileURLToPath(entry),
        ...entryArgs,
      ],
      env,
    };
  },
};

/** The directory of the npm package `name` as this module resolves it, or null. */
function packageDir(name: string): string | null {
  try {
    // Through require.resolve of its package.json: works from the ESM and the CommonJS bundle.
    return dirname(createRequire(import.meta.url).resolve(`${name}/package.json`));
  } catch {
    return null;
  }
}

/** Which permission-model flag this Node understands, or null (no permission model). */
export function nodePermissionFlag(): "--permission" | "--experimental-permission" | null {
  const flags = process.allowedNodeEnvironmentFlags;
  if (flags.has("--permission")) return "--permission";
  if (flags.has("--experimental-permission")) return "--experimental-permission";
  return null;
}

function unavailable(why: string): VouchError {
  return new VouchError(
    "isolation_unavailable",
    `Cannot evaluate in isolation: ${why}; the bundle is not evaluated unisolated (run vouch ` +
      "evaluate with Node 20+ from the npm package, or with Deno)",
  );
}

/** The Node implementation: `node --permission --allow-fs-read=...` (Node 20: `--experimental-permission`). */
export const nodeIsolation: IsolationRuntime = {
  name: "node",
  command(entry, readPaths, entryArgs) {
    const flag = nodePermissionFlag();
    if (flag === null) {
      throw unavailable(`this Node (${process.version}) has no permission model`);
    }
    const entryPath = fileURLToPath(entry);
    if (!existsSync(entryPath)) {
      throw unavailable(`the evaluator child module ${entryPath} is not on disk`);
    }
    // The child's own code: the package's emitted tree and the npm packages it imports.
    const own = [fileURLToPath(OWN_CODE), entryPath];
    for (const name of CHILD_NPM_PACKAGES) {
      const dir = packageDir(name);
      if (dir === null) throw unavailable(`the child's dependency ${name} cannot be resolved`);
      own.push(dir);
    }
    const reads = [...new Set([...readPaths, ...own.flatMap(pathForms)])];
    return {
      program: process.execPath,
      args: [
        "--no-warnings",
        "--no-addons",
        ...nodePermissionFlags(flag, reads),
        entryPath,
        ...entryArgs,
      ],
      env: { NO_COLOR: "1" },
    };
  },
};

/** Whether this is a Node single executable application (its child module is not on disk). */
function isSingleExecutable(): boolean {
  try {
    // Through createRequire, so bundlers leave the (Node-only) built-in alone.
    const sea = createRequire(import.meta.url)("node:sea") as { isSea?: () => boolean };
    return sea.isSea?.() === true;
  } catch {
    return false;
  }
}

/**
 * The isolation of the runtime this process runs on. Throws
 * {@link VouchError} `isolation_unavailable` inside a Node single executable
 * application (it cannot start a permission-restricted child of itself).
 *
 * @example
 * ```ts
 * import { currentIsolation } from "./isolation_runtime.ts";
 * const runtime = currentIsolation();
 * if (runtime.name !== ("Deno" in globalThis ? "deno" : "node")) throw new Error("unexpected");
 * ```
 */
export function currentIsolation(): IsolationRuntime {
  if ("Deno" in globalThis) return denoIsolation;
  if (isSingleExecutable()) {
    throw unavailable("a single executable cannot start a permission-restricted child of itself");
  }
  return nodeIsolation;
}
