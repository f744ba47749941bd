/**
 * What of a mounted toolchain root stays hidden from checks: the credential files at its top
 * (by name, by a toolchain home's own config) and private entries. Owns the names and the masks;
 * never decides what is mounted (that is `_toolchains.ts`).
 *
 * @module
 */
import { basename, join } from "node:path";
import type { RootMount } from "./profile.ts";
import { direntsOrNone, lstatOrNull, maskOf } from "./_quiet_fs.ts";

/**
 * File names at the top of a toolchain directory that hold credentials and stay hidden; any
 * name starting with `credentials` or `.credentials` is hidden too (cargo's `credentials`,
 * `credentials.toml`, gem's `credentials`, ...).
 */
export const TOOLCHAIN_SECRET_NAMES: readonly string[] = [
  "credentials",
  "credentials.toml",
  ".credentials.json",
  "auth.json",
  ".netrc",
  ".npmrc",
  ".pypirc",
  "pip.conf",
  ".git-credentials",
  ".env",
  "config.json",
];

/**
 * User configuration that may carry a token, hidden at the top of a toolchain home of that
 * name: cargo's `config.toml` (`[registry] token`, `[http]` headers) in `.cargo` (or a root
 * holding `bin/cargo`), maven's `settings.xml`, gradle's `gradle.properties`. A path the user
 * declares (`--sandbox-ro`, contract `sandbox.readOnly`) is bound after the masks and shows it.
 */
export const TOOLCHAIN_CONFIG_SECRETS: Readonly<Record<string, readonly string[]>> = {
  ".cargo": ["config.toml", "config"],
  ".m2": ["settings.xml", "settings-security.xml"],
  ".gradle": ["gradle.properties"],
};

/** Whether `name`, at the top of the toolchain root `root`, is a secret hidden from checks. */
export function isToolchainSecret(root: string, name: string, hasCargo = false): boolean {
  if (TOOLCHAIN_SECRET_NAMES.includes(name)) return true;
  if (name.startsWith("credentials") || name.startsWith(".credentials")) return true;
  const config = TOOLCHAIN_CONFIG_SECRETS[basename(root)] ??
    (hasCargo ? TOOLCHAIN_CONFIG_SECRETS[".cargo"]! : []);
  return config.includes(name);
}

/**
 * Masks for the secrets at the top of a mounted toolchain root: {@linkcode isToolchainSecret}'s
 * names, private entries (closed to others) and sockets.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { toolchainSecretMasks } from "./_toolchain_secrets.ts";
 * const root = mkdtempSync(join(tmpdir(), "vouch-tc-"));
 * for (const name of ["credentials.toml", "README", "key"]) writeFileSync(join(root, name), "x");
 * chmodSync(join(root, "key"), 0o600);
 * chmodSync(join(root, "README"), 0o644);
 * chmodSync(join(root, "credentials.toml"), 0o644);
 * deepEqual(toolchainSecretMasks(root).map((m) => m.path).sort(), [join(root, "credentials.toml"), join(root, "key")]);
 * rmSync(root, { recursive: true });
 * ```
 */
export function toolchainSecretMasks(root: string): RootMount[] {
  const out: RootMount[] = [];
  const hasCargo = lstatOrNull(join(root, "bin", "cargo")) !== null;
  for (const e of direntsOrNone(root)) {
    const path = join(root, e.name);
    const info = lstatOrNull(path);
    if (info === null || info.isSymbolicLink()) continue;
    const private_ = info.mode !== null && (info.mode & 0o004) === 0;
    if (isToolchainSecret(root, e.name, hasCargo) || private_ || info.isSocket()) {
      out.push(maskOf(path, info));
    }
  }
  return out;
}
