/**
 * Judging one candidate: through `verifyPatchInRepo`, the one verification
 * path `vouch verify` uses, in its own clean tree and with its own state
 * directory (`candidates/<key>/`: event log, receipts, VerifiedPatch,
 * attestation), so candidates run in parallel in one repository. A task's
 * base (test lists need its statuses) is judged once per task by the same
 * clean verifier and shared (candidates then verify with `baseline: false`),
 * unless its contract has capture or differential checks, which need their own
 * captures per candidate (then each candidate's verification runs its own).
 *
 * @module
 */
import { readFile } from "node:fs/promises";
import { copyFile, mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ListedTestStatus, OutcomeContract } from "../../kernel/contract/types.ts";
import { isVouchError } from "../../kernel/errors/mod.ts";
import { signStatement } from "../attest/envelope.ts";
import { buildVerificationStatement } from "../attest/statement.ts";
import { sha256Hex } from "../digest/sha256.ts";
import { verifyPatchInRepo, type VerifyPatchOutcome } from "../driver/verify_patch.ts";
import { resolveCommit } from "../git/repo_info.ts";
import { gitChecked } from "../git/git_checked.ts";
import { EventLog } from "../log/store.ts";
import { ReceiptRecorder } from "../receipts/chain.ts";
import { createCleanVerifier } from "../verification/clean_verifier.ts";
import { type CleanTreePool } from "../worktree/tree_pool.ts";
import { newTaskId } from "../driver/run_in_repo.ts";
import type { KeyEnv } from "../keys/paths.ts";
import { loadOrCreateMacKey } from "../keys/mac_key.ts";
import { loadOrCreateSigningKey } from "../keys/signing_key.ts";
import type { SandboxRequirement } from "../host/sandbox_probe.ts";
import { verifyVerifiedPatchJson } from "../verified_patch/verified_patch.ts";
import { type Classification, classifyOutcome } from "./classify.ts";
import type { BatchTask } from "./input.ts";
import type { KeyVerdict } from "./schema.ts";
import { commitSpec } from "./spec_base.ts";

/** How candidates are judged. */
export interface JudgeOptions {
  /** The output directory: `candidates/<key>/` and `tasks/<id>/` live under it. */
  readonly outDir: string;
  /** Sandbox requirement for every check. @default "auto" */
  readonly sandbox?: SandboxRequirement;
  /** Where clean trees are made (default: the worktree module's). */
  readonly worktreeRoot?: string;
  /** Key locations (tests). */
  readonly keyEnv?: KeyEnv;
  /**
   * Clean trees reused across the candidates (and the shared baseline) of a
   * base commit instead of one checkout each; `localExecutor` makes one per batch.
   */
  readonly treePool?: CleanTreePool;
}

/** A task made ready once: resolved base, spec commit, contract and shared baseline. */
export interface PreparedTask {
  readonly task: BatchTask;
  /** The resolved base commit (before the test patch). */
  readonly base: string;
  /** The commit candidates apply to (base + test patch). */
  readonly applyTo: string;
  /** The contract with the test patch's paths protected. */
  readonly contract: OutcomeContract;
  /** Listed tests' status on the base (`check\0test` keys), when shared. */
  readonly before: ReadonlyMap<string, ListedTestStatus> | null;
  /** Set when no candidate of the task can be judged (invalid contract, base cannot run). */
  readonly invalid: (Classification & { readonly reasons: readonly string[] }) | null;
}

const hasLists = (c: OutcomeContract) => c.checks.some((k) => k.testLists !== undefined);
const needsOwnBaseline = (c: OutcomeContract) =>
  c.checks.some((k) => k.baseline || k.differential !== null);

