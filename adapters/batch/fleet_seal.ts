/**
 * What the fleet key (`adapters/keys/fleet_key.ts`) seals: the jobs a
 * coordinator puts on Redis, the verdicts workers return (with the evidence
 * they rest on: the VerifiedPatch and the attestation, bound by digest) and
 * the batch reports `vouch batch merge` combines. Redis and CI artefacts are
 * transport, not authority: whatever comes back without a valid MAC, or whose
 * content disagrees with what was asked, is refused.
 *
 * @module
 */
import { z } from "zod";
import { canonicalJson } from "../canonical_json/canonical_json.ts";
import { sha256Hex } from "../digest/sha256.ts";
import { fleetMac, verifyFleetMac } from "../keys/fleet_key.ts";
import type { MacKey } from "../keys/mac_key.ts";
import { VerifiedPatchJsonSchema } from "../verified_patch/verified_patch.ts";
import { type BatchReport, type KeyVerdict, keyVerdictSchema } from "./schema.ts";

const JOB_DOMAIN = "vouch.fleet.job.v1\n";
const VERDICT_DOMAIN = "vouch.fleet.verdict.v1\n";
const REPORT_DOMAIN = "vouch.batch.report.v1\n";
const STORED_DOMAIN = "vouch.batch.stored_verdict.v1\n";

const hex64 = z.lazy(() => z.string().regex(/^[0-9a-f]{64}$/));
const digest = z.lazy(() => z.string().regex(/^sha256:[0-9a-f]{64}$/));

/** The zod schema of a queue job's data: the task by digest, the patch, the key, a MAC. */
export const signedJobSchema = z.lazy(() =>
  z.strictObject({
    v: z.literal(2),
    task: digest.describe("the task's digest: the worker looks it up in its own tasks file"),
    patch: z.string(),
    key: hex64,
    mac: hex64,
  })
);

/** A signed queue job. */
export type SignedJob = z.infer<typeof signedJobSchema>;

/** The evidence a worker returns with a verdict (file contents, bound by digest in the MAC). */
export interface VerdictEvidence {
  /** `verified_patch.json` as written, or null. */
  readonly verified_patch: string | null;
  /** `attestation.json` as written, or null. */
  readonly attestation: string | null;
}

/** The zod schema of a worker's return value. */
export const signedVerdictSchema = z.lazy(() =>
  z.strictObject({
    v: z.literal(2),
    verdict: keyVerdictSchema,
    evidence: z.strictObject({
      verified_patch: z.string().max(50_000_000).nullable(),
      attestation: z.string().max(50_000_000).nullable(),
    }),
    mac: hex64,
  })
);

/** A signed verdict. */
export type SignedVerdict = z.infer<typeof signedVerdictSchema>;

function jobMessage(queue: string, task: string, patch: string, key: string): string {
  return canonicalJson({ queue, task, patch_digest: sha256Hex(patch), key });
}

/**
 * Signs a job for queue `queue`.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { importMacKey } from "../keys/mac_key.ts";
 * import { openJob, signJob } from "./fleet_seal.ts";
 * const key = await importMacKey(new Uint8Array(32).fill(3), "memory");
 * const job = await signJob(key, "q", { task: `sha256:${"a".repeat(64)}`, patch: "p", key: "b".repeat(64) });
 * equal((await openJob(key, "q", job)).ok, true);
 * equal((await openJob(key, "other", job)).ok, false);
 * equal((await openJob(key, "q", { ...job, patch: "evil" })).ok, false);
 * ```
 */
export async function signJob(
  key: MacKey,
  queue: string,
  job: { readonly task: string; readonly patch: string; readonly key: string },
): Promise<SignedJob> {
  const mac = await fleetMac(key, JOB_DOMAIN, jobMessage(queue, job.task, job.patch, job.key));
  return { v: 2, task: job.task, patch: job.patch, key: job.key, mac };
}

/** What opening a sealed thing gives: the value, or why it was refused. */
export type Opened<T> = { readonly ok: true; readonly value: T } | {
  readonly ok: false;
  readonly reason: string;
};

/** Checks a job's shape and MAC (never throws). */
export async function openJob(
  key: MacKey,
  queue: string,
  data: unknown,
): Promise<Opened<SignedJob>> {
  const parsed = signedJobSchema.safeParse(data);
  if (!parsed.success) return { ok: false, reason: "the job is not a signed vouch job" };
  const j = parsed.data;
  const ok = await verifyFleetMac(
    key,
    JOB_DOMAIN,
    jobMessage(queue, j.task, j.patch, j.key),
    j.mac,
  );
  return ok ? { ok: true, value: j } : { ok: false, reason: "the job's MAC does not verify" };
}

function verdictMessage(queue: string, verdict: KeyVerdict, evidence: VerdictEvidence): string {
  const d = (t: string | null) => (t === null ? null : sha256Hex(t));
  return canonicalJson({
    queue,
    key: verdict.key,
    verdict,
    evidence: { verified_patch: d(evidence.verified_patch), attestation: d(evidence.attestation) },
  });
}

/** Seals a worker's verdict and its evidence. */
export async function sealVerdict(
  key: MacKey,
  queue: string,
  verdict: KeyVerdict,
  evidence: VerdictEvidence,
): Promise<SignedVerdict> {
  const mac = await fleetMac(key, VERDICT_DOMAIN, verdictMessage(queue, verdict, evidence));
  return { v: 2, verdict, evidence: { ...evidence }, mac };
}

