/**
 * Verifying one candidate (and sealing and attesting its verdict): through
 * `verifyPatchInRepo`, the one verification path `vouch verify` uses, in its
 * own clean tree and with its own state directory (`candidates/<key>/`: event
 * log, receipts, VerifiedPatch, attestation), so candidates run in parallel in
 * one repository. The task was prepared once (`prepareTask`): its spec commit
 * and, when shared, its baseline's listed-test statuses.
 *
 * @module
 */
import { copyFile, cp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ListedTestStatus, OutcomeContract } from "../../kernel/contract/types.ts";
import { isVouchError } from "../../kernel/errors/mod.ts";
import { attestVerifiedPatchJson } from "../attest/export.ts";
import { sha256Hex } from "../digest/sha256.ts";
import { type VerifyPatchOutcome, verifyPatchSharing } from "../driver/verify_patch.ts";
import { loadOrCreateMacKey } from "../keys/mac_key.ts";
import { loadOrCreateSigningKey } from "../keys/signing_key.ts";
import { classifyOutcome } from "./classify.ts";
import { candidateKey } from "./key.ts";
import { errorMessage, type SharedCandidateOptions, verificationOptions } from "./options.ts";
import type { PreparedTask } from "./prepare.ts";
import type { KeyVerdict } from "./schema.ts";

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

async function attest(
  outcome: VerifyPatchOutcome,
  repo: string,
  dir: string,
  opts: SharedCandidateOptions,
) {
  if (outcome.verifiedPatchPath === null) return null;
  const env = opts.keyEnv !== undefined ? { env: opts.keyEnv } : {};
  const macKey = await loadOrCreateMacKey({ repoRoot: repo, ...env, create: false });
  const json = JSON.parse(await readFile(outcome.verifiedPatchPath, "utf8"));
  const signingKey = await loadOrCreateSigningKey({ repoRoot: repo, ...env });
  const { envelope } = await attestVerifiedPatchJson(json, macKey, signingKey);
  const path = join(dir, "attestation.json");
  await writeFile(path, JSON.stringify(envelope, null, 2) + "\n");
  return path;
}

/**
 * Verifies one candidate patch of a prepared task (and seals its verdict). Never throws: a verification
 * that fails to run is an `error` with reason `could_not_run`.
 *
 * @example
 * ```ts ignore
 * const verdict = await verifyCandidate(prepared, patchText, { outDir: "out" });
 * ```
 */
export async function verifyCandidate(
  prepared: PreparedTask,
  patchText: string,
  opts: SharedCandidateOptions,
): Promise<KeyVerdict> {
  const started = performance.now();
  const verdict = await verifyTimed(prepared, patchText, opts);
  // Wall-clock seconds this candidate took (junit.xml's `time`), ms precision.
  return { ...verdict, duration_s: Math.round(performance.now() - started) / 1000 };
}

async function verifyTimed(
  prepared: PreparedTask,
  patchText: string,
  opts: SharedCandidateOptions,
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
      verdict: "rejected",
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
      verdict: "could_not_run",
      reasons: [...reasons],
      tests: listedTests(prepared.contract, beforeOf, null),
      artefacts: none,
    };
  }
  const dir = join(opts.outDir, "candidates", key);
  try {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    const seed = prepared.baselineSeed;
    if (seed !== null) {
      // The task's baseline run, as the start of this candidate's state: its log (the receipts
      // the cache entry cites) and the entry. The entry's MAC and receipts are checked on read.
      await copyFile(join(seed, "events.jsonl"), join(dir, "events.jsonl"));
      await cp(join(seed, "baseline-cache"), join(dir, "baseline-cache"), { recursive: true });
    }
    const outcome = await verifyPatchSharing({
      ...verificationOptions(opts),
      dir: prepared.task.repo,
      patch,
      contract: prepared.contract,
      base: prepared.applyTo,
      allow: prepared.task.allow,
      forbid: prepared.task.forbid,
      stateDir: dir,
      // A fresh state dir holds no entry; one seeded with the task's baseline holds its own.
      baselineCache: seed !== null,
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
    if (outcome.verifiedPatchPath !== null) {
      verified = join(dir, "verified_patch.json");
      await copyFile(outcome.verifiedPatchPath, verified);
    }
    // SWE-bench's name for it: the whole output of the candidate's checks, beside its evidence.
    let testOutput: string | null = null;
    if (outcome.testOutput !== undefined) {
      testOutput = join(dir, "test_output.txt");
      await copyFile(outcome.testOutput, testOutput).catch(() => (testOutput = null));
    }
    // The verdict stands without an attestation (e.g. no signing key); the record says so.
    const attestation = await attest(outcome, prepared.task.repo, dir, opts).catch(() => null);
    const unattested = outcome.verifiedPatchPath !== null && attestation === null;
    return {
      ...common,
      ...c,
      verdict: outcome.state,
      reasons: [...outcome.reasons, ...(unattested ? ["attestation_failed"] : [])],
      tests: listedTests(prepared.contract, before, outcome),
      ...(outcome.baselineCached !== null
        ? { baseline_reused_from: outcome.baselineCached.task }
        : {}),
      artefacts: {
        dir: rel(dir),
        log: rel(outcome.logPath),
        verified_patch: rel(verified),
        attestation: rel(attestation),
        ...(testOutput !== null ? { test_output: testOutput.slice(opts.outDir.length + 1) } : {}),
      },
    };
  } catch (error) {
    return {
      ...common,
      status: "error",
      reason: "could_not_run",
      verdict: "could_not_run",
      reasons: [isVouchError(error) ? error.code : "verify_failed"],
      detail: errorMessage(error),
      tests: listedTests(prepared.contract, beforeOf, null),
      artefacts: { ...none, dir: rel(dir) },
    };
  }
}
