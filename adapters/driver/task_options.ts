/**
 * What `runTask` takes: its options, and the integration request with the
 * question a human approves.
 *
 * @module
 */
import type { BackendEvent } from "../backends/types.ts";
import type { MacKey } from "../keys/mac_key.ts";
import type { SigningKey } from "../keys/signing_key.ts";
import type { EventLog } from "../log/store.ts";
import type { IntegrationOps } from "../verified_patch/capabilities.ts";
import type { Verifier } from "../verification/verifier.ts";
import type { RunProgress } from "./outcome.ts";
import type { PatchSource } from "./patch_source.ts";

/**
 * Options of `integrate` (`--integrate branch:NAME`): commit the verified patch on a new branch,
 * after approval.
 */
export interface IntegrateOptions {
  /** New branch name. */
  readonly branch: string;
  /** Asks the human; resolves true to approve. `--yes` passes `() => true`. */
  approve(question: ApprovalQuestion): Promise<boolean>;
  /** Who approves (recorded). */
  readonly approver: string;
  /** The git side of integration. */
  readonly ops: IntegrationOps;
}

/** What the human is asked before integration. */
export interface ApprovalQuestion {
  /** The task id. */
  readonly task: string;
  /** The branch the patch would be integrated onto. */
  readonly branch: string;
  /** Digest of the exact patch to approve. */
  readonly patchDigest: string;
  /** The files the round's patch changes. */
  readonly files: readonly string[];
  /** Sensitive classes the patch touches. */
  readonly sensitive: readonly string[];
  /** Why approval is needed. */
  readonly reasons: readonly string[];
}

/** Everything `runTask` needs. Paths are absolute. */
export interface RunTaskOptions {
  /** Top level of the user's repository. */
  readonly repo: string;
  /** Full commit id of the base. */
  readonly base: string;
  /** The goal for the backend. */
  readonly goal: string;
  /** Where the round's patch comes from: an agent worktree (`vouch run`) or supplied bytes. */
  readonly source: PatchSource;
  /** Clean verification (baseline + re-verification). */
  readonly verifier: Verifier;
  /** Path rules for patches (allow / forbid / protect). */
  readonly rules: {
    readonly allow: readonly string[];
    readonly forbid: readonly string[];
    readonly protect: readonly string[];
  };
  /** Total backend rounds (first attempt included). */
  readonly maxRounds: number;
  /** Wall-time budget of the whole task, in milliseconds. */
  readonly wallTimeMs: number;
  /**
   * The run's absolute deadline (ms since epoch), when the caller already gave it to the
   * verifier: the kernel's wall budget then ends exactly there. @default now + wallTimeMs
   */
  readonly deadline?: number;
  /** Backend output budget in bytes. @default 256 MiB */
  readonly outputBytes?: number;
  /** Backend cost budget in cost units (cents). @default 1e9 */
  readonly costUnits?: number;
  /** The event log (opened by the caller, who closes it). */
  readonly log: EventLog;
  /** The repository's MAC key (receipts, verified patches). */
  readonly key: MacKey;
  /** Directory for this task's artefacts (created if missing). */
  readonly artefactsDir: string;
  /** Task id (file-name safe). */
  readonly taskId: string;
  /** Ctrl-C: aborting kills the backend, cleans up, and ends `killed`. */
  readonly signal?: AbortSignal;
  /** Opt-in integration. */
  readonly integrate?: IntegrateOptions;
  /** Live progress. */
  readonly onProgress?: (progress: RunProgress) => void;
  /** Clock (ms since epoch). @default Date.now */
  readonly now?: () => number;
  /** Max seconds one backend round may take (clamped to the wall budget). */
  readonly backendTimeoutMs?: number;
  /** Ed25519 key: when given, a verified patch is also exported as a DSSE attestation. */
  readonly signingKey?: SigningKey;
  /** Every event the backend emits, live (with its 1-based round). */
  readonly onBackendEvent?: (event: BackendEvent, round: number) => void;
  /**
   * Run the contract on the base revision before the first round (the kernel's
   * `baselining` status). `vouch verify` skips it for contracts that need no
   * captures. @default true
   */
  readonly baseline?: boolean;
  /**
   * When the task's trees go. `before_return`: removed before `runTask`
   * resolves. `after_return`: removal starts once nothing runs in them and
   * finishes after the outcome is returned, so the verdict is reported first
   * (the CLI); wait with `settleDeferredRemovals()`. @default "before_return"
   */
  readonly treeRemoval?: "before_return" | "after_return";
}
