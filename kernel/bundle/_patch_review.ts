/**
 * The bundle's candidate patch under the WorkUnit's authority: the same scope
 * judgement as `vouch scope`, `verify` and `run`, plus the required added lines.
 *
 * @module
 */
import { judgePatch, SCOPE_VIOLATION_CODES } from "../scope/mod.ts";
import { latin1OfBytes, latin1OfUtf8 } from "../text/utf8.ts";
import type { Reason } from "./_checks.ts";
import type { WorkUnit } from "./types.ts";

/** Judges the candidate `bytes` against `workUnit`, pushing what is wrong onto `reasons`. */
export function judgeBundlePatch(
  bytes: Uint8Array,
  workUnit: WorkUnit,
  requiredAdded: readonly string[],
  reasons: Reason[],
): void {
  // The same judgement as `vouch scope`, `verify` and `run`; the WorkUnit is the authority
  // (its lists exactly as given: an empty allow list allows nothing) and symlinks are refused.
  const judged = judgePatch(bytes, {
    allow: workUnit.constraints.allowed_paths,
    forbid: workUnit.constraints.forbidden_paths,
    write: workUnit.permissions.filesystem_write,
    rejectSymlinks: true,
  }, { policy: null });
  const diff = judged.diff;
  if (diff === null) {
    reasons.push({
      code: "patch_unparsable",
      detail: judged.parseError?.message ?? "the patch did not parse",
      subcode: judged.parseError?.code ?? SCOPE_VIOLATION_CODES.unparsablePatch,
    });
    return;
  }
  if (diff.files.length === 0) {
    reasons.push({ code: "patch_empty", detail: "the patch touches no file" });
    return;
  }
  for (const v of judged.violations) {
    // A binary change without its data is not about authority: the patch cannot be applied.
    const code = v.code === SCOPE_VIOLATION_CODES.binaryWithoutData
      ? "patch_incomplete"
      : "scope_violation";
    reasons.push({ code, detail: v.detail, path: v.path, subcode: v.code });
  }
  const added = new Set<string>();
  for (const file of diff.files) {
    for (const hunk of file.hunks) {
      for (const line of hunk.lines()) {
        if (line.kind === "added") added.add(latin1OfBytes(line.content));
      }
    }
  }
  for (const text of requiredAdded) {
    if (!added.has(latin1OfUtf8(text))) {
      reasons.push({
        code: "required_added_line_missing",
        detail: `no added line equals ${JSON.stringify(text)}`,
      });
    }
  }
}
