/**
 * What the adapter observed about a bundle, as plain data for the judge:
 * per-file outcomes of lstat checks and streaming digests, the manifest
 * outcome, the bundle listing and (for v0.1 plans) the candidate JSON.
 *
 * @module
 */
import type { EvaluatorPlan, ResultManifest, WorkUnit } from "./types.ts";

/** Failure codes of reading one bundle file. */
export type FileFailureCode =
  | "file_missing"
  | "file_symlink"
  | "file_not_regular"
  | "file_hardlinked"
  | "file_oversize"
  | "file_changed"
  | "file_unreadable";

/** What the adapter observed about one file it was asked to read. */
export type FileObservation =
  | {
    readonly ok: true;
    /** Recomputed `sha256:<hex>` of the bytes. */
    readonly digest: string;
    /** Size in bytes. */
    readonly size: number;
    /** The bytes, when the read asked for them. */
    readonly bytes?: Uint8Array;
  }
  | { readonly ok: false; readonly code: FileFailureCode; readonly detail: string };

/** What the adapter made of `result-manifest.json`. */
export type ManifestObservation =
  | { readonly ok: true; readonly value: ResultManifest; readonly digest: string }
  | {
    readonly ok: false;
    readonly code:
      | "manifest_missing"
      | "manifest_json_invalid"
      | "json_duplicate_key"
      | "json_forbidden_key"
      | "manifest_schema_invalid"
      | "digest_malformed"
      | FileFailureCode;
    readonly detail: string;
  };

/** Everything the judge needs; produced by `adapters/bundle`. */
export interface BundleFacts {
  /** The validated WorkUnit. */
  readonly workUnit: WorkUnit;
  /** RFC 8785 digest of the WorkUnit, computed by the verifier. */
  readonly workUnitDigest: string;
  /** The validated EvaluatorPlan. */
  readonly plan: EvaluatorPlan;
  /** RFC 8785 digest of the plan (the verifier config digest). */
  readonly planDigest: string;
  /** The manifest as read from the bundle. */
  readonly manifest: ManifestObservation;
  /** Observations keyed by the confined path of each planned read. */
  readonly files: ReadonlyMap<string, FileObservation>;
  /** Every non-directory entry of the bundle (relative paths), or why listing failed. */
  readonly entries: { readonly ok: true; readonly paths: readonly string[] } | {
    readonly ok: false;
    readonly detail: string;
  };
  /** For v0.1 plans: the candidate bytes parsed as strict JSON (by the adapter). */
  readonly candidateJson?:
    | { readonly ok: true; readonly value: unknown }
    | { readonly ok: false; readonly code: string; readonly detail: string };
}
