/**
 * Reads, from a tree, the configuration texts `oracleSet` decides from.
 *
 * @module
 */
import { lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { oracleConfigPaths } from "../../kernel/oracle/inputs.ts";

/** Options of {@link readOracleConfigs}. */
export interface ReadOracleConfigsOptions {
  /** Largest file read, bytes (default 256 KiB); larger ones are skipped. */
  readonly maxBytes?: number;
  /** Most files read (default 64). */
  readonly maxFiles?: number;
}

/**
 * The texts of the configuration files among `paths` (see
 * `oracleConfigPaths`) under `root`, keyed by path: regular files only (a
 * symbolic link is never followed), bounded in size and number; a file that
 * cannot be read is left out (its own path is still the oracle by name).
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { readOracleConfigs } from "./configs.ts";
 * const root = mkdtempSync(join(tmpdir(), "vouch-cfg-"));
 * writeFileSync(join(root, "package.json"), '{"scripts":{"test":"mocha"}}');
 * symlinkSync("/etc/hostname", join(root, "pytest.ini"));
 * deepEqual(readOracleConfigs(root, ["package.json", "pytest.ini", "src/a.js"]), {
 *   "package.json": '{"scripts":{"test":"mocha"}}',
 * });
 * rmSync(root, { recursive: true });
 * ```
 */
export function readOracleConfigs(
  root: string,
  paths: readonly string[],
  options: ReadOracleConfigsOptions = {},
): Record<string, string> {
  const maxBytes = options.maxBytes ?? 256 * 1024;
  const out: Record<string, string> = {};
  for (const p of oracleConfigPaths(paths).slice(0, options.maxFiles ?? 64)) {
    try {
      const full = join(root, p);
      const info = lstatSync(full);
      if (!info.isFile() || info.size > maxBytes) continue;
      out[p] = readFileSync(full, "utf8");
    } catch {
      // unreadable: left out
    }
  }
  return out;
}
