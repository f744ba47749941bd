/**
 * `checkPatchScope`: parse patch bytes, then `checkScope`; an unparsable patch
 * is a rejection, never an exception.
 *
 * @module
 */
import { DiffParseError } from "../diff/error.ts";
import { parseGitDiff } from "../diff/parse.ts";
import type { ParseGitDiffOptions } from "../diff/types.ts";
import type { CompileGlobsOptions } from "../glob/glob_set.ts";
import {
  checkScope,
  type CompiledScopeRules,
  type ScopeReport,
  type ScopeRules,
} from "./check_scope.ts";
import { SCOPE_VIOLATION_CODES } from "./codes.ts";

/** Options of {@link checkPatchScope}. */
export interface CheckPatchScopeOptions extends CompileGlobsOptions {
  /** Parser limits and scanner. */
  readonly parse?: ParseGitDiffOptions;
}

/**
 * Parses `bytes` strictly and checks its scope. A patch the parser refuses
 * yields a `reject` report with one `unparsable_patch` violation whose detail
 * carries the parser's code and line (`bad_hunk_header at line 7: ...`).
 * Fails closed: any unexpected parser failure is also `unparsable_patch`.
 *
 * @example
 * ```ts
 * import { checkPatchScope } from "./check_patch_scope.ts";
 * const bad = checkPatchScope(new TextEncoder().encode("@@ -1 +1 @@\n-a\n+b\n"), {});
 * if (bad.verdict !== "reject" || bad.violations[0]?.code !== "unparsable_patch") throw new Error();
 * const patch = "--- a/src/x.ts\n+++ b/src/x.ts\n@@ -1 +1 @@\n-a\n+b\n";
 * const ok = checkPatchScope(new TextEncoder().encode(patch), { allow: ["src/"] });
 * if (ok.verdict !== "accept" || ok.files.length !== 1) throw new Error("unexpected");
 * ```
 */
export function checkPatchScope(
  bytes: Uint8Array,
  rules: ScopeRules | CompiledScopeRules,
  options: CheckPatchScopeOptions = {},
): ScopeReport {
  let diff;
  try {
    diff = parseGitDiff(bytes, options.parse ?? {});
  } catch (error) {
    const detail = error instanceof DiffParseError
      ? `${error.code} at line ${error.line}: ${error.message}`
      : `internal parser failure: ${error instanceof Error ? error.message : String(error)}`;
    return {
      verdict: "reject",
      files: [],
      violations: [{ code: SCOPE_VIOLATION_CODES.unparsablePatch, path: "", detail }],
    };
  }
  const { parse: _parse, ...globOptions } = options;
  return checkScope(diff, rules, globOptions);
}
