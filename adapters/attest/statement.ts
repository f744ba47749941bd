import { z } from "zod";
import { receiptDigest } from "../receipts/receipt.ts";
import type { VerifiedPatchJson } from "../verified_patch/verified_patch.ts";

/** in-toto Statement v1 `_type`. */
export const IN_TOTO_STATEMENT_TYPE = "https://in-toto.io/Statement/v1";
/** The predicate type of a vouch verification summary (modelled on SLSA VSA v1). */
export const VOUCH_PREDICATE_TYPE = "https://vouch.dev/verification-summary/v1";
/** Default verifier id. */
export const VOUCH_VERIFIER_ID = "https://vouch.dev/verifier";

/** An in-toto ResourceDescriptor (the subset vouch uses). */
export interface ResourceDescriptor {
  readonly name?: string;
  readonly uri?: string;
  readonly digest: Readonly<Record<string, string>>;
}

/** The vouch verification summary predicate. */
export interface VouchVerificationSummary {
  readonly verifier: { readonly id: string; readonly version: Readonly<Record<string, string>> };
  /** RFC 3339 time the patch passed. */
  readonly timeVerified: string;
  readonly task: string;
  /** The base revision the patch was verified on. */
  readonly baseRevision?: string;
  /** The outcome contract (the policy) that was run. */
  readonly policy: ResourceDescriptor;
  /** Always `PASSED`: only verified patches are attested. */
  readonly verificationResult: "PASSED";
  readonly checks: readonly {
    readonly id: string;
    readonly outcome: string;
    readonly receipt: ResourceDescriptor;
  }[];
  /** Digests of every tool receipt of the verification. */
  readonly inputAttestations: readonly ResourceDescriptor[];
  readonly sandboxProfile: string;
  /** Which backend produced the patch (provenance, not trust). */
  readonly backend: { readonly id: string };
  /** The event log head when the patch was minted. */
  readonly logAnchor: { readonly seq: number; readonly digest: { readonly sha256: string } };
  /** Id of the MAC key that sealed the receipts and the patch. */
  readonly receiptKeyId: string;
}

/** An in-toto Statement v1 carrying a vouch verification summary. */
export interface VouchStatement {
  readonly _type: typeof IN_TOTO_STATEMENT_TYPE;
  readonly subject: readonly ResourceDescriptor[];
  readonly predicateType: typeof VOUCH_PREDICATE_TYPE;
  readonly predicate: VouchVerificationSummary;
}

const hex = (d: string) => d.replace(/^sha256:/, "");
const GIT_COMMIT = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * Builds the in-toto Statement for a verified patch (its JSON form, already
 * MAC-checked). Subjects: the patch's SHA-256 and, when the base revision is a
 * full commit id, the base commit (`gitCommit`).
 *
 * @example
 * ```ts
 * import { deepEqual, equal } from "node:assert/strict";
 * import { createHash } from "node:crypto";
 * import { importMacKey } from "../keys/mac_key.ts";
 * import { mintReceipt, receiptDigest } from "../receipts/receipt.ts";
 * import { mintVerifiedPatch } from "../verified_patch/verified_patch.ts";
 * const macKey = await importMacKey(new Uint8Array(32).fill(3), "memory");
 * const z = { digest: "sha256:" + "0".repeat(64), bytes: 0 };
 * const receipt = await mintReceipt(macKey, {
 *   task: "t1", tool: "check:unit", argv: ["true"], cwd: "/", sandboxProfile: "none",
 *   envNames: [], startedAt: 0, endedAt: 1, exit: { code: 0, signal: null, timedOut: false },
 *   stdout: z, stderr: z,
 * }, { anchor: { seq: 0, hash: "0".repeat(64) }, prevReceipt: "0".repeat(64) });
 * const verified = await mintVerifiedPatch(macKey, {
 *   patch: { kind: "unverified_patch", task: "t1", baseRevision: "abc", diff: new Uint8Array([1]), backend: "fn" },
 *   contractDigest: "sha256:" + "1".repeat(64),
 *   checks: [{ id: "unit", outcome: "pass", receipt: receiptDigest(receipt) }],
 *   receipts: [receipt], passedAt: 5, sandboxProfile: "none",
 *   logAnchor: { seq: 0, hash: "0".repeat(64) },
 * });
 * import { buildVerificationStatement } from "./statement.ts";
 * const statement = buildVerificationStatement(verified.toJSON());
 * equal(statement._type, "https://in-toto.io/Statement/v1");
 * equal(statement.predicate.verificationResult, "PASSED");
 * // The subject is the patch itself: the SHA-256 of its diff bytes.
 * const sha256 = createHash("sha256").update(new Uint8Array([1])).digest("hex");
 * deepEqual(statement.subject, [{ name: "patch:t1", digest: { sha256 } }]);
 * ```
 */
export function buildVerificationStatement(
  patch: VerifiedPatchJson,
  options: { readonly verifierId?: string; readonly version?: string } = {},
): VouchStatement {
  const subject: ResourceDescriptor[] = [
    { name: `patch:${patch.task}`, digest: { sha256: hex(patch.patchDigest) } },
  ];
  if (GIT_COMMIT.test(patch.baseRevision)) {
    subject.push({ name: "base", digest: { gitCommit: patch.baseRevision } });
  }
  return {
    _type: IN_TOTO_STATEMENT_TYPE,
    subject,
    predicateType: VOUCH_PREDICATE_TYPE,
    predicate: {
      verifier: {
        id: options.verifierId ?? VOUCH_VERIFIER_ID,
        version: { vouch: options.version ?? "0.1.0" },
      },
      timeVerified: new Date(patch.passedAt).toISOString(),
      task: patch.task,
      baseRevision: patch.baseRevision,
      policy: { uri: "vouch:contract", digest: { sha256: hex(patch.contractDigest) } },
      verificationResult: "PASSED",
      checks: patch.checks.map((c) => ({
        id: c.id,
        outcome: c.outcome,
        receipt: { digest: { sha256: hex(c.receipt) } },
      })),
      inputAttestations: patch.receipts.map((r) => ({
        uri: `vouch:receipt/${r.tool}`,
        digest: { sha256: hex(receiptDigest(r)) },
      })),
      sandboxProfile: patch.sandboxProfile,
      backend: { id: patch.backend },
      logAnchor: { seq: patch.logAnchor.seq, digest: { sha256: patch.logAnchor.hash } },
      receiptKeyId: patch.keyId,
    },
  };
}

const descriptor = z.lazy(() =>
  z.object({
    name: z.string().optional(),
    uri: z.string().optional(),
    digest: z.record(z.string(), z.string()),
  })
);

/** zod schema of a statement read back from an envelope. */
export const VouchStatementSchema = z.lazy(() =>
  z.object({
    _type: z.literal(IN_TOTO_STATEMENT_TYPE),
    subject: z.array(descriptor).min(1),
    predicateType: z.literal(VOUCH_PREDICATE_TYPE),
    predicate: z.object({
      verifier: z.object({ id: z.string(), version: z.record(z.string(), z.string()) }),
      timeVerified: z.string(),
      task: z.string(),
      baseRevision: z.string().optional(),
      policy: descriptor,
      verificationResult: z.literal("PASSED"),
      checks: z.array(z.object({ id: z.string(), outcome: z.string(), receipt: descriptor })),
      inputAttestations: z.array(descriptor),
      sandboxProfile: z.string(),
      backend: z.object({ id: z.string() }),
      logAnchor: z.object({ seq: z.number().int(), digest: z.object({ sha256: z.string() }) }),
      receiptKeyId: z.string(),
    }),
  })
);
