/**
 * Whether a changed `package.json` changes what gets installed: a patch that
 * edits only its other fields (a mocha or eslint config, scripts that are not
 * install hooks) needs no new install, so it is not a dependency change. The
 * same for a `pyproject.toml` whose edit stays inside tool sections no
 * installer reads (`[tool.pytest.ini_options]`, `[tool.coverage.*]`, linters).
 *
 * @module
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { gitChecked } from "../git/git_checked.ts";

/** package.json fields that decide what `npm install` (pnpm, yarn) puts into node_modules. */
export const INSTALL_FIELDS: readonly string[] = [
  "dependencies",
  "devDependencies",
  "peerDependencies",
  "peerDependenciesMeta",
  "optionalDependencies",
  "bundleDependencies",
  "bundledDependencies",
  "dependenciesMeta",
  "overrides",
  "resolutions",
  "workspaces",
  "packageManager",
  "pnpm",
];
const INSTALL_SCRIPTS = ["preinstall", "install", "postinstall", "prepare"];

function installView(text: string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const o = value as Record<string, unknown>;
  const scripts = typeof o.scripts === "object" && o.scripts !== null
    ? Object.fromEntries(
      INSTALL_SCRIPTS.map((k) => [k, (o.scripts as Record<string, unknown>)[k] ?? null]),
    )
    : null;
  return JSON.stringify([...INSTALL_FIELDS.map((k) => o[k] ?? null), scripts]);
}

/** `[tool.X]` tables of pyproject.toml that no installer (pip, uv, poetry, pdm, hatch) reads. */
const NON_INSTALL_TOOLS = [
  "pytest",
  "tox",
  "coverage",
  "ruff",
  "black",
  "isort",
  "mypy",
  "pyright",
  "pylint",
  "codespell",
];
const TABLE_HEADER = /^\s*\[\[?\s*([A-Za-z0-9_."'-]+?)\s*\]\]?\s*(#.*)?$/;

/**
 * pyproject.toml without its non-install tool tables; null (a dependency
 * change, fail closed) when it holds a multi-line string, where a line that
 * looks like a table header need not be one.
 */
function pyprojectInstallView(text: string): string | null {
  if (text.includes('"""') || text.includes("'''")) return null;
  const kept: string[] = [];
  let skipping = false;
  for (const line of text.split("\n")) {
    const header = TABLE_HEADER.exec(line)?.[1];
    if (header !== undefined) {
      const name = header.replaceAll(/["' ]/g, "");
      skipping = NON_INSTALL_TOOLS.some((t) =>
        name === `tool.${t}` || name.startsWith(`tool.${t}.`)
      );
    }
    if (!skipping) kept.push(line);
  }
  return kept.join("\n");
}

function viewOf(path: string, text: string): string | null {
  return path === "pyproject.toml" || path.endsWith("/pyproject.toml")
    ? pyprojectInstallView(text)
    : installView(text);
}

const isConfigManifest = (path: string) =>
  ["package.json", "pyproject.toml"].some((n) => path === n || path.endsWith(`/${n}`));

/**
 * Drops from `changed` every `package.json` whose install fields (and install
 * scripts) are the same in `tree` as at its `HEAD`, and every `pyproject.toml`
 * the same there but for its non-install tool tables, when it does differ from
 * `HEAD` (so a tree whose `HEAD` already holds the change stays a change).
 * Fails closed: anything unreadable or unparsable stays in the list.
 *
 * @example
 * ```ts ignore
 * import { withoutConfigOnlyManifests } from "./_manifest_fields.ts";
 * await withoutConfigOnlyManifests(tree, ["package.json", "src/a.js"]); // ["src/a.js"] for a mocha-config edit
 * ```
 */
export async function withoutConfigOnlyManifests(
  tree: string,
  changed: readonly string[],
): Promise<string[]> {
  const out: string[] = [];
  for (const path of changed) {
    if (!isConfigManifest(path)) {
      out.push(path);
      continue;
    }
    try {
      const before = (await gitChecked(["show", `HEAD:${path}`], { cwd: tree })).stdout.head;
      const after = await readFile(join(tree, path), "utf8");
      const a = viewOf(path, before);
      const b = viewOf(path, after);
      if (before !== after && a !== null && a === b) continue;
    } catch {
      // unreadable at HEAD (a new package.json) or in the tree: a dependency change
    }
    out.push(path);
  }
  return out;
}
