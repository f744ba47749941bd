/**
 * The TypeScript types of what vouch writes that have no zod schema: the roots
 * `tools/export_schemas.ts` turns into JSON Schemas (with ts-json-schema-generator),
 * so the schemas follow the types. Every `--json` document is
 * `{ schemaVersion: 1, ...result }` (see `cli/json_document.ts`).
 *
 * @module
 */
import type { InspectReport } from "../adapters/audit/mod.ts";
import type { RunOutcome } from "../adapters/driver/outcome.ts";
import type { AgentCliProbe } from "../adapters/backends/probe.ts";
import type { AgentDecision } from "../adapters/backends/types.ts";
import type { DoctorReport } from "../adapters/host/doctor.ts";
import type { GcReport } from "../adapters/worktree/gc.ts";
import type { VerifyPatchReport } from "../adapters/driver/verify_patch.ts";
import type { KernelActionsBody } from "../adapters/log/kinds.ts";
import type { AttestationStatement } from "../adapters/attest/predicates.ts";
import type { KernelEvent } from "../kernel/lifecycle/events.ts";
import type { PolicySnapshot } from "../kernel/lifecycle/mod.ts";
import type { PatchJudgement, ScopeFileSummary } from "../kernel/scope/mod.ts";

/** The version every `--json` document carries. */
interface Versioned {
  /** Version of this document's schema; bumped only on a breaking change. */
  readonly schemaVersion: 1;
}

/** `vouch verify --json`. */
export type VerifyJson = Versioned & VerifyPatchReport;

/** `vouch run --json`. */
export type RunJson = Versioned & RunOutcome;

/** `vouch inspect --json`: the audit verdict of the LOG apart from each task's own verdict. */
export type InspectJson = Versioned & Omit<InspectReport, "verdict"> & {
  /** The audit verdict of the log (never a task's: see `tasks[].verdict`). */
  readonly audit: InspectReport["verdict"];
  /** Its words, e.g. "chain intact, evidence unauthenticated". */
  readonly summary: string;
  /** Id of the MAC key the receipts were checked with, or null without one. */
  readonly keyId: string | null;
};

/** `vouch doctor --json`. */
export type DoctorJson = Versioned & DoctorReport & {
  /** The agent CLIs (codex, claude) found on PATH. */
  readonly agents: readonly AgentCliProbe[];
};

/** `vouch gc --json`. */
export type GcJson = Versioned & GcReport;

/** `vouch scope --json`. */
export interface ScopeJson extends Versioned {
  readonly verdict: PatchJudgement["verdict"];
  readonly reasons: readonly string[];
  readonly files: readonly ScopeFileSummary[];
  readonly violations: readonly {
    readonly code: string;
    readonly path: string;
    readonly detail: string;
  }[];
  readonly sensitive: PatchJudgement["classification"]["sensitive"];
  readonly policyDenied: PatchJudgement["denied"];
}

/** `vouch attest verify --json`. */
export type AttestVerifyJson =
  | (Versioned & {
    readonly verified: true;
    /** Id (SHA-256 of the SPKI DER) of the key whose signature verified. */
    readonly keyid: string;
    readonly statement: AttestationStatement;
  })
  | (Versioned & {
    readonly verified: false;
    /** Stable snake_case code. */
    readonly code: string;
    readonly message: string;
  });

/** Body of a `kernel.init` record. */
export interface KernelInitBody {
  /** The policy the kernel state was created from. */
  readonly config: PolicySnapshot;
  /** The lifecycle semantics (`KERNEL_LIFECYCLE_VERSION`), absent in old logs. */
  readonly kernel?: string;
}

/** Body of a `backend.transcript` record. */
export interface TranscriptBody {
  readonly round: number;
  readonly stream: string;
  /** Bounded, masked excerpt of the backend's final message. */
  readonly text: string;
  readonly path?: string;
  readonly digest?: string;
  readonly bytes?: number;
  readonly truncated?: boolean;
  readonly masked?: number;
}

/** Body of a `backend.decisions` record. */
export interface DecisionsBody {
  readonly round: number;
  readonly decisions: readonly AgentDecision[];
}

/** Body of a `log.recovered` record. */
export interface LogRecoveredBody {
  readonly droppedBytes: number;
  /** File name (not path) the torn tail was saved to. */
  readonly tornFile: string;
  readonly afterSeq: number;
}

/** Body of a `kernel.event` record. */
export type KernelEventBody = KernelEvent;

/** Body of a `kernel.actions` record. */
export type KernelActionsRecordBody = KernelActionsBody;
