/**
 * The parts a clean verifier is built from, wired from its options: the
 * checks' sandbox, dependency provisioning, the contract's setup step and
 * digest, and the task's clean trees.
 *
 * The checks' sandbox ({@linkcode createCheckSandbox}): one probe per
 * verifier (a real bwrap run, started early, reused by every check run)
 * unless a batch shares one; the paths the caller and the contract declare
 * read-only; the check limits; the key store never visible; a batch tree's
 * shared dependency views bound read-only.
 *
 * @module
 */
import { compileGlobs } from "../../kernel/glob/glob_set.ts";
import type { OutcomeContract } from "../../kernel/contract/types.ts";
import type { DependencyView } from "../deps/shared.ts";
import {
  probeSandbox,
  type SandboxProbe,
  type SandboxRequirement,
  selectSandbox,
} from "../host/sandbox_probe.ts";
import { withDependencyViews } from "../sandbox/dependency_views.ts";
import { DEFAULT_CHECK_LIMITS, withDefaultLimits } from "../sandbox/limits.ts";
import { SandboxError, type SandboxProfile } from "../sandbox/profile.ts";
import { canonicalDigest } from "../canonical_json/canonical_json.ts";
import { createDependencyProvisioner } from "../deps/provision.ts";
import { createTaskTrees } from "../worktree/task_trees.ts";
import type { CleanVerifierOptions } from "./_options.ts";
import { declaredOf } from "./_seal_checks.ts";
import type { SetupStepOptions } from "./_setup_step.ts";

/** What {@linkcode verifierParts} wires. */
export interface VerifierParts {
  readonly sandbox: ReturnType<typeof createCheckSandbox>;
  readonly deps: ReturnType<typeof createDependencyProvisioner>;
  readonly setupOptions: SetupStepOptions | null;
  /** The contract file's digest when there is one (recomputable from the file), else the model's. */
  readonly contractDigest: string;
  readonly trees: ReturnType<typeof createTaskTrees>;
}

/** Wires the parts of a clean verifier from its options. */
export function verifierParts(opts: CleanVerifierOptions): VerifierParts {
  const contract = opts.contract;
  const sandbox = createCheckSandbox({
    sandbox: opts.sandbox,
    contract,
    keyStoreDir: opts.receipts.keyPath,
    ...(opts.sandboxReadOnly !== undefined ? { sandboxReadOnly: opts.sandboxReadOnly } : {}),
    ...(opts.sandboxProbe !== undefined ? { sandboxProbe: opts.sandboxProbe } : {}),
  });
  // Read-only views only where bwrap makes them read-only: of a batch's shared snapshots, or
  // (verify, run: no pool) of the user's own directories; copies without a sandbox, and for a
  // batch whose pool has no snapshots (`dependencies: "copy"`).
  const deps = createDependencyProvisioner({
    repo: opts.repo,
    hasSetup: contract.setup !== undefined,
    ...(opts.pool?.dependencies !== undefined ? { snapshots: opts.pool.dependencies } : {}),
    views: opts.sandbox !== "none" &&
      (opts.pool === undefined || opts.pool.dependencies !== undefined),
    ...(opts.onStep !== undefined ? { onStep: opts.onStep } : {}),
  });
  const setupOptions = contract.setup === undefined ? null : {
    setup: contract.setup,
    taskId: opts.taskId,
    receipts: opts.receipts,
    allowSetupNetwork: opts.allowSetupNetwork === true,
    ...(opts.deadline !== undefined ? { deadline: opts.deadline } : {}),
    declaredOf,
  };
  const contractDigest = contract.sourceDigest ?? canonicalDigest(contract as unknown as never);
  const isProtected = contract.protect.length > 0
    ? ((set) => (path: string) => set.matches(path))(compileGlobs(contract.protect))
    : () => false;
  const trees = createTaskTrees({
    repo: opts.repo,
    base: opts.base,
    taskId: opts.taskId,
    isProtected,
    ...(opts.worktreeRoot !== undefined ? { root: opts.worktreeRoot } : {}),
    ...(opts.pool !== undefined ? { pool: opts.pool } : {}),
  });
  return { sandbox, deps, setupOptions, contractDigest, trees };
}

/** Options of {@linkcode createCheckSandbox}. */
export interface CheckSandboxOptions {
  readonly sandbox: SandboxRequirement;
  readonly contract: OutcomeContract;
  readonly sandboxReadOnly?: readonly string[];
  readonly sandboxProbe?: Promise<SandboxProbe>;
  /** The key file in use (never visible, nor inside a declared path). */
  readonly keyStoreDir: string;
}

/** The profile maker of one verifier; see {@linkcode createCheckSandbox}. */
export interface CheckSandbox {
  /** The profile for a tree, with that tree's dependency views. */
  profile(tree: string, views: readonly DependencyView[]): Promise<SandboxProfile>;
}

/** Creates the profile maker of one verifier (the probe starts now unless `none`). */
export function createCheckSandbox(opts: CheckSandboxOptions): CheckSandbox {
  return new CheckSandboxProfiles(opts);
}

/** What every tree's profile shares: the requirement, the probe, the read-only paths, the limits. */
class CheckSandboxProfiles implements CheckSandbox {
  readonly #sandbox: SandboxRequirement;
  readonly #keyStoreDir: string;
  readonly #declaredReadOnly: readonly string[];
  readonly #contract: OutcomeContract;
  #limits: ReturnType<typeof withDefaultLimits> | null = null;
  #probe: Promise<SandboxProbe> | null;

  constructor(opts: CheckSandboxOptions) {
    this.#sandbox = opts.sandbox;
    this.#keyStoreDir = opts.keyStoreDir;
    this.#probe = opts.sandboxProbe ?? null;
    if (opts.sandbox !== "none") void this.#getProbe().catch(() => {});
    this.#declaredReadOnly = [
      ...(opts.sandboxReadOnly ?? []),
      ...(opts.contract.sandbox?.readOnly ?? []),
    ];
    this.#contract = opts.contract;
  }

  async profile(tree: string, views: readonly DependencyView[]): Promise<SandboxProfile> {
    // One selection for every requirement (`none` needs no probe and takes only the limits).
    const p = await selectSandbox(this.#sandbox, {
      worktree: tree,
      ...(this.#sandbox !== "none" ? { probe: await this.#getProbe() } : {}),
      declaredReadOnly: this.#declaredReadOnly,
      // The contract's limits over the defaults, worked out once, at the first check.
      limits: this.#limits ??= withDefaultLimits(
        this.#contract.sandbox?.limits,
        DEFAULT_CHECK_LIMITS,
      ),
      keyStoreDir: this.#keyStoreDir,
    });
    if (p.kind === "bwrap") return withDependencyViews(p, views);
    // Views exist only for bwrap to bind: without it the check would see empty directories.
    if (views.length > 0) {
      throw new SandboxError("sandbox_invalid", "Dependency views need the bwrap sandbox");
    }
    return p;
  }

  #getProbe(): Promise<SandboxProbe> {
    return this.#probe ??= probeSandbox();
  }
}
