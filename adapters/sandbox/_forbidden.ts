/**
 * What no child may ever see: vouch's key store and state directories. They
 * are never mounted; when a mounted directory (a toolchain root, a declared
 * path) contains one, it is masked on top.
 */
import { realpathSync } from "node:fs";
import process from "node:process";
import { isAbsolute, join, resolve } from "node:path";

function hostEnv(name: string): string | undefined {
  try {
    return process.env[name];
  } catch {
    return undefined;
  }
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** Inputs of {@linkcode forbiddenPaths}. */
export interface ForbiddenOptions {
  /** The user's HOME. */
  readonly home?: string;
  /** The key store in use (default: `$XDG_STATE_HOME/vouch/keys` or `~/.local/state/vouch/keys`). */
  readonly keyStoreDir?: string;
  /** More paths. */
  readonly extra?: readonly string[];
}

/**
 * vouch's key and state directories for this environment (absolute, real
 * paths where they exist), plus `VOUCH_KEY_FILE` when set.
 *
 * @example
 * ```ts
 * import { ok } from "node:assert/strict";
 * import { forbiddenPaths } from "./_forbidden.ts";
 * ok(forbiddenPaths({ home: "/home/a" }).includes("/home/a/.local/state/vouch"));
 * ```
 */
export function forbiddenPaths(opts: ForbiddenOptions): string[] {
  const out = new Set<string>();
  const add = (p: string | undefined) => {
    if (p !== undefined && p !== "" && isAbsolute(p)) out.add(real(p));
  };
  const state = hostEnv("XDG_STATE_HOME");
  const data = hostEnv("XDG_DATA_HOME");
  const config = hostEnv("XDG_CONFIG_HOME");
  if (state !== undefined && isAbsolute(state)) add(join(state, "vouch"));
  if (data !== undefined && isAbsolute(data)) add(join(data, "vouch"));
  if (config !== undefined && isAbsolute(config)) add(join(config, "vouch"));
  if (opts.home !== undefined) {
    add(join(opts.home, ".local", "state", "vouch"));
    add(join(opts.home, ".local", "share", "vouch"));
    add(join(opts.home, ".config", "vouch"));
    add(join(opts.home, ".vouch"));
  }
  add(opts.keyStoreDir);
  add(hostEnv("VOUCH_KEY_FILE"));
  for (const p of opts.extra ?? []) add(p);
  return [...out];
}
