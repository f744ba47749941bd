/**
 * `judgeAppliedPatch`: policy judged on what `git apply` actually did, not
 * only on the modes a patch states. A patch with no mode lines can retarget an
 * existing symlink or bump a submodule commit; git keeps the path's mode, and
 * only git's own result (`git diff --cached --raw`) shows it.
 *
 * @module
 */
import type { GitDiff } from "../diff/types.ts";
import type { RawDiffEntry } from "../diff/raw.ts";
import type { SensitiveClass } from "../lifecycle/codes.ts";
import { defaultPolicy, sensitiveDenied } from "../lifecycle/policy.ts";
import type { PolicySnapshot } from "../lifecycle/policy_types.ts";
import { type ClassifiableFile, classifyPatch } from "./classify.ts";
import { SCOPE_VIOLATION_CODES } from "./codes.ts";
import { type PatchViolation, scopeReasons } from "./judge_patch.ts";

/** The codes {@link judgeAppliedPatch} adds. */
export const APPLIED_VIOLATION_CODES = {
  /** A mode the patch states differs from the mode git's result has. */
  appliedModeMismatch: "applied_mode_mismatch",
  /** git changed a path the patch does not name. */
  appliedUnexpectedPath: "applied_unexpected_path",
  /** git's own account of the result could not be read. */
  appliedUnreadable: "applied_unreadable",
} as const;

const ABSENT = "000000";
const GITLINK = "160000";
const SYMLINK = "120000";

/** What {@link judgeAppliedPatch} concluded. */
export interface AppliedJudgement {
  /** `accept` only when `reasons` is empty. */
  readonly verdict: "accept" | "reject";
  /** What git's result violates. */
  readonly violations: readonly PatchViolation[];
  /** The sensitive classes of git's result (symlinks and executables as git made them). */
  readonly sensitive: readonly SensitiveClass[];
  /** The first class the policy denies, or null. */
  readonly denied: SensitiveClass | null;
  /** Each violation code once, then `policy_denied:<class>`. */
  readonly reasons: readonly string[];
}

/**
 * Judges git's result of applying `diff` (`applied`: the `--raw` entries
 * against the base; null when they could not be read, which rejects): every
 * mode the patch states must be git's; gitlinks are refused; the policy's
 * denied classes are judged on git's modes.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { parseGitDiff } from "../diff/parse.ts";
 * import { judgeAppliedPatch } from "./judge_applied.ts";
 * // No mode lines: the patch looks like a text edit of "link".
 * const diff = parseGitDiff(new TextEncoder().encode(
 *   "diff --git a/link b/link\n--- a/link\n+++ b/link\n@@ -1 +1 @@\n-t.txt\n+/etc/passwd\n",
 * ));
 * const z = "0".repeat(40);
 * const applied = [{ oldMode: "120000", newMode: "120000", oldId: z, newId: z, status: "M",
 *   path: "link", fromPath: null }];
 * deepEqual(judgeAppliedPatch(diff, applied).reasons, ["policy_denied:symlink"]);
 * ```
 */
export function judgeAppliedPatch(
  diff: GitDiff,
  applied: readonly RawDiffEntry[] | null,
  options: { readonly policy?: PolicySnapshot | null } = {},
): AppliedJudgement {
  const violations: PatchViolation[] = [];
  if (applied === null) {
    violations.push({
      code: APPLIED_VIOLATION_CODES.appliedUnreadable,
      path: "",
      detail: "git's account of the applied patch could not be read",
    });
    return finish(violations, [], null);
  }
  const byNew = new Map<string, GitDiff["files"][number]>();
  const byOld = new Map<string, GitDiff["files"][number]>();
  for (const f of diff.files) {
    if (f.newPath !== null) byNew.set(f.newPath, f);
    if (f.oldPath !== null) byOld.set(f.oldPath, f);
  }
  const classifiable: ClassifiableFile[] = [];
  for (const e of applied) {
    const file = e.newMode === ABSENT ? byOld.get(e.path) : byNew.get(e.path) ?? byOld.get(e.path);
    if (file === undefined) {
      violations.push({
        code: APPLIED_VIOLATION_CODES.appliedUnexpectedPath,
        path: e.path,
        detail: "git changed this path, but the patch does not name it",
      });
    } else {
      const stated = e.newMode === ABSENT ? null : file.newMode;
      const statedOld = e.oldMode === ABSENT ? null : file.oldMode;
      if (stated !== null && stated !== e.newMode) {
        violations.push({
          code: APPLIED_VIOLATION_CODES.appliedModeMismatch,
          path: e.path,
          detail: `the patch states mode ${stated}, git's result is ${e.newMode}`,
        });
      } else if (statedOld !== null && statedOld !== e.oldMode) {
        violations.push({
          code: APPLIED_VIOLATION_CODES.appliedModeMismatch,
          path: e.path,
          detail: `the patch states the old mode ${statedOld}, the base has ${e.oldMode}`,
        });
      }
    }
    if (e.oldMode === GITLINK || e.newMode === GITLINK) {
      violations.push({
        code: SCOPE_VIOLATION_CODES.gitlink,
        path: e.path,
        detail: "git's result changes a gitlink (submodule commit, mode 160000)",
      });
    }
    classifiable.push({
      oldPath: e.oldMode === ABSENT ? null : (e.fromPath ?? e.path),
      newPath: e.newMode === ABSENT ? null : e.path,
      newMode: e.newMode === ABSENT ? null : e.newMode,
      isSymlink: e.oldMode === SYMLINK || e.newMode === SYMLINK,
    });
  }
  const sensitive = classifyPatch(classifiable).sensitive;
  const policy = options.policy === undefined ? defaultPolicy() : options.policy;
  return finish(violations, sensitive, policy === null ? null : sensitiveDenied(policy, sensitive));
}

function finish(
  violations: readonly PatchViolation[],
  sensitive: readonly SensitiveClass[],
  denied: SensitiveClass | null,
): AppliedJudgement {
  const reasons = scopeReasons(violations, denied);
  return {
    verdict: reasons.length === 0 ? "accept" : "reject",
    violations,
    sensitive,
    denied,
    reasons,
  };
}
