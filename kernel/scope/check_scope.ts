/**
 * `checkScope`: every path a parsed patch touches, judged against confinement
 * and the allowed / forbidden / write globs, with every violation reported.
 *
 * @module
 */
import type { DiffFile, DiffStatus, GitDiff } from "../diff/types.ts";
import { compileGlobs, type CompileGlobsOptions, type GlobSet } from "../glob/glob_set.ts";
import { confinePath } from "../paths/confine_path.ts";
import { pathKey } from "../paths/path_key.ts";
import { SCOPE_VIOLATION_CODES as V, type ScopeViolationCode } from "./codes.ts";

/**
 * What a patch may touch. Globs use gitignore semantics (`kernel/glob`).
 * An omitted list imposes nothing; an empty list matches nothing (so
 * `allow: []` rejects every path).
 */
export interface ScopeRules {
  /** Every observed path (old and new) must match one of these. */
  readonly allow?: readonly string[];
  /** No observed path may match these, raw or in `pathKey` form. Wins over `allow`. */
  readonly forbid?: readonly string[];
  /** Every path the patch writes (creates, changes, deletes, renames away) must match. */
  readonly write?: readonly string[];
  /** Report any symbolic link the patch touches (code `symlink`). Default false. */
  readonly rejectSymlinks?: boolean;
}

/** {@link ScopeRules} compiled once, for checking many patches. */
export interface CompiledScopeRules {
  /** Marks the compiled form. */
  readonly compiled: true;
  /** The allow set, or null when not restricted. */
  readonly allow: GlobSet | null;
  /** The forbid set over raw paths, or null. */
  readonly forbid: GlobSet | null;
  /** The forbid set over `pathKey` forms (patterns folded the same way), or null. */
  readonly forbidKeyed: GlobSet | null;
  /** The write set, or null when not restricted. */
  readonly write: GlobSet | null;
  /** Whether any symlink is a violation. */
  readonly rejectSymlinks: boolean;
}

/** One rule broken by one path. */
export interface ScopeViolation {
  /** Stable code (see {@link SCOPE_VIOLATION_CODES}). */
  readonly code: ScopeViolationCode;
  /** The path as the patch names it (empty for an unparsable patch). */
  readonly path: string;
  /** A short human explanation. */
  readonly detail: string;
}

/** One file of the patch, as reported by `vouch scope`. */
export interface ScopeFileSummary {
  /** Old name, or null for an added file. */
  readonly oldPath: string | null;
  /** New name, or null for a deleted file. */
  readonly newPath: string | null;
  /** How the file changes. */
  readonly status: DiffStatus;
  /** `+` lines. */
  readonly additions: number;
  /** `-` lines. */
  readonly deletions: number;
  /** Binary change. */
  readonly binary: boolean;
  /** Old mode, or null. */
  readonly oldMode: string | null;
  /** New mode, or null. */
  readonly newMode: string | null;
}

/** The verdict on a patch's paths. */
export interface ScopeReport {
  /** `accept` only when there is no violation at all. */
  readonly verdict: "accept" | "reject";
  /** One summary per file section, in patch order. */
  readonly files: readonly ScopeFileSummary[];
  /** Every violation found, in patch order, each (code, path) once. */
  readonly violations: readonly ScopeViolation[];
}

/**
 * Folds a glob the way {@link pathKey} folds a path, so a forbidden pattern
 * can be matched against `pathKey(path)`.
 *
 * @example
 * ```ts
 * import { globKey } from "./check_scope.ts";
 * if (globKey(".GitHub/**") !== ".github/**") throw new Error("unexpected");
 * ```
 */
export function globKey(pattern: string): string {
  return pathKey(pattern);
}

/**
 * Compiles {@link ScopeRules} once. Throws `GlobError` for a malformed glob.
 *
 * @example
 * ```ts
 * import { compileScopeRules } from "./check_scope.ts";
 * const rules = compileScopeRules({ allow: ["src/**"], forbid: [".github/"] });
 * if (rules.allow === null || rules.write !== null) throw new Error("unexpected");
 * ```
 */
