import { z } from "zod";
import { receiptDigest } from "../receipts/receipt.ts";
import type { VerifiedPatchJson } from "../verified_patch/verified_patch.ts";
import {
  buildVerificationStatement,
  IN_TOTO_STATEMENT_TYPE,
  type ResourceDescriptor,
  VOUCH_PREDICATE_TYPE,
  type VouchStatement,
  VouchStatementSchema,
} from "./statement.ts";

/** SLSA Verification Summary Attestation v1 predicate type. */
export const SLSA_VSA_PREDICATE_TYPE = "https://slsa.dev/verification_summary/v1";
/** in-toto test-result predicate v0.1 type. */
export const TEST_RESULT_PREDICATE_TYPE = "https://in-toto.io/attestation/test-result/v0.1";
/**
 * The URI-named key under which vouch's own fields ride in a VSA or
 * test-result predicate (the in-toto parsing rules allow extension fields whose
 * names are URIs; consumers ignore what they do not know).
 */
export const VOUCH_EXTENSION_KEY = "https://vouch.dev/attestation/extension/v1";
/**
 * The SLSA result vouch reports in `verifiedLevels`: a custom value (not
 * starting with `SLSA_`, as the VSA spec requires of custom values) meaning
 * "the patch passed its outcome contract in vouch's clean verifier". vouch
 * evaluates no SLSA track, so it claims no `SLSA_*` level.
 */
export const VOUCH_VERIFIED_LEVEL = "VOUCH_CONTRACT_PASSED";

/** The predicate a `vouch attest export --predicate` writes. */
export type PredicateKind = "vouch" | "vsa" | "test-result";
/** Every predicate kind, in the order `--help` lists them. */
export const PREDICATE_KINDS: readonly PredicateKind[] = ["vouch", "vsa", "test-result"];

/** vouch's own fields carried under {@linkcode VOUCH_EXTENSION_KEY}. */
export interface VouchExtension {
  readonly task: string;
  /** The base revision the patch was verified on (absent in attestations made before it was recorded). */
  readonly baseRevision?: string;
  readonly checks: readonly { readonly id: string; readonly outcome: string }[];
  readonly sandboxProfile: string;
  readonly backend: string;
  readonly logAnchor: { readonly seq: number; readonly digest: { readonly sha256: string } };
  readonly receiptKeyId: string;
}

/** A SLSA VSA v1 predicate as vouch writes it. */
export interface SlsaVsaPredicate {
  readonly verifier: { readonly id: string; readonly version: Readonly<Record<string, string>> };
  readonly timeVerified: string;
  readonly resourceUri: string;
  readonly policy: { readonly uri: string; readonly digest: Readonly<Record<string, string>> };
  readonly inputAttestations: readonly ResourceDescriptor[];
  readonly verificationResult: "PASSED" | "FAILED";
  readonly verifiedLevels: readonly string[];
  readonly slsaVersion: "1.0";
  readonly [VOUCH_EXTENSION_KEY]: VouchExtension;
}

/** An in-toto test-result v0.1 predicate as vouch writes it. */
export interface TestResultPredicate {
  readonly result: "PASSED" | "WARNED" | "FAILED";
  readonly configuration: readonly ResourceDescriptor[];
  readonly passedTests: readonly string[];
  readonly warnedTests: readonly string[];
  readonly failedTests: readonly string[];
  readonly [VOUCH_EXTENSION_KEY]: VouchExtension;
}

/** A Statement carrying a SLSA VSA. */
export interface VsaStatement {
  readonly _type: typeof IN_TOTO_STATEMENT_TYPE;
  readonly subject: readonly ResourceDescriptor[];
  readonly predicateType: typeof SLSA_VSA_PREDICATE_TYPE;
  readonly predicate: SlsaVsaPredicate;
}

/** A Statement carrying an in-toto test result. */
export interface TestResultStatement {
  readonly _type: typeof IN_TOTO_STATEMENT_TYPE;
  readonly subject: readonly ResourceDescriptor[];
  readonly predicateType: typeof TEST_RESULT_PREDICATE_TYPE;
  readonly predicate: TestResultPredicate;
}

/** Any statement vouch exports and `vouch attest verify` accepts. */
export type AttestationStatement = VouchStatement | VsaStatement | TestResultStatement;

/** Options of the statement builders. */
export interface StatementOptions {
  /** The verifier's id (a URI); default `https://vouch.dev/verifier`. */
  readonly verifierId?: string;
  /** vouch's version for `verifier.version`. */
  readonly version?: string;
  /** VSA `resourceUri`; default `urn:vouch:patch:sha256:<patch digest>`. */
  readonly resourceUri?: string;
  /** Policy (contract) URI; default `urn:vouch:contract:sha256:<contract digest>`. */
  readonly policyUri?: string;
}

