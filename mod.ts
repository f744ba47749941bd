/**
 * vouch: makes "done" mean verified for AI coding agents. The kernel decides,
 * adapters act, and only a `VerifiedPatch` can be integrated.
 *
 * This entry point is the embedder's API, and only that: run a task in a
 * repository ({@link runInRepo}), verify a patch ({@link verifyPatchInRepo}),
 * evaluate a result bundle ({@link evaluateBundle}), inspect an event
 * log ({@link inspectLog}), check a {@link VerifiedPatch}
 * ({@link assertVerifiedPatch}) and the one error type ({@link VouchError}),
 * with their option and result types and the two ways to state what "done"
 * means ({@link contractFromCommand}, {@link loadContract}). Further entry
 * points: `./kernel` (the pure lifecycle reducer and verification primitives),
 * `./backends` (coding agents to pass to `runInRepo`), `./log` (the
 * hash-chained event log), `./batch` (grading many candidate patches:
 * `runBatch`, `mergeReports`, sealed reports), `./wasm` (the WebAssembly
 * scanner and matcher) and `./cli` (the command line). Each exports an
 * explicit list; everything else is internal and may change without notice;
 * `tests/api/exports.json` holds a snapshot of every exported name so the API
 * changes only on purpose.
 *
 * @example Verify a patch in a repository, then check the error type
 * ```ts
 * import { equal, ok } from "node:assert/strict";
 * import { execFileSync } from "node:child_process";
 * import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import {
 *   assertVerifiedPatch,
 *   contractFromCommand,
 *   isVouchError,
 *   loadOrCreateMacKey,
 *   verifyPatchInRepo,
 * } from "./mod.ts";
 *
 * const scratch = mkdtempSync(join(tmpdir(), "vouch-example-"));
 * const repo = join(scratch, "repo");
 * const git = (...args: string[]) => execFileSync("git", args, { cwd: repo });
 * execFileSync("git", ["init", "-q", repo]);
 * git("config", "user.email", "e@example.invalid");
 * git("config", "user.name", "e");
 * writeFileSync(join(repo, "answer.txt"), "41\n");
 * git("add", ".");
 * git("commit", "-qm", "init");
 *
 * // Done means: answer.txt says 42 (a one-check contract, as `--verify CMD` builds).
 * const contract = contractFromCommand("grep -qx 42 answer.txt", 30_000);
 * const env = { VOUCH_KEY_FILE: join(scratch, "key") };
 * const options = { dir: repo, contract, sandbox: "none", keyEnv: env } as const;
 * const patch = (text: string) =>
 *   new TextEncoder().encode(
 *     `diff --git a/answer.txt b/answer.txt\n--- a/answer.txt\n+++ b/answer.txt\n` +
 *       `@@ -1 +1 @@\n-41\n+${text}\n`,
 *   );
 *
 * const fixed = await verifyPatchInRepo({ ...options, patch: patch("42") });
 * equal(fixed.verdict, "verified");
 * ok(fixed.verifiedPatchPath?.endsWith("verified_patch.json"));
 *
 * // Before any consequential use (apply, merge, ship), the gate: the VerifiedPatch's MAC must
 * // verify under the repository's key and its diff must still match its digest.
 * const key = await loadOrCreateMacKey({ repoRoot: repo, env, create: false });
 * const verified = await assertVerifiedPatch(fixed.verifiedPatch, key);
 * equal(new TextDecoder().decode(verified.diff), new TextDecoder().decode(patch("42")));
 * // A look-alike (its JSON form, say) is refused: only the minted object passes.
 * const forged = await assertVerifiedPatch(JSON.parse(JSON.stringify(verified)), key)
 *   .catch((e: unknown) => e);
 * ok(isVouchError(forged));
 * equal(forged.code, "forged");
 * const wrong = await verifyPatchInRepo({ ...options, patch: patch("43") });
 * equal(wrong.verdict, "rejected");
 * equal(wrong.verifiedPatch, null);
 *
 * // Vouch's refusals are VouchErrors with a stable snake_case code.
 * const error = await verifyPatchInRepo({ ...options, dir: scratch, patch: patch("42") })
 *   .catch((e: unknown) => e);
 * ok(isVouchError(error));
 * equal(error.code, "not_a_repo");
 * rmSync(scratch, { recursive: true, force: true });
 * ```
 *
 * @module
 */

