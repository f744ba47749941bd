/**
 * The options of the clean verifier (`createCleanVerifier`) and the refusal
 * codes of its setup step.
 *
 * @module
 */
import type { OutcomeContract } from "../../kernel/contract/types.ts";
import type { ReceiptRecorder } from "../receipts/chain.ts";
import type { SandboxProbe, SandboxRequirement } from "../host/sandbox_probe.ts";
import type { CleanTreePool } from "../worktree/tree_pool.ts";
import type { CheckSlots } from "./check_slots.ts";
import type { BaselineCacheOptions } from "./baseline_cache.ts";

/** Options of `createCleanVerifier`. */
export interface CleanVerifierOptions {
  /** The user's repository (top level). */
  readonly repo: string;
  /** Full base commit. */
  readonly base: string;
  /** The task id (names the verification worktrees). */
  readonly taskId: string;
  /** The contract. */
  readonly contract: OutcomeContract;
  /** Receipts for every command run for the verdict. */
  readonly receipts: ReceiptRecorder;
  /** Sandbox requirement (`auto` and `bwrap` require bwrap and never fall back; `none` is explicit). */
  readonly sandbox: SandboxRequirement;
  /** Paths outside the tree the checks need, read-only (`--sandbox-ro`); recorded in receipts. */
  readonly sandboxReadOnly?: readonly string[];
  /** Worktree root (default: the worktree module's). */
  readonly worktreeRoot?: string;
  /** Refuse a contract whose gating checks all pass before any change. @default false */
  readonly requireFailingBaseline?: boolean;
  /**
   * Policy: the contract's setup commands may use the network when the
   * contract asks for it (`setup.network: "allow"`). When the contract asks and
   * this is not set, every run is refused with `setup_network_not_allowed`
   * before anything runs. Checks never get the network. @default false
   */
  readonly allowSetupNetwork?: boolean;
  /** The run's deadline (ms since epoch): every command's timeout is clamped to what it leaves. */
  readonly deadline?: number;
  /** Told each sub-step of preparing a tree, with its size (`copying node_modules, 66 MB`). */
  readonly onStep?: (step: string) => void;
  /**
   * Clean trees shared with other verifiers of the same repository and base
   * (`vouch batch`): the first tree is taken from it (and reset) when it has
   * one, and given back at `settle()` instead of removed.
   */
  readonly pool?: CleanTreePool;
  /**
   * How many rounds this task has at most: the tree's use in the last round's
   * last grading needs no stat mark for a later reset, so a one-round
   * `vouch verify` never pays for one. Trees given back to a `pool` are always
   * marked. @default unbounded
   */
  readonly rounds?: number;
  /**
   * One sandbox probe shared by many verifiers (`vouch batch` probes once per
   * batch, not once per candidate). @default a probe of this verifier's own
   */
  readonly sandboxProbe?: Promise<SandboxProbe>;
  /**
   * Slots shared with other verifiers (`vouch batch`): the setup and checks run
   * only in a free slot; trees are prepared outside it. @default no limit
   */
  readonly checkSlots?: CheckSlots;
  /**
   * Tests are editable (`--tests-editable`, or the contract's `testsEditable`):
   * a patch that touches oracle files is graded against its own tests only,
   * and the verdict says so. @default the contract's, else false
   */
  readonly testsEditable?: boolean;
  /**
   * The baseline gates the task: a contract that cannot run at the base ends
   * it before any round. False: the baseline is only the reference the
   * rounds are judged against (per-test lists), and a base where the check
   * cannot run simply gives none. @default true
   */
  readonly baselineGates?: boolean;
  /**
   * The baseline cache (`vouch verify`): a base already verified under the
   * same contract and environment, whose receipts this log holds, is not run
   * again. @default no cache
   */
  readonly baselineCache?: BaselineCacheOptions;
}

/** Refusal codes of the setup step (in {@linkcode VerificationRun.refusals}). */
export type SetupRefusalCode = "setup_network_not_allowed" | "setup_failed";
