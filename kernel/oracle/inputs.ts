/**
 * What a caller needs to build an {@link OracleInput}: the runners a detected
 * test format implies, and which of a tree's files are the configuration
 * texts `oracleSet` reads.
 *
 * @module
 */
import type { TestFormat } from "../contract/types.ts";
import { ORACLE_RUNNERS, type OracleRunner } from "./types.ts";

/**
 * The runners whose conventions apply to a check with test format `format`
 * (and command `command`, which may name more: `mocha --reporter tap` is
 * format `tap` but mocha's conventions apply).
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { oracleRunnersOf } from "./inputs.ts";
 * deepEqual(oracleRunnersOf("go-json"), ["go"]);
 * deepEqual(oracleRunnersOf("tap", "mocha --reporter tap"), ["mocha", "tap"]);
 * deepEqual(oracleRunnersOf(null, "python -m unittest"), ["unittest"]);
 * deepEqual(oracleRunnersOf(null), []);
 * ```
 */
export function oracleRunnersOf(format: TestFormat | null, command?: string): OracleRunner[] {
  const out = new Set<OracleRunner>();
  if (format !== null) out.add(format === "go-json" ? "go" : format);
  const c = command ?? "";
  if (/\bmocha\b/.test(c)) out.add("mocha");
  if (/\bnode\b[^;&|]*--test\b/.test(c)) out.add("node");
  if (/\bjest\b/.test(c)) out.add("jest");
  if (/\bvitest\b/.test(c)) out.add("vitest");
  if (/\b(?:py\.test|pytest)\b/.test(c)) out.add("pytest");
  if (/\bunittest\b/.test(c)) out.add("unittest");
  if (/\bdeno\b[^;&|]*\btest\b/.test(c)) out.add("deno");
  if (/\bcargo\b[^;&|]*\b(?:test|nextest)\b/.test(c)) out.add("cargo");
  if (/\bgo\s+test\b/.test(c)) out.add("go");
  return ORACLE_RUNNERS.filter((r) => out.has(r));
}

const CONFIG_NAME =
  /^(?:package\.json|\.mocharc(?:\.(?:[cm]?js|jsonc?|ya?ml))?|jest\.config\.[a-z]+|(?:vitest|vite)\.(?:config|workspace)\.[a-z]+|\.?pytest\.(?:ini|toml)|pyproject\.toml|setup\.cfg|tox\.ini|Cargo\.toml|deno\.jsonc?)$/;

/**
 * The paths among `paths` whose texts `oracleSet` reads (`configs`): every
 * `package.json`, `.mocharc*`, `jest.config.*`, `vitest.config.*`,
 * `vite.config.*`, `pytest.ini`, `pytest.toml`, `pyproject.toml`, `setup.cfg`, `tox.ini`,
 * `Cargo.toml`, `deno.json(c)`, outside `node_modules/` and at most `depth`
 * directories deep (default 3: monorepo packages), sorted.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { oracleConfigPaths } from "./inputs.ts";
 * deepEqual(
 *   oracleConfigPaths(["src/a.js", "package.json", ".mocharc.yml", "node_modules/x/package.json", "pkgs/a/jest.config.js"]),
 *   [".mocharc.yml", "package.json", "pkgs/a/jest.config.js"],
 * );
 * ```
 */
export function oracleConfigPaths(paths: readonly string[], depth = 3): string[] {
  const out = new Set<string>();
  for (const p of paths) {
    const parts = p.split("/");
    if (parts.length - 1 > depth || parts.includes("node_modules")) continue;
    if (CONFIG_NAME.test(parts.at(-1)!)) out.add(p);
  }
  return [...out].sort();
}
