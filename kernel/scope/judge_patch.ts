/**
 * `judgePatch`: the one judgement of a patch's shape, before anything runs,
 * used by `vouch scope`, `verify`, `run` and `evaluate`: strict parse, scope
 * (confinement, allowed / forbidden / write / protected paths, symlinks,
 * gitlinks), sensitive-path classification, the policy's denied classes, an
 * empty patch, and writes the worker made outside its worktree. Decided only
 * from bytes vouch holds itself; nothing a worker said is an input.
 *
 * @module
 */
import { DiffParseError } from "../diff/error.ts";
import { parseGitDiff } from "../diff/parse.ts";
import type { GitDiff, ParseGitDiffOptions } from "../diff/types.ts";
import type { CompileGlobsOptions } from "../glob/glob_set.ts";
import type { SensitiveClass } from "../lifecycle/codes.ts";
import { defaultPolicy, sensitiveDenied } from "../lifecycle/policy.ts";
import type { PolicySnapshot } from "../lifecycle/policy_types.ts";
import {
  checkScope,
  type CompiledScopeRules,
  type ScopeFileSummary,
  type ScopeRules,
  summarizeDiffFile,
} from "./check_scope.ts";
import { classifyPatch, type PatchClassification } from "./classify.ts";
import { SCOPE_VIOLATION_CODES } from "./codes.ts";

/**
 * The path rules a patch is judged by: {@link ScopeRules} (an omitted list
 * imposes nothing, an empty list matches nothing) plus the contract's
 * protected globs.
 */
export interface PatchRules extends ScopeRules {
  /** The contract's protected globs (the tests that define done): touching one is a violation. */
  readonly protect?: readonly string[];
}

/**
 * Builds {@link PatchRules} from command-line style lists, where an empty
 * allow list means "no limit" (as `--allow` and `run`/`verify` read it).
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { patchRulesFromLists } from "./judge_patch.ts";
 * deepEqual(patchRulesFromLists({ allow: [], forbid: [".git/**"], protect: [] }), {
 *   forbid: [".git/**"], protect: [],
 * });
 * ```
 */
export function patchRulesFromLists(lists: {
  readonly allow: readonly string[];
  readonly forbid: readonly string[];
  readonly protect: readonly string[];
}): PatchRules {
  return {
    ...(lists.allow.length > 0 ? { allow: lists.allow } : {}),
    forbid: lists.forbid,
    protect: lists.protect,
  };
}

/** The codes {@link judgePatch} adds to the {@link SCOPE_VIOLATION_CODES}. */
export const PATCH_VIOLATION_CODES = {
  /** The contract protects this path. */
  protectedPath: "protected_path",
  /** The worker wrote outside its worktree (seen by the outside-write watch). */
  outsideWorktreeWrite: "outside_worktree_write",
  /** The patch changes no file (and nothing was written outside the worktree). */
  emptyPatch: "empty_patch",
} as const;

/** One reason a patch is rejected before verification. */
export interface PatchViolation {
  /** Stable code: a {@link SCOPE_VIOLATION_CODES} or {@link PATCH_VIOLATION_CODES} value. */
  readonly code: string;
  /** The path concerned ("" when not about one path). */
  readonly path: string;
  /** Human-readable detail. */
  readonly detail: string;
}

/** Options of {@link judgePatch}. */
export interface JudgePatchOptions extends CompileGlobsOptions {
  /** Paths the worker changed outside its worktree (each a violation). @default [] */
  readonly outsideWrites?: readonly string[];
  /**
   * The policy whose `deny` classes reject the patch (`policy_denied:<class>`
   * in `reasons`); null for none. @default defaultPolicy()
   */
  readonly policy?: PolicySnapshot | null;
  /** Accept a patch that changes nothing. @default false */
  readonly allowEmpty?: boolean;
  /** Parser limits and scanner. */
  readonly parse?: ParseGitDiffOptions;
  /**
   * The diff of `bytes`, already parsed by the caller (the driver parses a
   * round's patch once): judged as given instead of parsed again.
   */
  readonly diff?: GitDiff;
}

/** Why the parser refused the bytes. */
export interface PatchParseFailure {
  /** Why, as a stable code. */
  readonly code: string;
  /** The patch line where parsing failed (0 for an internal failure). */
  readonly line: number;
  /** Why, for humans. */
  readonly message: string;
}

/** What {@link judgePatch} concluded about a patch. */
export interface PatchJudgement {
  /** `accept` only when `reasons` is empty (no violation, no denied class). */
  readonly verdict: "accept" | "reject";
  /**
   * The verdict of the violations alone, without the policy: what a caller
   * whose kernel applies its own policy (`run`) reports as the scope check.
   */
  readonly scope: "accept" | "reject";
  /** The parsed diff, or null when it did not parse. */
  readonly diff: GitDiff | null;
  /** The parser's refusal, or null. */
  readonly parseError: PatchParseFailure | null;
  /** Changed paths (new path, or old path for deletions), in patch order. */
  readonly files: readonly string[];
  /** One summary per file section. */
  readonly summaries: readonly ScopeFileSummary[];
  /** Every violation. */
  readonly violations: readonly PatchViolation[];
  /** Sensitive classes, per file and overall. */
  readonly classification: PatchClassification;
  /** The first sensitive class the policy denies, or null. */
  readonly denied: SensitiveClass | null;
  /** Stable reason codes: each violation code once, then `policy_denied:<class>`. */
  readonly reasons: readonly string[];
}

