/**
 * The sandbox profile of one task's checks: one probe per verifier (a real
 * bwrap run, started early, reused by every check run) unless a batch shares
 * one; the paths the caller and the contract declare read-only; the check
 * limits; the key store never visible; a batch tree's shared dependency views
 * bound read-only.
 *
 * @module
 */
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
