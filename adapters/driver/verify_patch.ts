/**
 * `vouch verify`: the same clean verification `vouch run` applies, for a patch
 * that came from anywhere (CI, a colleague, another tool): inspect it (parse,
 * scope, protected paths, sensitive classes), run the baseline and the contract
 * in a fresh tree of the base with the patch applied, and mint a
 * `VerifiedPatch` only when everything passes.
 *
 * @module
 */
import { mkdir, realpath, writeFile } from "node:fs/promises";
import type { OutcomeContract } from "../../kernel/contract/types.ts";
import { sha256Hex } from "../digest/sha256.ts";
import { resolveCommit } from "../git/repo_info.ts";
import { gitChecked, GitError } from "../git/git_checked.ts";
import { loadOrCreateMacKey } from "../keys/mac_key.ts";
import type { KeyEnv } from "../keys/paths.ts";
import { LOG_KINDS } from "../log/kinds.ts";
import { EventLog } from "../log/store.ts";
import { ReceiptRecorder } from "../receipts/chain.ts";
import type { SandboxRequirement } from "../host/sandbox_probe.ts";
import { createCleanVerifier } from "../verification/clean_verifier.ts";
import { violationDetail } from "../verification/check_detail.ts";
import {
  judgePatch,
  patchRulesFromLists,
  type PatchViolation,
} from "../../kernel/scope/judge_patch.ts";
import { mintVerifiedPatch } from "../verified_patch/verified_patch.ts";
import type { CheckSummary } from "./outcome.ts";
import { DEFAULT_FORBID, excludeStateDir, newTaskId } from "./run_in_repo.ts";
import { ensureStateDir } from "./state_dir.ts";

/** Options of {@link verifyPatchInRepo}. */
export interface VerifyPatchOptions {
  readonly dir: string;
  /** The patch bytes (`git diff --binary` format). */
  readonly patch: Uint8Array;
  readonly contract: OutcomeContract;
  readonly base?: string;
  readonly allow?: readonly string[];
  readonly forbid?: readonly string[];
  readonly sandbox?: SandboxRequirement;
  /** Paths outside the tree the checks need, read-only in their sandbox (`--sandbox-ro`). */
  readonly sandboxReadOnly?: readonly string[];
  readonly keyEnv?: KeyEnv;
  readonly worktreeRoot?: string;
  readonly onCheck?: (phase: string, name: string) => void;
  /** Let the contract's setup commands use the network when it asks (`--allow-setup-network`). */
  readonly allowSetupNetwork?: boolean;
  /**
   * Run the contract on the untouched base first (catches contracts that cannot
   * run or gate nothing). @default true when the contract has baseline or
   * differential checks (they need the captures), else false
   */
  readonly baseline?: boolean;
  /**
   * Where the event log (`events.jsonl`, with its lock) and `runs/<task>/`
   * artefacts live. Parallel verifications in one repository each need their
   * own (`vouch batch` gives every candidate one). @default `<top>/.vouch`
   */
  readonly stateDir?: string;
}

/** The result of `vouch verify`. */
export interface VerifyPatchOutcome {
  readonly task: string;
  readonly verdict: "verified" | "rejected";
  readonly reasons: readonly string[];
  readonly patchDigest: string;
  readonly base: string;
  readonly violations: readonly PatchViolation[];
  readonly sensitive: readonly string[];
  readonly baseline: readonly CheckSummary[];
  readonly checks: readonly CheckSummary[];
  readonly verifiedPatch: string | null;
  readonly logPath: string;
  /**
   * Why it was rejected, one sentence each, in order: scope violations (path and
   * rule), the refusal (`git apply` error, dependency change needing setup, a
   * check that cannot start), each failing check's detail. Empty when verified.
   */
  readonly details: readonly string[];
}

/**
 * Verifies a patch in a clean tree of the base.
 *
 * @example
 * ```ts ignore
 * import { verifyPatchInRepo } from "./verify_patch.ts";
 * const r = await verifyPatchInRepo({ dir: ".", patch, contract });
 * console.log(r.verdict);
 * ```
 */
