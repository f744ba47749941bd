/**
 * Policy evaluation: a pure function of a {@linkcode PolicySnapshot}, the
 * gated effect and the sensitive classes of the patch.
 *
 * @module
 */
import type { GatedEffect, PolicyDecision, SensitiveClass } from "./codes.ts";
import type { PolicySnapshot } from "./policy_types.ts";

export type { PolicySnapshot } from "./policy_types.ts";

/**
 * The default policy: `supervised`; integrate, push and open-PR are
 * irreversible; secrets-looking files and symlinks are denied; CI workflows,
 * dependency manifests, lockfiles and executables need a human; approvals
 * last one hour.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { defaultPolicy } from "./policy.ts";
 * equal(defaultPolicy().profile, "supervised");
 * ```
 */
export function defaultPolicy(): PolicySnapshot {
  return {
    v: 1,
    profile: "supervised",
    reversibility: { integrate: "irreversible", push: "irreversible", open_pr: "irreversible" },
    sensitive: {
      ci_workflow: "require_approval",
      dependency_manifest: "require_approval",
      lockfile: "require_approval",
      secrets: "deny",
      executable: "require_approval",
      symlink: "deny",
    },
    approvalTtlMs: 3_600_000,
  };
}

/** A policy decision with the reasons behind it. */
export interface PolicyVerdict {
  /** The decision. */
  readonly decision: PolicyDecision;
  /** Stable reason strings, e.g. `irreversible`, `sensitive:lockfile`. */
  readonly reasons: string[];
}

/**
 * Decides whether the sensitive classes of a patch are acceptable at all
 * (`deny` wins), before any verification work is spent on it.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { defaultPolicy, sensitiveDenied } from "./policy.ts";
 * equal(sensitiveDenied(defaultPolicy(), ["secrets"]), "secrets");
 * equal(sensitiveDenied(defaultPolicy(), ["lockfile"]), null);
 * ```
 */
export function sensitiveDenied(
  policy: PolicySnapshot,
  sensitive: readonly SensitiveClass[],
): SensitiveClass | null {
  for (const cls of sensitive) {
    if (policy.sensitive[cls] === "deny") return cls;
  }
  return null;
}

/**
 * Evaluates a gated effect: `deny` under the `readonly` profile or for a
 * denied sensitive class; `require_approval` when the effect is irreversible,
 * the profile is `supervised`, or a sensitive class asks for it; else `allow`.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { defaultPolicy, evaluateGatedEffect } from "./policy.ts";
 * equal(evaluateGatedEffect(defaultPolicy(), "integrate", []).decision, "require_approval");
 * ```
 */
export function evaluateGatedEffect(
  policy: PolicySnapshot,
  effect: GatedEffect,
  sensitive: readonly SensitiveClass[],
): PolicyVerdict {
  if (policy.profile === "readonly") return { decision: "deny", reasons: ["profile:readonly"] };
  const denied = sensitiveDenied(policy, sensitive);
  if (denied !== null) return { decision: "deny", reasons: [`sensitive:${denied}`] };
  const reasons: string[] = [];
  if (policy.reversibility[effect] !== "reversible") reasons.push("irreversible");
  if (policy.profile !== "full") reasons.push(`profile:${policy.profile}`);
  for (const cls of sensitive) {
    if (policy.sensitive[cls] !== "allow") reasons.push(`sensitive:${cls}`);
  }
  return reasons.length === 0
    ? { decision: "allow", reasons }
    : { decision: "require_approval", reasons };
}