export function compileScopeRules(
  rules: ScopeRules,
  options: CompileGlobsOptions = {},
): CompiledScopeRules {
  const compile = (list: readonly string[] | undefined): GlobSet | null =>
    list === undefined ? null : compileGlobs(list, options);
  return {
    compiled: true,
    allow: compile(rules.allow),
    forbid: compile(rules.forbid),
    forbidKeyed: compile(rules.forbid?.map(globKey)),
    write: compile(rules.write),
    rejectSymlinks: rules.rejectSymlinks ?? false,
  };
}

/**
 * Summarises one diff file for reports.
 *
 * @example
 * ```ts
 * import { summarizeDiffFile } from "./check_scope.ts";
 * import type { DiffFile } from "../diff/types.ts";
 * const file = { oldPath: null, newPath: "a", status: "added", additions: 1, deletions: 0,
 *   binary: false, oldMode: null, newMode: "100644" } as unknown as DiffFile;
 * if (summarizeDiffFile(file).newPath !== "a") throw new Error("unexpected");
 * ```
 */
export function summarizeDiffFile(file: DiffFile): ScopeFileSummary {
  return {
    oldPath: file.oldPath,
    newPath: file.newPath,
    status: file.status,
    additions: file.additions,
    deletions: file.deletions,
    binary: file.binary,
    oldMode: file.oldMode,
    newMode: file.newMode,
  };
}

const SYMLINK = "120000";
const GITLINK = "160000";

interface Blob {
  readonly path: string;
  readonly maySymlink: boolean;
}

/** Indices just past each directory of `s` (positions of '/'). */
function slashPositions(s: string): number[] {
  const out: number[] = [];
  for (let i = s.indexOf("/"); i >= 0; i = s.indexOf("/", i + 1)) out.push(i);
  return out;
}

/**
 * Checks every old and new path of `diff` against confinement and `rules`,
 * and returns every violation (never just the first):
 * - a confinement failure of any name (code from `confinePath`, bytes checked
 *   when the parser kept them);
 * - `forbidden` (raw or `pathKey` form; wins over allowed), `outside_allowed`,
 *   `not_writable` (only paths the patch writes: a copy's source is only read);
 * - `path_collision`: two names (or their leading directories) equal after
 *   NFC, case-fold and ignorable stripping; `duplicate_path`: two sections
 *   create or remove one path;
 * - `symlink_then_write` / `file_directory_conflict`: a path beneath another
 *   path the patch leaves (or found) as a symlink or file, judged on the whole
 *   patch's result as git does (deleting a link then creating a directory is fine);
 * - `symlinked_gitmodules`, `gitlink`, and `symlink` when `rejectSymlinks`;
 * - `binary_without_data`: a `Binary files ... differ` section (no content to apply).
 *
 * @example
 * ```ts
 * import { checkScope } from "./check_scope.ts";
 * import type { GitDiff } from "../diff/types.ts";
 * const diff = { files: [{ oldPath: null, newPath: ".github/workflows/x.yml", oldPathBytes: null,
 *   newPathBytes: null, status: "added", oldMode: null, newMode: "100644", isSymlink: false,
 *   isGitlink: false, additions: 1, deletions: 0, binary: false }] } as unknown as GitDiff;
 * const report = checkScope(diff, { allow: ["src/**"], forbid: [".github/"] });
 * if (report.verdict !== "reject") throw new Error("unexpected");
 * if (report.violations.map((v) => v.code).join() !== "forbidden,outside_allowed") throw new Error();
 * ```
 */
export function checkScope(
  diff: GitDiff,
  rules: ScopeRules | CompiledScopeRules,
  options: CompileGlobsOptions = {},
): ScopeReport {
  const compiled: CompiledScopeRules = "compiled" in rules
    ? rules
    : compileScopeRules(rules, options);
  const report = new ViolationList();
  const paths = collectPaths(diff, compiled, report);
  reportDuplicates(paths, report);
  reportWritesBeneath(paths, report);
  reportCollisions(paths.observed, report);
  reportGlobRules(paths.observed, compiled, report);
  return {
    verdict: report.violations.length === 0 ? "accept" : "reject",
    files: diff.files.map(summarizeDiffFile),
    violations: report.violations,
  };
}

/** The violations found so far, in order, each (code, path) once. */
class ViolationList {
  readonly violations: ScopeViolation[] = [];
  readonly #seen = new Set<string>();

