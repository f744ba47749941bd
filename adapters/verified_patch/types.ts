/**
 * The shapes around a verified patch: what a backend hands over
 * ({@linkcode UnverifiedPatch}), what minting needs ({@linkcode MintInput}) and
 * the JSON form the log and run directory store ({@linkcode VerifiedPatchJson}).
 *
 * @module
 */
import type { LogHead } from "../log/record.ts";
import type { ToolReceipt } from "../receipts/receipt.ts";

/**
 * What a backend produces: a patch nobody has verified. Every field is a claim
 * until the verifier re-derives and re-checks it.
 */
export interface UnverifiedPatch {
  /** Discriminant; a verified patch has no such field. */
  readonly kind: "unverified_patch";
  /** The task. */
  readonly task: string;
  /** The revision the diff applies to. */
  readonly baseRevision: string;
  /** The `git diff --binary` bytes. */
  readonly diff: Uint8Array;
  /** Which backend produced it (provenance). */
  readonly backend: string;
}

/** One check's evidence inside a verified patch. */
export interface PatchCheckEvidence {
  /** Check id from the contract. */
  readonly id: string;
  /** Only `pass` can be minted; kept explicit for the attestation. */
  readonly outcome: "pass" | "fail" | "inconclusive";
  /** `sha256:` digest of the receipt of the command that decided it. */
  readonly receipt: string;
}

/**
 * What {@linkcode mintVerifiedPatch} needs besides the key: the backend's patch
 * and the evidence the JSON form seals (every check must pass; the log anchor
 * is usually the last receipt's record).
 */
export interface MintInput extends
  Pick<
    VerifiedPatchJson,
    "contractDigest" | "checks" | "receipts" | "passedAt" | "sandboxProfile" | "logAnchor"
  > {
  /** The backend's patch whose diff was re-derived and checked. */
  readonly patch: UnverifiedPatch;
  /** The path rules the patch passed (`--allow`, `--forbid`, the contract's `protect`; sealed). */
  readonly pathPolicy?: VerifiedPatchJson["pathPolicy"] & object;
}

/** The JSON form of a verified patch (what the log and run directory store). */
export interface VerifiedPatchJson {
  /** Format version. */
  readonly v: 1;
  /** The task that produced the patch. */
  readonly task: string;
  /** The commit the patch applies to. */
  readonly baseRevision: string;
  /** Digest of the patch's diff. */
  readonly patchDigest: string;
  /** `sha256:` digest of the outcome contract that was run. */
  readonly contractDigest: string;
  /** Every check of the contract run on the patch. */
  readonly checks: readonly PatchCheckEvidence[];
  /** The receipts the checks cite (and any others of the run). */
  readonly receipts: readonly ToolReceipt[];
  /** When verification passed, ms since epoch. */
  readonly passedAt: number;
  /** Which backend produced the patch (provenance). */
  readonly backend: string;
  /** Sandbox profile the checks ran in. */
  readonly sandboxProfile: string;
  /** Log head when minted. */
  readonly logAnchor: LogHead;
  /** The path rules the patch passed (absent in patches minted without them). */
  readonly pathPolicy?: {
    /** Globs every changed path had to match (empty: no limit). */
    readonly allow: readonly string[];
    /** Globs no changed path could match. */
    readonly forbid: readonly string[];
    /** The contract's protected globs (the tests that define done). */
    readonly protect: readonly string[];
  };
  /** Which MAC key sealed it. */
  readonly keyId: string;
  /** HMAC-SHA-256 (hex) over the canonical JSON of every other field. */
  readonly mac: string;
}