/**
 * Parses and judges a patch. Never throws on any bytes: an unparsable patch
 * is an `unparsable_patch` violation whose detail is `<parser code> at line N: ...`.
 *
 * @example
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * import { judgePatch } from "./judge_patch.ts";
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
 * const r = judgePatch(patch, { forbid: [".github/**"] });
 * equal(r.verdict, "reject");
 * deepEqual(r.reasons, ["forbidden"]);
 * deepEqual(r.classification.sensitive, ["ci_workflow"]);
 * deepEqual(judgePatch(new Uint8Array(), {}).reasons, ["empty_patch"]);
 * ```
 */
export function judgePatch(
  bytes: Uint8Array,
  rules: PatchRules | CompiledScopeRules,
  options: JudgePatchOptions = {},
): PatchJudgement {
  const violations: PatchViolation[] = (options.outsideWrites ?? []).map((path) => ({
    code: PATCH_VIOLATION_CODES.outsideWorktreeWrite,
    path,
    detail: "the backend changed a path outside its worktree",
  }));
  let diff: GitDiff;
  try {
    diff = options.diff ?? parseGitDiff(bytes, options.parse ?? {});
  } catch (error) {
    const failure: PatchParseFailure = error instanceof DiffParseError
      ? { code: error.code, line: error.line, message: error.message }
      : {
        code: "internal",
        line: 0,
        message: `internal parser failure: ${error instanceof Error ? error.message : error}`,
      };
    violations.push({
      code: SCOPE_VIOLATION_CODES.unparsablePatch,
      path: "",
      detail: `${failure.code} at line ${failure.line}: ${failure.message}`,
    });
    return finish(null, failure, violations, { files: [], sensitive: [] }, null);
  }
  const { parse: _p, outsideWrites: _o, policy: _y, allowEmpty: _e, ...globOptions } = options;
  const scopeRules: ScopeRules | CompiledScopeRules = "compiled" in rules
    ? rules
    : withoutProtect(rules);
  for (const v of checkScope(diff, scopeRules, globOptions).violations) violations.push(v);
  const protect = "compiled" in rules ? undefined : rules.protect;
  if (protect !== undefined && protect.length > 0) {
    for (const v of checkScope(diff, { forbid: protect }, globOptions).violations) {
      if (v.code !== SCOPE_VIOLATION_CODES.forbidden) continue;
      violations.push({
        code: PATCH_VIOLATION_CODES.protectedPath,
        path: v.path,
        detail: "the contract protects this path (it defines done); the patch may not change it",
      });
    }
  }
  if (diff.files.length === 0 && violations.length === 0 && options.allowEmpty !== true) {
    violations.push({
      code: PATCH_VIOLATION_CODES.emptyPatch,
      path: "",
      detail: "the patch changes no file",
    });
  }
  const classification = classifyPatch(diff.files);
  const policy = options.policy === undefined ? defaultPolicy() : options.policy;
  const denied = policy === null ? null : sensitiveDenied(policy, classification.sensitive);
  return finish(diff, null, violations, classification, denied);
}

function withoutProtect(rules: PatchRules): ScopeRules {
  const { protect: _protect, ...scope } = rules;
  return scope;
}

function finish(
  diff: GitDiff | null,
  parseError: PatchParseFailure | null,
  violations: readonly PatchViolation[],
  classification: PatchClassification,
  denied: SensitiveClass | null,
): PatchJudgement {
  const reasons = scopeReasons(violations, denied);
  return {
    verdict: reasons.length === 0 ? "accept" : "reject",
    scope: violations.length === 0 ? "accept" : "reject",
    diff,
    parseError,
    files: classification.files.map((f) => f.path),
    summaries: diff === null ? [] : diff.files.map(summarizeDiffFile),
    violations,
    classification,
    denied,
    reasons,
  };
}

/**
 * A scope judgement's reasons: each violation code once, in order, then
 * `policy_denied:<class>` when the policy denies a sensitive class.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * import { scopeReasons } from "./judge_patch.ts";
 * const v = { code: "forbidden_path", path: "a", detail: "" } as const;
 * deepEqual(scopeReasons([v, v], "secrets"), ["forbidden_path", "policy_denied:secrets"]);
 * ```
 */
export function scopeReasons(
  violations: readonly PatchViolation[],
  denied: SensitiveClass | null,
): string[] {
  const reasons: string[] = [...new Set(violations.map((v) => v.code))];
  if (denied !== null) reasons.push(`policy_denied:${denied}`);
  return reasons;
}
