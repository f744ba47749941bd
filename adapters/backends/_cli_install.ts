/**
 * Whether an agent CLI installed by npm (`claude`, `codex`) can start, told
 * from its package's own metadata without starting it: the preflight of
 * `vouch run` then needs no sandboxed `--version` (a bwrap start, a scratch
 * HOME and the CLI's own start, 0.15-1.1 s). Only a complete install passes:
 * the program is the `bin` of the expected package (its `package.json` names a
 * version), a native binary whose dynamic loader is here (a glibc build on a
 * musl host does not start) or a script whose interpreter is outside HOME,
 * every directory on its way open to any uid (as root the agent runs as uid
 * 65534), and the package for this platform installed when it ships one.
 * Anything else is left to the sandboxed `--version` (fail closed).
 *
 * @module
 */
import { open, readFile, realpath, stat } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import process from "node:process";

/** The npm packages of the agent CLIs whose install is checked from metadata. */
export const CLI_PACKAGES: Readonly<Record<string, readonly string[]>> = {
  claude: ["@anthropic-ai/claude-code"],
  codex: ["@openai/codex"],
};

interface PackageJson {
  readonly name?: unknown;
  readonly version?: unknown;
  readonly bin?: unknown;
  readonly optionalDependencies?: unknown;
}

async function readPackage(dir: string): Promise<PackageJson | null> {
  try {
    const parsed: unknown = JSON.parse(await readFile(join(dir, "package.json"), "utf8"));
    return typeof parsed === "object" && parsed !== null ? parsed as PackageJson : null;
  } catch {
    return null;
  }
}

/** Every directory from `/` down to `path`'s parent is searchable by any uid. */
async function openToAll(path: string): Promise<boolean> {
  let dir = dirname(path);
  for (;;) {
    const info = await stat(dir).catch(() => null);
    if (info === null || (info.mode & 0o001) === 0) return false;
    const up = dirname(dir);
    if (up === dir) return true;
    dir = up;
  }
}

/** Runnable by any uid: a regular file, others may execute it (and read it, for a script). */
async function runnableByAll(path: string, script: boolean): Promise<boolean> {
  const info = await stat(path).catch(() => null);
  if (info === null || !info.isFile() || (info.mode & 0o001) === 0) return false;
  return (!script || (info.mode & 0o004) !== 0) && await openToAll(path);
}

async function head(path: string): Promise<Uint8Array | null> {
  const file = await open(path, "r").catch(() => null);
  if (file === null) return null;
  try {
    const buf = new Uint8Array(4096);
    const { bytesRead } = await file.read(buf, 0, buf.length, 0);
    return buf.subarray(0, bytesRead);
  } catch {
    return null;
  } finally {
    await file.close();
  }
}

/**
 * The program interpreter (`PT_INTERP`: the dynamic loader) a 64-bit little-endian ELF asks
 * for, "" for a static one, or null when that cannot be read from its first bytes.
 */
function elfInterpreter(bytes: Uint8Array): string | null {
  if (bytes.length < 64 || bytes[4] !== 2 || bytes[5] !== 1) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const phoff = Number(view.getBigUint64(0x20, true));
  const size = view.getUint16(0x36, true);
  const count = view.getUint16(0x38, true);
  if (size < 56 || phoff + size * count > bytes.length) return null;
  for (let i = 0; i < count; i++) {
    const at = phoff + i * size;
    if (view.getUint32(at, true) !== 3) continue; // PT_INTERP
    const offset = Number(view.getBigUint64(at + 8, true));
    const length = Number(view.getBigUint64(at + 0x20, true));
    if (length < 2 || offset + length > bytes.length) return null;
    return new TextDecoder("latin1").decode(bytes.subarray(offset, offset + length - 1));
  }
  return "";
}

function under(path: string, dir: string | undefined): boolean {
  return dir !== undefined && dir.startsWith("/") && (path === dir || path.startsWith(dir + sep));
}

