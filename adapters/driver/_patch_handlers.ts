/**
 * The handlers of a round's patch: reading it from the task's patch source
 * (`extract_diff`) and the scope check (`check_scope`). The patch is parsed
 * once (by the source or the scope check) and its diff travels with the round
 * to the clean verification.
 *
 * @module
 */
import { sensitiveDenied } from "../../kernel/lifecycle/policy.ts";
import { judgePatch, patchRulesFromLists } from "../../kernel/scope/judge_patch.ts";
import { writeJson, writeRoundPatch } from "./_artefacts.ts";
import { effectFailed, type Handler, message } from "./_effects.ts";

/** `extract_diff`: the round's patch, read from its source, written and fed back. */
const extract: Handler<"extract_diff"> = async (run, action) => {
  const o = run.o;
  const round = run.currentRound();
  run.progress("validate", "extracting the real diff");
  let patch;
  try {
    patch = round === null ? null : await o.source.patch();
  } catch (error) {
    if (round !== null) round.extractFailed = true;
    await effectFailed(run, action.effectId, "extract_failed", message(error));
    return;
  }
  if (round === null || patch === null) {
    await effectFailed(run, action.effectId, "no_worktree", "the worktree is gone");
    return;
  }
  round.patch = patch.bytes;
  round.diff = patch.diff;
  round.patchDigest = patch.digest;
  round.files = [...patch.files];
  // Writes outside the worktree count as changes: they must reach the scope check.
  round.changes = patch.changes + run.outside.length;
  await writeRoundPatch(run, round.round, patch.bytes);
  await run.feed({
    kind: "patch_extracted",
    taskId: o.taskId,
    effectId: action.effectId,
    patchDigest: patch.digest,
    filesChanged: round.changes,
  });
};

/** `check_scope`: the round's patch judged against the task's rules (its diff kept for the verifier). */
const checkScope: Handler<"check_scope"> = async (run, action) => {
  const o = run.o;
  const round = run.currentRound();
  // The kernel applies its own policy to the sensitive classes, and extraction already
  // judged an empty round (empty_patch / backend_error_no_change): the scope leaves both out.
  const judgement = judgePatch(round?.patch ?? new Uint8Array(), patchRulesFromLists(o.rules), {
    outsideWrites: run.outside,
    policy: null,
    allowEmpty: true,
    ...(round !== null && round.diff !== null ? { diff: round.diff } : {}),
  });
  if (round !== null) round.diff = judgement.diff;
  const violations = judgement.violations.map((v) => `${v.code}:${v.path}`);
  const sensitive = [...judgement.classification.sensitive];
  if (round !== null) {
    round.violations = [...judgement.violations];
    round.sensitive = sensitive;
  }
  await writeJson(run, `round-${round?.round ?? 0}/inspection.json`, {
    verdict: judgement.verdict,
    files: judgement.summaries,
    violations: judgement.violations,
    classification: judgement.classification,
  });
  await run.feed({
    kind: "scope_checked",
    taskId: o.taskId,
    effectId: action.effectId,
    verdict: judgement.verdict,
    violations,
    sensitive,
  });
  if (round !== null && run.record?.reason === "policy_denied") {
    // Which class the kernel's policy denied, said the way `vouch scope` says it.
    round.denied = sensitiveDenied(run.record.policy ?? run.policy, sensitive);
  }
};

/** The handlers of the round's patch, by action kind. */
export const PATCH_HANDLERS: {
  readonly extract_diff: Handler<"extract_diff">;
  readonly check_scope: Handler<"check_scope">;
} = { extract_diff: extract, check_scope: checkScope };