  add(code: ScopeViolationCode, path: string, detail: string): void {
    const k = code + "\0" + path;
    if (this.#seen.has(k)) return;
    this.#seen.add(k);
    this.violations.push({ code, path, detail });
  }
}

/** What the patch does to which confined paths, gathered in one pass. */
interface PatchPaths {
  /** Every confined path, old and new, with whether the patch writes it. */
  readonly observed: Map<string, boolean>;
  /** `pathKey` -> the non-directory the patch leaves at that path. */
  readonly resultBlobs: Map<string, Blob>;
  /** `pathKey` -> the non-directory the patch finds at that path. */
  readonly preimageBlobs: Map<string, Blob>;
  /** Path -> how many sections create or change it. */
  readonly created: Map<string, number>;
  /** Path -> how many sections remove it (delete or rename away). */
  readonly removed: Map<string, number>;
  /** Per section: its confined old and new names (null when absent or refused). */
  readonly sections: { readonly old: string | null; readonly new: string | null }[];
}

/**
 * The per-section pass: confines each name (reporting what fails), records
 * the confined ones in {@link PatchPaths}, and reports what the section's
 * kind alone breaks.
 */
function collectPaths(
  diff: GitDiff,
  compiled: CompiledScopeRules,
  report: ViolationList,
): PatchPaths {
  const paths: PatchPaths = {
    observed: new Map(),
    resultBlobs: new Map(),
    preimageBlobs: new Map(),
    created: new Map(),
    removed: new Map(),
    sections: [],
  };
  for (const file of diff.files) {
    const oldSafe = confinedName(file.oldPath, file.oldPathBytes, report);
    const newSafe = confinedName(file.newPath, file.newPathBytes, report);
    paths.sections.push({ old: oldSafe, new: newSafe });
    if (oldSafe !== null) recordOldPath(paths, file, oldSafe);
    if (newSafe !== null) recordNewPath(paths, file, newSafe);
    reportSectionKind(file, newSafe, compiled, report);
  }
  return paths;
}

/** The confined form of one name, or null (absent, or refused and reported). */
function confinedName(
  name: string | null,
  bytes: Uint8Array | null | undefined,
  report: ViolationList,
): string | null {
  if (name === null) return null;
  const r = confinePath(bytes ?? name);
  if (r.ok) return r.path;
  report.add(r.code, name, r.detail);
  return null;
}

function recordOldPath(paths: PatchPaths, file: DiffFile, path: string): void {
  const { status } = file;
  const written = status !== "copied"; // a copy's source is only read
  paths.observed.set(path, (paths.observed.get(path) ?? false) || written);
  if (status === "deleted" || status === "renamed") {
    paths.removed.set(path, (paths.removed.get(path) ?? 0) + 1);
  }
  if (status !== "added") {
    paths.preimageBlobs.set(pathKey(path), {
      path,
      maySymlink: file.oldMode === SYMLINK || file.oldMode === null,
    });
  }
}

function recordNewPath(paths: PatchPaths, file: DiffFile, path: string): void {
  paths.observed.set(path, true);
  if (file.status === "deleted") return;
  paths.created.set(path, (paths.created.get(path) ?? 0) + 1);
  paths.resultBlobs.set(pathKey(path), {
    path,
    maySymlink: file.newMode === SYMLINK || file.newMode === null,
  });
}

/** Gitlinks, a symlinked `.gitmodules`, data-less binaries, and symlinks when refused. */
function reportSectionKind(
  file: DiffFile,
  newSafe: string | null,
  compiled: CompiledScopeRules,
  report: ViolationList,
): void {
  const shown = file.newPath ?? file.oldPath ?? "";
  if (file.isGitlink || file.oldMode === GITLINK || file.newMode === GITLINK) {
    report.add(V.gitlink, shown, "the patch changes a gitlink (submodule commit, mode 160000)");
  }
  const resultIsSymlink = file.status !== "deleted" &&
    (file.newMode === SYMLINK || (file.newMode === null && file.isSymlink));
  if (resultIsSymlink && newSafe !== null) {
    const base = newSafe.slice(newSafe.lastIndexOf("/") + 1);
    if (pathKey(base) === ".gitmodules") {
      report.add(V.symlinkedGitmodules, newSafe, ".gitmodules is a symbolic link");
    }
  }
  if (file.binaryKind === "differ") {
    report.add(
      V.binaryWithoutData,
      shown,
      "the patch says this binary file differs but carries no data (`Binary files ... differ`); " +
        "git apply refuses it, so it cannot be verified",
    );
  }
  if (
    compiled.rejectSymlinks &&
    (file.isSymlink || file.oldMode === SYMLINK || file.newMode === SYMLINK)
  ) {
    report.add(V.symlink, shown, "the patch touches a symbolic link (mode 120000)");
  }
}

/** Two sections creating, or two removing, one path. */
function reportDuplicates(paths: PatchPaths, report: ViolationList): void {
  for (const [path, count] of paths.created) {
    if (count > 1) {
      report.add(V.duplicatePath, path, `${count} file sections create or change this path`);
    }
  }
  for (const [path, count] of paths.removed) {
    if (count > 1) report.add(V.duplicatePath, path, `${count} file sections remove this path`);
  }
}

/** Paths beneath a non-directory (symlink or file) of the result or the preimage. */
function reportWritesBeneath(paths: PatchPaths, report: ViolationList): void {
  const beneath = (path: string, blobs: Map<string, Blob>, when: string): void => {
    const key = pathKey(path);
    for (const slash of slashPositions(key)) {
      const blob = blobs.get(key.slice(0, slash));
      if (blob === undefined) continue;
      if (blob.maySymlink) {
        report.add(
          V.symlinkThenWrite,
          path,
          `"${path}" is beneath "${blob.path}", which is (or may be) a symbolic link ${when}`,
        );
      } else {
        report.add(
          V.fileDirectoryConflict,
          path,
          `"${path}" is beneath "${blob.path}", which is a file ${when}`,
        );
      }
    }
  };
  for (const section of paths.sections) {
    if (section.old !== null) {
      beneath(section.old, paths.resultBlobs, "after the patch");
      beneath(section.old, paths.preimageBlobs, "before the patch");
    }
    if (section.new !== null) beneath(section.new, paths.resultBlobs, "after the patch");
  }
}

/** Names (and their leading directories) equal after NFC, case-fold and ignorable stripping. */
function reportCollisions(observed: ReadonlyMap<string, boolean>, report: ViolationList): void {
  const byKey = new Map<string, string>();
  for (const path of observed.keys()) {
    const key = pathKey(path);
    const keyCuts = [...slashPositions(key), key.length];
    const rawCuts = [...slashPositions(path), path.length];
    if (keyCuts.length !== rawCuts.length) {
      report.add(V.pathCollision, path, `"${path}" changes shape when folded`);
      continue;
    }
    for (let k = 0; k < keyCuts.length; k++) {
      const keyPrefix = key.slice(0, keyCuts[k]);
      const rawPrefix = path.slice(0, rawCuts[k]);
      const other = byKey.get(keyPrefix);
      if (other === undefined) byKey.set(keyPrefix, rawPrefix);
      else if (other !== rawPrefix) {
        report.add(
          V.pathCollision,
          path,
          `"${rawPrefix}" and "${other}" name the same file on case-insensitive or normalising filesystems`,
        );
        break;
      }
    }
  }
}

/** `forbidden` (raw or folded; wins over allowed), `outside_allowed`, `not_writable`. */
function reportGlobRules(
  observed: ReadonlyMap<string, boolean>,
  compiled: CompiledScopeRules,
  report: ViolationList,
): void {
  for (const [path, written] of observed) {
    if (
      compiled.forbid !== null &&
      (compiled.forbid.matches(path) || compiled.forbidKeyed!.matches(pathKey(path)))
    ) {
      report.add(V.forbidden, path, "matches a forbidden glob");
    }
    if (compiled.allow !== null && !compiled.allow.matches(path)) {
      report.add(V.outsideAllowed, path, "matches no allowed glob");
    }
    if (written && compiled.write !== null && !compiled.write.matches(path)) {
      report.add(V.notWritable, path, "the patch writes it, but it matches no write glob");
    }
  }
}