const hex = (d: string) => d.replace(/^sha256:/, "");

/** The per-contract policy URI vouch uses when the caller names none. */
export function contractUri(contractDigest: string): string {
  return `urn:vouch:contract:sha256:${hex(contractDigest)}`;
}

function extension(patch: VerifiedPatchJson): VouchExtension {
  return {
    task: patch.task,
    baseRevision: patch.baseRevision,
    checks: patch.checks.map((c) => ({ id: c.id, outcome: c.outcome })),
    sandboxProfile: patch.sandboxProfile,
    backend: patch.backend,
    logAnchor: { seq: patch.logAnchor.seq, digest: { sha256: patch.logAnchor.hash } },
    receiptKeyId: patch.keyId,
  };
}

/**
 * Builds the Statement of the chosen predicate for a verified patch (its JSON
 * form, already MAC-checked): `vouch` (vouch's own summary), `vsa` (SLSA
 * Verification Summary v1) or `test-result` (in-toto test-result v0.1). The
 * subject is the same for all three: the patch's SHA-256 and, when the base
 * revision is a full commit id, the base commit.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { buildStatement, SLSA_VSA_PREDICATE_TYPE } from "./predicates.ts";
 * const s = buildStatement({
 *   v: 1, task: "t1", baseRevision: "main", patchDigest: "sha256:" + "a".repeat(64),
 *   contractDigest: "sha256:" + "b".repeat(64), checks: [], receipts: [], passedAt: 0,
 *   backend: "fn", sandboxProfile: "none", logAnchor: { seq: 1, hash: "c".repeat(64) },
 *   keyId: "hmac-sha256:x", mac: "d".repeat(64),
 * }, "vsa");
 * equal(s.predicateType, SLSA_VSA_PREDICATE_TYPE);
 * ```
 */
export function buildStatement(
  patch: VerifiedPatchJson,
  kind: PredicateKind,
  options: StatementOptions = {},
): AttestationStatement {
  const base = buildVerificationStatement(patch, options);
  if (kind === "vouch") return base;
  const policyUri = options.policyUri ?? contractUri(patch.contractDigest);
  const policyDigest = { sha256: hex(patch.contractDigest) };
  if (kind === "vsa") {
    return {
      _type: IN_TOTO_STATEMENT_TYPE,
      subject: base.subject,
      predicateType: SLSA_VSA_PREDICATE_TYPE,
      predicate: {
        verifier: base.predicate.verifier,
        timeVerified: base.predicate.timeVerified,
        resourceUri: options.resourceUri ?? `urn:vouch:patch:sha256:${hex(patch.patchDigest)}`,
        policy: { uri: policyUri, digest: policyDigest },
        inputAttestations: patch.receipts.map((r) => ({
          uri: `urn:vouch:receipt:sha256:${hex(receiptDigest(r))}`,
          digest: { sha256: hex(receiptDigest(r)) },
        })),
        verificationResult: "PASSED",
        verifiedLevels: [VOUCH_VERIFIED_LEVEL],
        slsaVersion: "1.0",
        [VOUCH_EXTENSION_KEY]: extension(patch),
      },
    };
  }
  const named = (outcome: string) => patch.checks.filter((c) => c.outcome === outcome);
  return {
    _type: IN_TOTO_STATEMENT_TYPE,
    subject: base.subject,
    predicateType: TEST_RESULT_PREDICATE_TYPE,
    predicate: {
      result: named("fail").length > 0
        ? "FAILED"
        : named("pass").length === patch.checks.length
        ? "PASSED"
        : "WARNED",
      configuration: [{ name: "vouch outcome contract", uri: policyUri, digest: policyDigest }],
      passedTests: named("pass").map((c) => c.id),
      warnedTests: named("inconclusive").map((c) => c.id),
      failedTests: named("fail").map((c) => c.id),
      [VOUCH_EXTENSION_KEY]: extension(patch),
    },
  };
}

const digestSet = z.lazy(() =>
  z.record(z.string(), z.string()).refine((d) => Object.keys(d).length > 0)
);
const descriptor = z.lazy(() =>
  z.object({
    name: z.string().optional(),
    uri: z.string().optional(),
    digest: digestSet,
  })
);
const extensionSchema = z.lazy(() =>
  z.object({
    task: z.string(),
    baseRevision: z.string().optional(),
    checks: z.array(z.object({ id: z.string(), outcome: z.string() })),
    sandboxProfile: z.string(),
    backend: z.string(),
    logAnchor: z.object({ seq: z.number().int(), digest: z.object({ sha256: z.string() }) }),
    receiptKeyId: z.string(),
  })
);
const subject = z.lazy(() => z.array(descriptor).min(1));