/** The interpreter of a `#!` line, resolved (`/usr/bin/env node` on PATH), or null. */
async function interpreter(line: string): Promise<string | null> {
  const words = line.slice(2).trim().split(/\s+/);
  const first = words[0] ?? "";
  if (!first.startsWith("/")) return null;
  if (!first.endsWith("/env")) return first;
  const name = words[1];
  if (name === undefined || name.startsWith("-") || name.includes("/")) return null;
  for (const dir of (process.env["PATH"] ?? "").split(":")) {
    if (!dir.startsWith("/")) continue;
    const info = await stat(join(dir, name)).catch(() => null);
    if (info !== null && info.isFile() && (info.mode & 0o111) !== 0) {
      return await realpath(join(dir, name)).catch(() => null);
    }
  }
  return null;
}

/**
 * Starts as a program: a native binary whose loader (if it names one) is here, or a script whose
 * interpreter is runnable; either outside HOME (hidden from the agent).
 */
async function startable(real: string, home: string | undefined): Promise<boolean> {
  const bytes = await head(real);
  if (bytes === null) return false;
  const text = new TextDecoder("latin1").decode(bytes.subarray(0, 256));
  if (text.startsWith("\x7fELF")) {
    const loader = elfInterpreter(bytes);
    if (loader === null) return false;
    const found = loader === "" ? "" : await realpath(loader).catch(() => null);
    if (
      found === null || (found !== "" && (under(found, home) || !await runnableByAll(found, false)))
    ) {
      return false;
    }
    return await runnableByAll(real, false);
  }
  if (!text.startsWith("#!")) return false;
  const interp = await interpreter(text.split("\n")[0] ?? "");
  return interp !== null && !under(interp, home) && await runnableByAll(interp, false) &&
    await runnableByAll(real, true);
}

/** The package dir holding `real`: the nearest `package.json` with one of `names`. */
async function owningPackage(
  real: string,
  names: readonly string[],
): Promise<{ dir: string; pkg: PackageJson } | null> {
  let dir = dirname(real);
  for (let i = 0; i < 8; i++) {
    const pkg = await readPackage(dir);
    if (pkg !== null) return names.includes(String(pkg.name)) ? { dir, pkg } : null;
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
  return null;
}

function binTargets(pkg: PackageJson): string[] {
  if (typeof pkg.bin === "string") return [pkg.bin];
  if (typeof pkg.bin !== "object" || pkg.bin === null) return [];
  return Object.values(pkg.bin).filter((v): v is string => typeof v === "string");
}

/** The platform's own package (an optional dependency `…-linux-x64`) is installed when listed. */
async function platformPackageInstalled(dir: string, pkg: PackageJson): Promise<boolean> {
  const deps = typeof pkg.optionalDependencies === "object" && pkg.optionalDependencies !== null
    ? Object.keys(pkg.optionalDependencies)
    : [];
  const suffix = `-${process.platform}-${process.arch}`;
  const mine = deps.filter((d) => d.endsWith(suffix) || d.endsWith(`${suffix}-musl`));
  if (mine.length === 0) return true;
  // Where node resolves it from the package: its own node_modules, then each one above.
  const roots: string[] = [];
  for (let d = dir; dirname(d) !== d; d = dirname(d)) roots.push(join(d, "node_modules"));
  for (const name of mine) {
    for (const root of roots) {
      const found = await readPackage(join(root, name));
      if (found !== null && typeof found.version === "string") return true;
    }
  }
  return false;
}

/**
 * The version an npm-installed agent CLI's own `package.json` names when its
 * install is complete and it can start (see the module doc), or null when
 * that cannot be told without starting it.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { installedVersion } from "./_cli_install.ts";
 * equal(await installedVersion("/nonexistent/claude", ["@anthropic-ai/claude-code"]), null);
 * equal(await installedVersion("/bin/sh", ["@anthropic-ai/claude-code"]), null);
 * ```
 */
export async function installedVersion(
  executable: string,
  packages: readonly string[],
  home: string | undefined = process.env["HOME"],
): Promise<string | null> {
  if (!executable.startsWith("/") || packages.length === 0) return null;
  const real = await realpath(executable).catch(() => null);
  if (real === null || !await openToAll(executable)) return null;
  const owner = await owningPackage(real, packages);
  if (owner === null) return null;
  const { dir, pkg } = owner;
  if (typeof pkg.version !== "string" || pkg.version === "") return null;
  if (!binTargets(pkg).some((t) => resolve(dir, t) === real)) return null;
  if (!await startable(real, home)) return null;
  return await platformPackageInstalled(dir, pkg) ? pkg.version : null;
}