/**
 * Checks a returned verdict before it may enter a report: its shape, its MAC,
 * that it is the verdict of the job asked (`key`, the patch's digest) and that
 * a `resolved` verdict carries a VerifiedPatch of that very patch whose checks
 * all passed. Never throws.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { importMacKey } from "../keys/mac_key.ts";
 * import { openVerdict } from "./fleet_seal.ts";
 * const key = await importMacKey(new Uint8Array(32).fill(3), "memory");
 * const r = await openVerdict(key, "q", { key: "a".repeat(64), patch: "p" }, { v: 2 });
 * equal(r.ok, false);
 * ```
 */
export async function openVerdict(
  key: MacKey,
  queue: string,
  asked: { readonly key: string; readonly patch: string },
  value: unknown,
): Promise<Opened<SignedVerdict>> {
  const parsed = signedVerdictSchema.safeParse(value);
  if (!parsed.success) return { ok: false, reason: "the job's result is not a signed verdict" };
  const s = parsed.data;
  if (
    !await verifyFleetMac(key, VERDICT_DOMAIN, verdictMessage(queue, s.verdict, s.evidence), s.mac)
  ) {
    return {
      ok: false,
      reason: "the verdict's MAC does not verify (not written by a fleet worker)",
    };
  }
  if (s.verdict.key !== asked.key) return { ok: false, reason: "the verdict is of another job" };
  const patchDigest = sha256Hex(asked.patch);
  if (s.verdict.patch_digest !== patchDigest) {
    return { ok: false, reason: "the verdict is of another patch" };
  }
  if (s.verdict.status === "resolved") {
    let vp: z.infer<typeof VerifiedPatchJsonSchema> | null = null;
    try {
      const r = VerifiedPatchJsonSchema.safeParse(JSON.parse(s.evidence.verified_patch ?? "null"));
      if (r.success) vp = r.data;
    } catch { /* not JSON */ }
    if (vp === null) return { ok: false, reason: "a resolved verdict without its VerifiedPatch" };
    if (vp.patchDigest !== patchDigest) {
      return { ok: false, reason: "the VerifiedPatch is of another patch" };
    }
    if (vp.checks.length === 0 || vp.checks.some((c) => c.outcome !== "pass")) {
      return { ok: false, reason: "the VerifiedPatch has a check that did not pass" };
    }
  }
  return { ok: true, value: s };
}

function reportMessage(report: BatchReport): string {
  const { seal: _, ...rest } = report;
  return canonicalJson(rest);
}

/**
 * The report with its seal (a MAC over everything else in it).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { importMacKey } from "../keys/mac_key.ts";
 * import { checkReportSeal, sealReport } from "./fleet_seal.ts";
 * import { buildReport } from "./report.ts";
 * const key = await importMacKey(new Uint8Array(32).fill(3), "memory");
 * const input = { tasks: "t", predictions: "p", task_ids: ["a"], candidate_ids: [], unpredicted_task_ids: ["a"] };
 * const sealed = await sealReport(buildReport(input, [], null), key);
 * equal(await checkReportSeal(sealed, key), null);
 * equal(typeof await checkReportSeal({ ...sealed, resolved_ids: ["a"] }, key), "string");
 * ```
 */
export async function sealReport(report: BatchReport, key: MacKey): Promise<BatchReport> {
  const mac = await fleetMac(key, REPORT_DOMAIN, reportMessage(report));
  return { ...report, seal: { key_id: key.keyId, mac } };
}

/**
 * `null` when the report's seal verifies under `key`, else why not.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { importMacKey } from "../keys/mac_key.ts";
 * import { checkReportSeal, sealReport } from "./fleet_seal.ts";
 * import { buildReport } from "./report.ts";
 * const key = await importMacKey(new Uint8Array(32).fill(3), "memory");
 * const input = { tasks: "t", predictions: "p", task_ids: ["a"], candidate_ids: [], unpredicted_task_ids: ["a"] };
 * const report = buildReport(input, [], null);
 * equal(await checkReportSeal(report, key), "it has no seal");
 * const sealed = await sealReport(report, key);
 * equal(await checkReportSeal(sealed, key), null);
 * equal(await checkReportSeal({ ...sealed, resolved_ids: ["a"] }, key),
 *   "its seal does not verify (the report was edited)");
 * ```
 */
export async function checkReportSeal(report: BatchReport, key: MacKey): Promise<string | null> {
  if (report.seal === undefined) return "it has no seal";
  if (report.seal.key_id !== key.keyId) {
    return `it is sealed with another key (${report.seal.key_id}, not ${key.keyId})`;
  }
  const ok = await verifyFleetMac(key, REPORT_DOMAIN, reportMessage(report), report.seal.mac);
  return ok ? null : "its seal does not verify (the report was edited)";
}

/** The MAC of a stored verdict (`results/<key>.json`). */
export async function storedVerdictMac(key: MacKey, verdict: KeyVerdict): Promise<string> {
  return await fleetMac(key, STORED_DOMAIN, canonicalJson(verdict));
}

/** Whether `mac` is the stored verdict's MAC. */
export async function checkStoredVerdict(
  key: MacKey,
  verdict: KeyVerdict,
  mac: unknown,
): Promise<boolean> {
  return await verifyFleetMac(key, STORED_DOMAIN, canonicalJson(verdict), mac);
}