function verifyOptions(opts: JudgeOptions) {
  return {
    sandbox: opts.sandbox ?? "auto",
    ...(opts.worktreeRoot !== undefined ? { worktreeRoot: opts.worktreeRoot } : {}),
    ...(opts.keyEnv !== undefined ? { keyEnv: opts.keyEnv } : {}),
    ...(opts.treePool !== undefined ? { treePool: opts.treePool } : {}),
  } as const;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Resolves a task's base, commits its test patch and, when its contract has
 * test lists, judges the base once (contract validity and every listed test's
 * before-status). Never throws: a task that cannot be prepared is `invalid`.
 *
 * @example A task whose failToPass test already passes is invalid
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * import { execFileSync } from "node:child_process";
 * import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { resolveTask } from "./input.ts";
 * import { prepareTask } from "./judge.ts";
 *
 * const dir = mkdtempSync(join(tmpdir(), "vouch-prepare-example-"));
 * const git = (...args: string[]) => execFileSync("git", args, { cwd: dir });
 * git("init", "-q");
 * git("config", "user.email", "e@example.invalid");
 * git("config", "user.name", "e");
 * writeFileSync(join(dir, "a.txt"), "a\n");
 * git("add", ".");
 * git("commit", "-qm", "init");
 * // A "suite" in cargo's format in which test `t` already passes on the base.
 * const command = "echo 'test t ... ok'; echo 'test result: ok. 1 passed; 0 failed;'";
 * const task = resolveTask(
 *   { id: "t", repo: ".", base: "HEAD", verify: { command, tests: "cargo", failToPass: ["t"] } },
 *   dir,
 *   "example",
 * );
 * const opts = { outDir: join(dir, ".out"), sandbox: "none", keyEnv: { VOUCH_KEY_FILE: join(tmpdir(), `vouch-ex-${Date.now()}.key`) } } as const;
 * const prepared = await prepareTask(task, opts);
 * equal(prepared.invalid?.reason, "contract_invalid");
 * deepEqual(prepared.invalid?.reasons, ["baseline_fail_to_pass_passes"]);
 * equal(prepared.before?.get("tests\0t"), "passed");
 * rmSync(dir, { recursive: true, force: true });
 * rmSync(opts.keyEnv.VOUCH_KEY_FILE, { force: true });
 * ```
 */
export async function prepareTask(task: BatchTask, opts: JudgeOptions): Promise<PreparedTask> {
  let base = task.base;
  try {
    base = await resolveCommit(task.repo, task.base);
    const spec = await commitSpec(task.repo, base, task.testPatch);
    const contract = { ...task.contract, protect: [...task.contract.protect, ...spec.protect] };
    const prepared = { task, base, applyTo: spec.commit, contract, before: null, invalid: null };
    if (!hasLists(contract) || needsOwnBaseline(contract)) return prepared;
    const judged = await judgeBase(task, spec.commit, contract, opts);
    if (judged.reasons.length > 0) {
      const c = classifyOutcome({
        verdict: "rejected",
        reasons: judged.reasons,
        violations: [],
        checks: [],
      });
      return { ...prepared, before: judged.before, invalid: { ...c, reasons: judged.reasons } };
    }
    return { ...prepared, before: judged.before };
  } catch (error) {
    return {
      task,
      base,
      applyTo: base,
      contract: task.contract,
      before: null,
      invalid: {
        status: "error",
        reason: "could_not_run",
        detail: `cannot prepare task ${task.id}: ${message(error)}`,
        reasons: [isVouchError(error) ? error.code : "prepare_failed"],
      },
    };
  }
}

/**
 * The task's base judged once, by the same clean verifier `verifyPatchInRepo`
 * runs its baseline with (fresh tree, sandbox, MAC'd receipts in
 * `tasks/<dir>/events.jsonl`): every listed test's status before any change,
 * and the reasons no candidate can be judged (an invalid contract, a base that
 * cannot run).
 */
async function judgeBase(
  task: BatchTask,
  applyTo: string,
  contract: OutcomeContract,
  opts: JudgeOptions,
): Promise<{ before: Map<string, ListedTestStatus>; reasons: string[] }> {
  const stateDir = join(opts.outDir, "tasks", taskDirName(task, applyTo));
  await rm(stateDir, { recursive: true, force: true });
  await mkdir(stateDir, { recursive: true });
  const top = (await gitChecked(["rev-parse", "--show-toplevel"], { cwd: task.repo })).stdout.head
    .trim();
  const key = await loadOrCreateMacKey({
    repoRoot: top,
    ...(opts.keyEnv !== undefined ? { env: opts.keyEnv } : {}),
  });
  const log = await EventLog.open(join(stateDir, "events.jsonl"));
  try {
    const taskId = newTaskId();
    const verifier = createCleanVerifier({
      repo: top,
      base: applyTo,
      taskId,
      contract,
      receipts: ReceiptRecorder.resume(log, key, log.openReport.lastReceipt),
      sandbox: opts.sandbox ?? "auto",
      ...(opts.worktreeRoot !== undefined ? { worktreeRoot: opts.worktreeRoot } : {}),
      ...(opts.treePool !== undefined ? { pool: opts.treePool } : {}),
    });
    const b = await verifier.baseline(new AbortController().signal, () => {});
    await verifier.settle();
    const reasons = [...(b.ran ? [] : ["baseline_cannot_run"]), ...b.diagnostics, ...b.refusals];
    const before = new Map<string, ListedTestStatus>();
    for (const s of b.summaries) {
      for (const t of s.tests ?? []) before.set(`${s.name}\0${t.id}`, t.status);
    }
    await log.append({
      task: taskId,
      kind: "batch.task_baseline",
      body: JSON.parse(
        JSON.stringify({ task: task.id, base: applyTo, reasons, summaries: b.summaries }),
      ),
    });
    return { before, reasons };
  } finally {
    await log.close();
  }
}

/** The directory name of a task's shared artefacts. */
export function taskDirName(task: BatchTask, base: string): string {
  return sha256Hex(`${task.digest}\0${base}`).slice(7, 23);
}

/**
 * The resume key of a candidate (64 hex digits): task definition, resolved
 * base and patch digest.
 *
 * @example
 * ```ts
 * import { equal, notEqual } from "node:assert/strict";
 * import { candidateKey } from "./judge.ts";
 * equal(candidateKey("sha256:t", "b", "p"), candidateKey("sha256:t", "b", "p"));
 * notEqual(candidateKey("sha256:t", "b", "p"), candidateKey("sha256:t", "c", "p"));
 * ```
 */
export function candidateKey(taskDigest: string, base: string, patchDigest: string): string {
  return sha256Hex(JSON.stringify([taskDigest, base, patchDigest])).slice(7);
}

function listedTests(
  contract: OutcomeContract,
  before: (check: string, id: string) => ListedTestStatus | null,
  after: VerifyPatchOutcome | null,
): KeyVerdict["tests"] {
  const out: KeyVerdict["tests"] = [];
  for (const check of contract.checks) {
    if (check.testLists === undefined) continue;
    const ran = after?.checks.find((c) => c.name === check.name)?.tests ?? [];
    for (const list of ["failToPass", "passToPass"] as const) {
      for (const id of check.testLists[list]) {
        out.push({
          id,
          list,
          before: before(check.name, id),
          after: ran.find((t) => t.id === id && t.list === list)?.status ?? null,
        });
      }
    }
  }
  return out;
}

async function attest(outcome: VerifyPatchOutcome, repo: string, dir: string, opts: JudgeOptions) {
  if (outcome.verifiedPatch === null) return null;
  const env = opts.keyEnv !== undefined ? { env: opts.keyEnv } : {};
  const macKey = await loadOrCreateMacKey({ repoRoot: repo, ...env, create: false });
  const json = JSON.parse(await readFile(outcome.verifiedPatch, "utf8"));
  const patch = await verifyVerifiedPatchJson(json, macKey);
  const signingKey = await loadOrCreateSigningKey({ repoRoot: repo, ...env });
  const envelope = await signStatement(buildVerificationStatement(patch), signingKey);
  const path = join(dir, "attestation.json");
  await writeFile(path, JSON.stringify(envelope, null, 2) + "\n");
  return path;
}

/**
 * Judges one candidate patch of a prepared task. Never throws: a verification
 * that fails to run is an `error` with reason `could_not_run`.
 *
 * @example
 * ```ts ignore
 * const verdict = await judgeCandidate(prepared, patchText, { outDir: "out" });
 * ```
 */
export async function judgeCandidate(
  prepared: PreparedTask,
  patchText: string,
  opts: JudgeOptions,
): Promise<KeyVerdict> {
  const patch = new TextEncoder().encode(patchText);
  const patchDigest = sha256Hex(patch);
  const key = candidateKey(prepared.task.digest, prepared.base, patchDigest);
  const rel = (p: string | null) => p === null ? null : p.slice(opts.outDir.length + 1);
  const common = { key, patch_digest: patchDigest, base: prepared.base };
  const none = { dir: null, log: null, verified_patch: null, attestation: null };
  if (patchText.trim() === "") {
    return {
      ...common,
      status: "empty_patch",
      reason: "empty_patch",
      reasons: [],
      detail: "empty patch",
      tests: listedTests(prepared.contract, () => null, null),
      artefacts: none,
    };
  }
  const beforeOf = (check: string, id: string) => prepared.before?.get(`${check}\0${id}`) ?? null;
  if (prepared.invalid !== null) {
    const { reasons, ...c } = prepared.invalid;
    return {
      ...common,
      ...c,
      reasons: [...reasons],
      tests: listedTests(prepared.contract, beforeOf, null),
      artefacts: none,
    };
  }
  const dir = join(opts.outDir, "candidates", key);
  try {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    const outcome = await verifyPatchInRepo({
      ...verifyOptions(opts),
      dir: prepared.task.repo,
      patch,
      contract: prepared.contract,
      base: prepared.applyTo,
      allow: prepared.task.allow,
      forbid: prepared.task.forbid,
      stateDir: dir,
      ...(prepared.before !== null ? { baseline: false } : {}),
    });
    const own = new Map(
      outcome.baseline.flatMap((s) => (s.tests ?? []).map((t) => [`${s.name}\0${t.id}`, t.status])),
    );
    const before = prepared.before !== null
      ? beforeOf
      : (check: string, id: string) => own.get(`${check}\0${id}`) ?? null;
    const c = classifyOutcome(outcome);
    // A stable name for the VerifiedPatch (its run directory is named after a fresh task id).
    let verified: string | null = null;
    if (outcome.verifiedPatch !== null) {
      verified = join(dir, "verified_patch.json");
      await copyFile(outcome.verifiedPatch, verified);
    }
    // The verdict stands without an attestation (e.g. no signing key); the record says so.
    const attestation = await attest(outcome, prepared.task.repo, dir, opts).catch(() => null);
    const unattested = outcome.verifiedPatch !== null && attestation === null;
    return {
      ...common,
      ...c,
      reasons: [...outcome.reasons, ...(unattested ? ["attestation_failed"] : [])],
      tests: listedTests(prepared.contract, before, outcome),
      artefacts: {
        dir: rel(dir),
        log: rel(outcome.logPath),
        verified_patch: rel(verified),
        attestation: rel(attestation),
      },
    };
  } catch (error) {
    return {
      ...common,
      status: "error",
      reason: "could_not_run",
      reasons: [isVouchError(error) ? error.code : "verify_failed"],
      detail: message(error),
      tests: listedTests(prepared.contract, beforeOf, null),
      artefacts: { ...none, dir: rel(dir) },
    };
  }
}