/** zod schema of a VSA statement read back from an envelope (vouch's subset). */
export const VsaStatementSchema = z.lazy(() =>
  z.object({
    _type: z.literal(IN_TOTO_STATEMENT_TYPE),
    subject,
    predicateType: z.literal(SLSA_VSA_PREDICATE_TYPE),
    predicate: z.object({
      verifier: z.object({ id: z.string(), version: z.record(z.string(), z.string()) }),
      timeVerified: z.string(),
      resourceUri: z.string(),
      policy: z.object({ uri: z.string(), digest: digestSet }),
      inputAttestations: z.array(descriptor),
      verificationResult: z.literal("PASSED"),
      verifiedLevels: z.array(z.string()),
      slsaVersion: z.literal("1.0"),
      [VOUCH_EXTENSION_KEY]: extensionSchema,
    }),
  })
);

/** zod schema of a test-result statement read back from an envelope. */
export const TestResultStatementSchema = z.lazy(() =>
  z.object({
    _type: z.literal(IN_TOTO_STATEMENT_TYPE),
    subject,
    predicateType: z.literal(TEST_RESULT_PREDICATE_TYPE),
    predicate: z.object({
      result: z.literal("PASSED"),
      configuration: z.array(descriptor),
      passedTests: z.array(z.string()),
      warnedTests: z.array(z.string()),
      failedTests: z.array(z.string()).max(0),
      [VOUCH_EXTENSION_KEY]: extensionSchema,
    }),
  })
);

/** Reads an attested statement by its predicate type; `undefined` if it is none of vouch's. */
export function parseAttestationStatement(value: unknown): AttestationStatement | undefined {
  const type = (value as { predicateType?: unknown } | null)?.predicateType;
  const schema = type === VOUCH_PREDICATE_TYPE
    ? VouchStatementSchema
    : type === SLSA_VSA_PREDICATE_TYPE
    ? VsaStatementSchema
    : type === TEST_RESULT_PREDICATE_TYPE
    ? TestResultStatementSchema
    : undefined;
  const parsed = schema?.safeParse(value);
  return parsed?.success ? parsed.data as AttestationStatement : undefined;
}

/** What `vouch attest verify` shows of any statement vouch exports. */
export interface StatementSummary {
  readonly predicateType: string;
  readonly timeVerified: string;
  readonly verifierId: string;
  readonly policyDigest: string;
  /** The policy's URI (`vouch:contract`, the VSA's `policy.uri`, the test-result configuration's). */
  readonly policyUri: string;
  readonly receipts: number;
  readonly vouch: VouchExtension;
}

/**
 * The fields every predicate vouch exports carries, read the same way for all
 * three (for rendering).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { buildStatement, summarizeStatement } from "./predicates.ts";
 * const patch = {
 *   v: 1 as const, task: "t1", baseRevision: "main", patchDigest: "sha256:" + "a".repeat(64),
 *   contractDigest: "sha256:" + "b".repeat(64), checks: [], receipts: [], passedAt: 0,
 *   backend: "fn", sandboxProfile: "none", logAnchor: { seq: 1, hash: "c".repeat(64) },
 *   keyId: "hmac-sha256:x", mac: "d".repeat(64),
 * };
 * for (const kind of ["vouch", "vsa", "test-result"] as const) {
 *   equal(summarizeStatement(buildStatement(patch, kind)).vouch.task, "t1");
 * }
 * ```
 */
export function summarizeStatement(statement: AttestationStatement): StatementSummary {
  const predicateType = statement.predicateType;
  if (statement.predicateType === TEST_RESULT_PREDICATE_TYPE) {
    const t = statement.predicate;
    return {
      predicateType,
      timeVerified: "",
      verifierId: "",
      policyDigest: t.configuration[0]?.digest["sha256"] ?? "",
      policyUri: t.configuration[0]?.uri ?? "",
      receipts: 0,
      vouch: t[VOUCH_EXTENSION_KEY],
    };
  }
  // vouch's own predicate and the SLSA VSA share the verification fields.
  const v = statement.predicate;
  const verification = {
    predicateType,
    timeVerified: v.timeVerified,
    verifierId: v.verifier.id,
    policyDigest: v.policy.digest["sha256"] ?? "",
    policyUri: v.policy.uri ?? "",
    receipts: v.inputAttestations.length,
  };
  if (statement.predicateType === SLSA_VSA_PREDICATE_TYPE) {
    return { ...verification, vouch: statement.predicate[VOUCH_EXTENSION_KEY] };
  }
  const o = statement.predicate;
  return {
    ...verification,
    vouch: {
      task: o.task,
      ...(o.baseRevision !== undefined ? { baseRevision: o.baseRevision } : {}),
      checks: o.checks.map((c) => ({ id: c.id, outcome: c.outcome })),
      sandboxProfile: o.sandboxProfile,
      backend: o.backend.id,
      logAnchor: o.logAnchor,
      receiptKeyId: o.receiptKeyId,
    },
  };
}
