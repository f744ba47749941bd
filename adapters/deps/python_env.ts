/**
 * Python virtualenvs copied into a clean tree whose editable installs
 * (`pip install -e .`, `uv pip install -e .`) point back into the user's
 * checkout: the `.pth` file (or setuptools' `__editable___*_finder.py`) names
 * an absolute path the sandbox does not show, and the tests fail with
 * `ModuleNotFoundError`. Found from the failing output plus the tree's venv;
 * said with the fix.
 *
 * @module
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";

const IMPORT_FAILED = /ModuleNotFoundError|No module named|ImportError/;
const VENV_DIRS = [".venv", "venv"];
const MAX_FILE = 256 * 1024;

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function small(path: string): string | null {
  try {
    if (statSync(path).size > MAX_FILE) return null;
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

/**
 * Absolute paths outside `tree` that the venv's editable installs put on `sys.path`.
 * `hostVenvs` names venvs the sandbox shows inside the tree but that live
 * elsewhere on the host (the user's own `.venv`, bound read-only in place):
 * their files are read there.
 */
export function editableTargets(
  tree: string,
  hostVenvs: readonly string[] = [],
): { file: string; target: string }[] {
  const out: { file: string; target: string }[] = [];
  const venvs = [
    ...VENV_DIRS.map((v) => ({ label: v, dir: join(tree, v) })),
    ...hostVenvs.map((dir) => ({ label: basename(dir), dir })),
  ];
  for (const { label: venv, dir } of venvs) {
    for (const lib of list(join(dir, "lib")).filter((n) => n.startsWith("python"))) {
      const site = join(venv, "lib", lib, "site-packages");
      for (const name of list(join(dirname(dir), site))) {
        const editable = name.endsWith(".pth") ||
          (name.startsWith("__editable__") && name.endsWith("_finder.py"));
        if (!editable) continue;
        const text = small(join(dirname(dir), site, name)) ?? "";
        const paths = name.endsWith(".pth")
          ? text.split("\n").map((l) => l.trim()).filter((l) => l.startsWith("/"))
          : [...text.matchAll(/['"](\/[^'"\n]+)['"]/g)].map((m) => m[1]!);
        for (const target of paths) {
          if (target === tree || target.startsWith(tree + "/")) continue;
          out.push({ file: join(site, name), target });
          if (out.length >= 5) return out;
        }
      }
    }
  }
  return out;
}

/**
 * The sentence for an import failure caused by an editable install pointing
 * outside the tree, or null (`hostVenvs`: as for {@linkcode editableTargets}).
 *
 * @example
 * ```ts
 * import { basename, dirname, join } from "node:path";
 * import { tmpdir } from "node:os";
 * import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { match } from "node:assert/strict";
 * import { editableInstallHint } from "./python_env.ts";
 * const tree = mkdtempSync(join(tmpdir(), "vouch-"));
 * const site = `${tree}/.venv/lib/python3.11/site-packages`;
 * mkdirSync(site, { recursive: true });
 * writeFileSync(`${site}/__editable__.pkg-0.1.pth`, "/home/ann/pkg/src\n");
 * const hint = editableInstallHint("ModuleNotFoundError: No module named 'pkg'", tree);
 * match(hint ?? "", /points to \/home\/ann\/pkg\/src, outside the clean tree/);
 * rmSync(tree, { recursive: true, force: true });
 * ```
 */
export function editableInstallHint(
  output: string,
  tree: string,
  hostVenvs: readonly string[] = [],
): string | null {
  if (!IMPORT_FAILED.test(output)) return null;
  const found = editableTargets(tree, hostVenvs);
  if (found.length === 0) return null;
  const first = found[0]!;
  return `the virtualenv's editable install (${first.file}) points to ${first.target}, outside ` +
    `the clean tree (your checkout is not visible in the sandbox): import the tree's own ` +
    `sources instead (e.g. --verify "PYTHONPATH=src python -m pytest", or pytest's ` +
    `pythonpath = src), or install the package in the contract's setup; see docs/recipes.md`;
}

/**
 * The host directories of the venvs a bwrap profile shows inside the tree
 * without copying them (dependency layers and whole views named `.venv` or
 * `venv`), for {@linkcode editableInstallHint}.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { hostVenvsOf } from "./python_env.ts";
 * deepEqual(hostVenvsOf({
 *   layers: [{ path: "/wt/.venv", binds: [{ source: "/repo/.venv/lib", path: "/wt/.venv/lib" }] }],
 *   views: [{ source: "/repo/node_modules", path: "/wt/node_modules" }],
 * }), ["/repo/.venv"]);
 * ```
 */
export function hostVenvsOf(profile: {
  readonly layers?: readonly {
    readonly path: string;
    readonly binds: readonly { readonly source: string; readonly path: string }[];
  }[];
  readonly views?: readonly { readonly source: string; readonly path: string }[];
}): string[] {
  const named = (p: string) => VENV_DIRS.includes(basename(p));
  const out = new Set<string>();
  for (const l of profile.layers ?? []) {
    const first = l.binds[0];
    if (named(l.path) && first !== undefined) out.add(dirname(first.source));
  }
  for (const v of profile.views ?? []) if (named(v.path)) out.add(v.source);
  return [...out];
}
