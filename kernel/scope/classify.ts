/**
 * Sensitive-path classification of a patch's changed files, for policy: CI
 * workflows, dependency manifests, lockfiles, secrets-looking files,
 * executables and symlinks. Decided from the parsed diff (paths and modes the
 * verifier re-derived), never from anything the worker said.
 *
 * @module
 */
import { SENSITIVE_CLASSES, type SensitiveClass } from "../lifecycle/codes.ts";

/** The facts about one changed file the classifier needs (a subset of `DiffFile`). */
export interface ClassifiableFile {
  /** Old path (null when added). */
  readonly oldPath: string | null;
  /** New path (null when deleted). */
  readonly newPath: string | null;
  /** New mode (`100755`, `120000`, ...) or null. */
  readonly newMode: string | null;
  /** Whether the diff says the file is (or becomes) a symlink. */
  readonly isSymlink: boolean;
}

const CI_WORKFLOW: readonly RegExp[] = [
  /^\.github\/workflows\//,
  /^\.github\/actions\//,
  /^\.gitlab-ci\.ya?ml$/,
  /^\.gitlab\/ci\//,
  /^\.circleci\//,
  /^\.buildkite\//,
  /^\.travis\.ya?ml$/,
  /^azure-pipelines\.ya?ml$/,
  /(^|\/)Jenkinsfile$/,
  /^\.drone\.ya?ml$/,
  /^bitbucket-pipelines\.ya?ml$/,
];

const MANIFEST_NAMES = new Set([
  "package.json",
  "deno.json",
  "deno.jsonc",
  "import_map.json",
  "pyproject.toml",
  "setup.py",
  "setup.cfg",
  "Pipfile",
  "Cargo.toml",
  "go.mod",
  "Gemfile",
  "composer.json",
  "pom.xml",
  "build.gradle",
  "build.gradle.kts",
  "settings.gradle",
  "mix.exs",
  "pubspec.yaml",
  "Package.swift",
  "vcpkg.json",
  "conanfile.txt",
]);

const LOCKFILE_NAMES = new Set([
  "package-lock.json",
  "npm-shrinkwrap.json",
  "yarn.lock",
  "pnpm-lock.yaml",
  "bun.lockb",
  "bun.lock",
  "deno.lock",
  "Cargo.lock",
  "go.sum",
  "poetry.lock",
  "Pipfile.lock",
  "uv.lock",
  "pdm.lock",
  "Gemfile.lock",
  "composer.lock",
  "mix.lock",
  "pubspec.lock",
  "Package.resolved",
  "gradle.lockfile",
]);

const SECRET_NAMES: readonly RegExp[] = [
  /^\.env(\..*)?$/,
  /^\.npmrc$/,
  /^\.pypirc$/,
  /^\.netrc$/,
  /^\.git-credentials$/,
  /^id_(rsa|dsa|ecdsa|ed25519)(\.pub)?$/,
  /\.(pem|key|p12|pfx|jks|keystore|asc|gpg)$/i,
  /^credentials(\..*)?$/i,
  /secret/i,
  /^\.htpasswd$/,
];

const SECRET_DIRS: readonly RegExp[] = [/(^|\/)\.ssh\//, /(^|\/)\.aws\//, /(^|\/)\.gnupg\//];

function basename(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? path : path.slice(i + 1);
}

/**
 * The sensitive classes of one path (by name only).
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { classifyPath } from "./classify.ts";
 * deepEqual(classifyPath("web/package-lock.json"), ["lockfile"]);
 * deepEqual(classifyPath("src/a.ts"), []);
 * ```
 */
export function classifyPath(path: string): SensitiveClass[] {
  const out: SensitiveClass[] = [];
  const name = basename(path);
  if (CI_WORKFLOW.some((r) => r.test(path))) out.push("ci_workflow");
  if (MANIFEST_NAMES.has(name) || /^requirements.*\.txt$/.test(name) || /\.csproj$/.test(name)) {
    out.push("dependency_manifest");
  }
  if (LOCKFILE_NAMES.has(name)) out.push("lockfile");
  if (SECRET_NAMES.some((r) => r.test(name)) || SECRET_DIRS.some((r) => r.test(path))) {
    out.push("secrets");
  }
  return out;
}

/**
 * The sensitive classes of one changed file: its old and new paths by name,
 * plus `executable` when it ends up with mode 100755 and `symlink` when it is
 * or becomes a symlink.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { classifyFile } from "./classify.ts";
 * const classes = classifyFile({
 *   oldPath: null, newPath: ".github/workflows/ci.yml", newMode: "100755", isSymlink: false,
 * });
 * deepEqual(classes, ["ci_workflow", "executable"]);
 * ```
 */
export function classifyFile(file: ClassifiableFile): SensitiveClass[] {
  const set = new Set<SensitiveClass>();
  for (const path of [file.oldPath, file.newPath]) {
    if (path !== null) { for (const c of classifyPath(path)) set.add(c); }
  }
  if (file.newMode === "100755") set.add("executable");
  if (file.isSymlink || file.newMode === "120000") set.add("symlink");
  return [...set];
}

/** A changed file with its classes. */
export interface ClassifiedFile {
  /** The path (new path, or old path for a deletion). */
  readonly path: string;
  /** Its classes (empty when not sensitive). */
  readonly classes: readonly SensitiveClass[];
}

/** The classification of a whole patch. */
export interface PatchClassification {
  /** Per changed file. */
  readonly files: readonly ClassifiedFile[];
  /** The union of every file's classes, in a fixed order. */
  readonly sensitive: readonly SensitiveClass[];
}

/**
 * Classifies every changed file of a patch.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { classifyPatch } from "./classify.ts";
 * const c = classifyPatch([
 *   { oldPath: "a.ts", newPath: "a.ts", newMode: null, isSymlink: false },
 *   { oldPath: null, newPath: "package-lock.json", newMode: "100644", isSymlink: false },
 * ]);
 * deepEqual(c.sensitive, ["lockfile"]);
 * ```
 */
export function classifyPatch(files: readonly ClassifiableFile[]): PatchClassification {
  const classified: ClassifiedFile[] = [];
  const union = new Set<SensitiveClass>();
  for (const f of files) {
    const classes = classifyFile(f);
    for (const c of classes) union.add(c);
    classified.push({ path: f.newPath ?? f.oldPath ?? "", classes });
  }
  return { files: classified, sensitive: SENSITIVE_CLASSES.filter((c) => union.has(c)) };
}