export async function verifyPatchInRepo(opts: VerifyPatchOptions): Promise<VerifyPatchOutcome> {
  // Only the top level, the git dir and the base are needed (a dirty checkout is irrelevant here).
  const info = await locateRepo(opts.dir, opts.base ?? "HEAD");
  const commonDir = info.commonDir;
  await excludeStateDir(commonDir);
  const stateDir = opts.stateDir ?? `${info.top}/.vouch`;
  await ensureStateDir(stateDir);
  const task = newTaskId();
  const key = await loadOrCreateMacKey({
    repoRoot: info.top,
    ...(opts.keyEnv !== undefined ? { env: opts.keyEnv } : {}),
  });
  const log = await EventLog.open(`${stateDir}/events.jsonl`);
  const patchDigest = sha256Hex(opts.patch);
  try {
    const allow = opts.allow ?? [];
    const forbid = [...DEFAULT_FORBID.filter((f) => !allow.includes(f)), ...(opts.forbid ?? [])];
    const inspection = judgePatch(
      opts.patch,
      patchRulesFromLists({ allow, forbid, protect: opts.contract.protect }),
    );
    const reasons: string[] = [...inspection.reasons];
    const lists = { allow, forbid, protect: opts.contract.protect };
    const details: string[] = inspection.violations.map((v) => violationDetail(v, lists));
    const receipts = ReceiptRecorder.resume(log, key, log.openReport.lastReceipt);
    const verifier = createCleanVerifier({
      repo: info.top,
      base: info.base,
      taskId: task,
      contract: opts.contract,
      receipts,
      sandbox: opts.sandbox ?? "auto",
      ...(opts.sandboxReadOnly !== undefined ? { sandboxReadOnly: opts.sandboxReadOnly } : {}),
      ...(opts.worktreeRoot !== undefined ? { worktreeRoot: opts.worktreeRoot } : {}),
      allowSetupNetwork: opts.allowSetupNetwork ?? false,
    });
    let baseline: readonly CheckSummary[] = [];
    let checks: readonly CheckSummary[] = [];
    let verified: string | null = null;
    if (reasons.length === 0) {
      const signal = new AbortController().signal;
      // Test lists need the base's statuses (failToPass must fail there, passToPass pass).
      const needsCaptures = opts.contract.checks.some((c) =>
        c.baseline || c.differential !== null || c.testLists !== undefined
      );
      if (opts.baseline ?? needsCaptures) {
        const b = await verifier.baseline(signal, (n) => opts.onCheck?.("baseline", n));
        baseline = b.summaries;
        if (!b.ran && b.refusals.length === 0) reasons.push("baseline_cannot_run");
        reasons.push(...b.diagnostics, ...b.refusals);
        if (b.why !== undefined) details.push(b.why);
        else if (!b.ran || b.diagnostics.length > 0) details.push(...summaryDetails(b.summaries));
      }
      if (reasons.length === 0) {
        const run = await verifier.verify(
          1,
          opts.patch,
          signal,
          (n) => opts.onCheck?.("verify", n),
        );
        checks = run.summaries;
        reasons.push(...run.refusals);
        if (run.why !== undefined) details.push(run.why);
        // Checks failed only when checks ran: a refused run (patch does not apply) ran none.
        if (run.refusals.length === 0 && !run.passed) {
          reasons.push("checks_failed");
          details.push(...summaryDetails(run.summaries));
          // Without a baseline, a check that cannot start is only seen here: could not run.
          if ((run.cannotStart ?? []).length > 0) reasons.push("verify_command_cannot_start");
        }
        if (reasons.length === 0) {
          const vp = await mintVerifiedPatch(key, {
            patch: {
              kind: "unverified_patch",
              task,
              baseRevision: info.base,
              diff: opts.patch,
              backend: "external",
            },
            contractDigest: verifier.contractDigest,
            checks: run.checkEvidence,
            receipts: run.receipts,
            passedAt: Date.now(),
            sandboxProfile: run.sandbox,
            logAnchor: await log.anchor(),
          });
          verified = `${stateDir}/runs/${task}/verified_patch.json`;
          await mkdir(`${stateDir}/runs/${task}`, { recursive: true });
          await writeFile(verified, JSON.stringify(vp.toJSON(), null, 2) + "\n");
          await writeFile(`${stateDir}/runs/${task}/patch.diff`, opts.patch);
          await log.append({ task, kind: LOG_KINDS.verifiedPatchMinted, body: vp.toJSON() });
        }
      }
    }
    const outcome: VerifyPatchOutcome = {
      task,
      verdict: reasons.length === 0 && verified !== null ? "verified" : "rejected",
      reasons: [...new Set(reasons)],
      patchDigest,
      base: info.base,
      violations: inspection.violations,
      sensitive: inspection.classification.sensitive,
      baseline,
      checks,
      verifiedPatch: verified,
      logPath: log.path,
      details: verified !== null ? [] : details,
    };
    await log.append({ task, kind: "verify.outcome", body: JSON.parse(JSON.stringify(outcome)) });
    await verifier.settle();
    return outcome;
  } finally {
    await log.close();
  }
}

/** `name: detail` of each failing check summary. */
function summaryDetails(summaries: readonly CheckSummary[]): string[] {
  return summaries.filter((c) => !c.passed).map((c) =>
    `check "${c.name}": ${c.detail ?? c.outcome}`
  );
}

/** The repository's top level, common git dir and resolved base, in two git calls. */
async function locateRepo(
  dir: string,
  rev: string,
): Promise<{ top: string; commonDir: string; base: string }> {
  let top: string | undefined;
  let commonDir: string | undefined;
  try {
    const abs = await realpath(dir);
    const r = await gitChecked(
      ["rev-parse", "--show-toplevel", "--path-format=absolute", "--git-common-dir"],
      { cwd: abs },
    );
    [top, commonDir] = r.stdout.head.split("\n");
  } catch {
    top = undefined;
  }
  if (!top || !commonDir) {
    throw new GitError("not_a_repo", `Cannot use ${dir}: not inside a git work tree`);
  }
  const realTop = await realpath(top);
  return { top: realTop, commonDir, base: await resolveCommit(realTop, rev) };
}
