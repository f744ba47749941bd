/**
 * The supervisor's judgement of a patch's shape, before anything runs: strict
 * parse, scope check (allowed / forbidden / protected paths, confinement,
 * symlinks), sensitive-path classification, and writes the worker made outside
 * its worktree. Everything here is derived from bytes vouch extracted itself;
 * nothing the worker said is an input.
 *
 * @module
 */
import { tryParseGitDiff } from "../../kernel/diff/parse.ts";
import type { GitDiff } from "../../kernel/diff/types.ts";
import type { SensitiveClass } from "../../kernel/lifecycle/codes.ts";
import { checkScope } from "../../kernel/scope/check_scope.ts";
import { classifyPatch, type PatchClassification } from "./classify.ts";

/** The path rules a patch is judged by. */
export interface PatchRules {
  /** Globs every changed path must match (empty: anything not forbidden). */
  readonly allow: readonly string[];
  /** Globs no changed path may match. */
  readonly forbid: readonly string[];
  /** The contract's protected globs (the tests that define done): touching one is a violation. */
  readonly protect: readonly string[];
}

/** One reason a patch is rejected before verification. */
export interface PatchViolation {
  /** Stable code: a scope code, `protected_path`, `outside_worktree_write` or `unparsable_patch`. */
  readonly code: string;
  /** The path concerned ("" when not about one path). */
  readonly path: string;
  /** Human-readable detail. */
  readonly detail: string;
}

/** What the supervisor concluded about a patch. */
export interface PatchInspection {
  /** `accept` only when there is no violation. */
  readonly verdict: "accept" | "reject";
  /** The parsed diff, or null when it did not parse. */
  readonly diff: GitDiff | null;
  /** Changed paths (new path, or old path for deletions). */
  readonly files: readonly string[];
  /** Every violation. */
  readonly violations: readonly PatchViolation[];
  /** Sensitive classes, per file and overall. */
  readonly classification: PatchClassification;
}

/**
 * Parses and judges a patch.
 *
 * @example
 * ```ts
 * import { inspectPatch } from "./inspect_patch.ts";
 * const patch = new TextEncoder().encode([
 *   "diff --git a/.github/workflows/ci.yml b/.github/workflows/ci.yml",
 *   "new file mode 100644",
 *   "index 0000000..e69de29",
 *   "--- /dev/null",
 *   "+++ b/.github/workflows/ci.yml",
 *   "@@ -0,0 +1 @@",
 *   "+on: push",
 *   "",
 * ].join("\n"));
 * const r = inspectPatch(patch, { allow: [], forbid: [".github/**"], protect: [] }, []);
 * if (r.verdict !== "reject" || !r.classification.sensitive.includes("ci_workflow")) {
 *   throw new Error(JSON.stringify(r.violations));
 * }
 * ```
 */
export function inspectPatch(
  bytes: Uint8Array,
  rules: PatchRules,
  outsideWrites: readonly string[],
): PatchInspection {
  const violations: PatchViolation[] = outsideWrites.map((path) => ({
    code: "outside_worktree_write",
    path,
    detail: "the backend changed a path outside its worktree",
  }));
  const parsed = tryParseGitDiff(bytes);
  if (!parsed.ok) {
    violations.push({
      code: "unparsable_patch",
      path: "",
      detail: `${parsed.error.code}: ${parsed.error.message}`,
    });
    return {
      verdict: "reject",
      diff: null,
      files: [],
      violations,
      classification: { files: [], sensitive: [] },
    };
  }
  const diff = parsed.diff;
  const scope = checkScope(diff, {
    ...(rules.allow.length > 0 ? { allow: rules.allow } : {}),
    ...(rules.forbid.length > 0 ? { forbid: rules.forbid } : {}),
  });
  for (const v of scope.violations) violations.push(v);
  if (rules.protect.length > 0) {
    const protectedScope = checkScope(diff, { forbid: rules.protect });
    for (const v of protectedScope.violations) {
      if (v.code === "forbidden") {
        violations.push({
          code: "protected_path",
          path: v.path,
          detail: "the contract protects this path (it defines done); the patch may not change it",
        });
      }
    }
  }
  const classification = classifyPatch(diff.files);
  return {
    verdict: violations.length === 0 ? "accept" : "reject",
    diff,
    files: classification.files.map((f) => f.path),
    violations,
    classification,
  };
}

/** The sensitive classes that keep a patch from being verified without a setup step. */
export const DEPENDENCY_CLASSES: readonly SensitiveClass[] = ["dependency_manifest", "lockfile"];