// The one error type.
export { isVouchError, VouchError } from "./kernel/errors/mod.ts";

// Run a task: an agent works in a disposable worktree; only a patch that verifies is kept.
export {
  DEFAULT_FORBID,
  runInRepo,
  type RunInRepoOptions,
  type RunInRepoOutcome,
} from "./adapters/driver/run_in_repo.ts";
export {
  type CheckSummary,
  type RoundSummary,
  RUN_FINAL_STATES,
  type RunFinalState,
  type RunOutcome,
  type RunProgress,
} from "./adapters/driver/outcome.ts";
// The agent sandbox for a backend that starts programs (runInRepo refuses one without it).
export { confinedAgent, type ConfinedAgentOptions } from "./adapters/driver/confined_backend.ts";
export type { ApprovalQuestion, IntegrateOptions } from "./adapters/driver/run_task.ts";
export type { RepoTaskOptions } from "./adapters/driver/repo_task.ts";
export type { IntegrationOps, NewBranchCommit } from "./adapters/verified_patch/capabilities.ts";
export type { SandboxRequirement } from "./adapters/host/sandbox_probe.ts";

// What "done" means: a contract, from a command or a contract file.
export { contractFromCommand } from "./adapters/contract/from_command.ts";
export { ContractError, type ContractErrorCode, loadContract } from "./adapters/contract/load.ts";
export type { OutcomeContract } from "./kernel/contract/types.ts";
export type {
  ContractFile,
  ContractFileCheck,
  ContractFileDifferential,
  ContractFileExpect,
  ContractFileLimits,
  ContractFileRun,
  ContractFileSandbox,
  ContractFileSetup,
  ContractFileTestFormat,
} from "./adapters/contract/schema.ts";

// Verify a patch from anywhere in a clean tree.
export {
  verifyPatchInRepo,
  type VerifyPatchOptions,
  type VerifyPatchOutcome,
  type VerifyPatchReport,
} from "./adapters/driver/verify_patch.ts";

// Evaluate a result bundle made elsewhere, never executing it.
export type { EvaluateBundleInput } from "./adapters/bundle/evaluate.ts";
export { evaluateBundle, type EvaluateBundleOptions } from "./adapters/bundle/isolated.ts";

// Inspect an event log: chain, receipts, VerifiedPatches, replay.
export type {
  BaselineReuse,
  CheckLine,
  PhaseChange,
  ReceiptLine,
  TaskTimeline,
} from "./adapters/audit/timeline.ts";
export type { ReceiptIssue } from "./adapters/receipts/chain.ts";
export type { ToolReceipt, ToolReceiptBody } from "./adapters/receipts/receipt.ts";
export type { ReceiptErrorCode } from "./adapters/receipts/errors.ts";
export {
  inspectLog,
  type InspectOptions,
  type InspectReport,
  type InspectVerdict,
} from "./adapters/audit/audit_log.ts";

// The VerifiedPatch capability and its check, and the key that checks it.
export {
  assertVerifiedPatch,
  type PatchCheckEvidence,
  VerifiedPatch,
  type VerifiedPatchJson,
  verifyVerifiedPatchJson,
} from "./adapters/verified_patch/verified_patch.ts";
export {
  VerifiedPatchError,
  type VerifiedPatchErrorCode,
} from "./adapters/verified_patch/errors.ts";
export { loadOrCreateMacKey, type MacKey, type MacKeyOptions } from "./adapters/keys/mac_key.ts";
export type { KeyEnv } from "./adapters/keys/paths.ts";

// Types the API above names in its options and results (exported so the reference links them).
export type { IntegrationTarget } from "./adapters/verified_patch/capabilities.ts";
export type { ReceiptExit, ReceiptOutcome, StreamDigest } from "./adapters/receipts/receipt.ts";
export type {
  EvidenceIssue,
  EvidenceIssueCode,
  EvidenceReport,
} from "./adapters/audit/evidence_binding.ts";
export type { OracleReport, OracleTouch } from "./adapters/verification/verifier.ts";
