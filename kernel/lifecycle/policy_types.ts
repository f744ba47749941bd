/**
 * The policy as data: what the kernel may do on its own, what needs a human,
 * and what it must never do.
 *
 * @module
 */
import type {
  GatedEffect,
  PolicyDecision,
  Reversibility,
  RiskProfile,
  SensitiveClass,
} from "./codes.ts";

/**
 * A snapshot of the policy in force for a task. Plain JSON data.
 *
 * - `profile`: `readonly` never lands a patch; `supervised` needs a human for
 *   every gated effect; `full` lands reversible effects on its own.
 * - `reversibility`: per gated effect. Irreversible effects always need a
 *   human approval, whatever the profile.
 * - `sensitive`: decision per sensitive-path class of the changed files.
 * - `approvalTtlMs`: how long a requested approval stays valid.
 */
export interface PolicySnapshot {
  /** Format version. */
  readonly v: 1;
  /** The risk profile the policy was built from. */
  readonly profile: RiskProfile;
  /** How reversible each gated effect is. */
  readonly reversibility: Readonly<Record<GatedEffect, Reversibility>>;
  /** Decision per sensitive-path class of the changed files. */
  readonly sensitive: Readonly<Record<SensitiveClass, PolicyDecision>>;
  /** How long a requested approval stays valid, ms. */
  readonly approvalTtlMs: number;
}
